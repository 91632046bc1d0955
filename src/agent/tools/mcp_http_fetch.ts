// The fetch an HTTP MCP server is reached with: each response body is tied to the request's own
// signal, so aborting it (what closing the SDK's Streamable HTTP transport does) ends the body.
// Why not fetch's own abort: under Deno it reaches a body only through the signal the Request
// derives from the caller's, which the caller's signal holds weakly (denoland/deno#29075). Once
// the Request is unreachable, a garbage collection can take that signal; the abort then never
// reaches the body, and the stream a server keeps open (the GET stream the transport opens for
// server messages) keeps a pending read that holds the process open: `cxl tool` printed its
// answer and never exited. A pipe bound to the caller's signal holds it strongly and cancels the
// body (which closes its connection) on abort, on any runtime.

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** null-body statuses: a Response with one of them cannot be given a body */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

export function abortEndsBodyFetch(base?: FetchLike): FetchLike {
  return async (url, init) => {
    const res = await (base ?? fetch)(url, init);
    const signal = init?.signal;
    // what is not ok the SDK reads or cancels itself at once; only a streamed answer outlives the call
    if (!signal || !res.body || !res.ok || NO_BODY.has(res.status)) return res;
    const body = res.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>(), { signal });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
