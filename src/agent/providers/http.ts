// HTTP plumbing shared by the providers: one request with a streamed body under three timeouts
// (connect, first byte, idle between chunks), bounded retries of 429 and 5xx answers, and
// failures mapped to ProviderError kinds with messages that say what to do next.
// Built on node:http rather than fetch: fetch cannot tell connecting from waiting, and Node's
// fetch adds its own 300 s header and body limits that would fire before a slow CPU model answers.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { formatDuration } from '../../config/duration.ts';
import { ProviderError, type TimeoutStage } from './types.ts';

export interface Timeouts {
  /** until the TCP (and TLS) connection is up */
  connectMs: number;
  /** from connected until the first byte of the answer's body: model load and prompt processing */
  firstByteMs: number;
  /** the longest gap between two chunks of the answer */
  idleMs: number;
}

/** Sized for a local model on a CPU: loading it and reading a long prompt can take minutes. */
export const DEFAULT_TIMEOUTS: Readonly<Timeouts> = Object.freeze({ connectMs: 10_000, firstByteMs: 600_000, idleMs: 120_000 });

export interface RetryPolicy {
  /** how many times a 429 or 5xx answer is sent again */
  retries: number;
  /** the first backoff; it doubles each time, capped at 8 s */
  baseMs: number;
  /** the longest Retry-After waited out, in seconds; a longer one ends the request with the error */
  maxWaitS: number;
}

export const DEFAULT_RETRY: Readonly<RetryPolicy> = Object.freeze({ retries: 3, baseMs: 1000, maxWaitS: 10 });

/** What a provider's requests are sent with. */
export interface HttpSettings {
  timeouts: Timeouts;
  retry: RetryPolicy;
}

export const DEFAULT_HTTP: Readonly<HttpSettings> = Object.freeze({ timeouts: DEFAULT_TIMEOUTS, retry: DEFAULT_RETRY });

export type ProviderLabel = 'openai' | 'ollama';

const URL_HINT: Record<ProviderLabel, string> = { ollama: 'OLLAMA_HOST', openai: 'OPENAI_BASE_URL' };

/** Parses Retry-After: seconds, or an HTTP date. */
export function parseRetryAfter(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  const n = Number(value.trim());
  if (Number.isFinite(n) && n >= 0) return n;
  const t = Date.parse(value);
  if (!Number.isNaN(t)) return Math.max(0, Math.ceil((t - Date.now()) / 1000));
  return undefined;
}

export const CONTEXT_RE = /context[_ ]length|maximum context|context window|context size|too many tokens|prompt is too long|exceeds? the (?:model'?s? )?(?:available )?(?:context|maximum)|exceed_context/i;

/** The prompt size a too-long error names: "you requested 9000 tokens", "n_prompt_tokens": 9000. */
export function promptFromError(text: string): number | undefined {
  const m = /"n_prompt_tokens"\s*:\s*(\d+)/.exec(text) ?? /(?:you|your messages?) (?:requested|resulted in) (\d+) tokens/i.exec(text) ?? /prompt (?:has|of|is) (\d+) tokens/i.exec(text);
  return m ? Number(m[1]) : undefined;
}

/** The window a too-long error names: "maximum context length is 8192 tokens", "n_ctx": 4096, … */
export function limitFromError(text: string): number | undefined {
  const patterns = [
    /maximum context length is (\d+)/i,
    /"n_ctx"\s*:\s*(\d+)/,
    /context (?:length|size|window)(?: of| is)? (\d+)/i,
    /\((\d+) tokens\)/,
  ];
  for (const re of patterns) {
    const m = re.exec(text);
    if (m) {
      const n = Number(m[1]);
      if (Number.isInteger(n) && n >= 256) return n;
    }
  }
  return undefined;
}

export interface HttpResponse {
  status: number;
  headers: IncomingMessage['headers'];
  contentType: string;
  /** the body, chunk by chunk, under the first-byte and idle timeouts */
  chunks(): AsyncGenerator<Uint8Array>;
  /** the whole body as text (at most 64 KiB), under the same timeouts */
  text(): Promise<string>;
}

interface SendOptions {
  provider: ProviderLabel;
  method: 'GET' | 'POST';
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  timeouts: Timeouts;
}

function timeoutMessage(provider: ProviderLabel, url: URL, stage: TimeoutStage, ms: number): string {
  const d = formatDuration(ms);
  if (stage === 'connect') {
    return `${provider}: could not connect to ${url.host} within the connect timeout of ${d}. Is the server running and reachable (${URL_HINT[provider]})? On a slow network raise connect_timeout in [agents.<name>] or pass --connect-timeout.`;
  }
  if (stage === 'first_byte') {
    return `${provider}: ${url.origin} took the request but sent nothing within the first-byte timeout of ${d}. Loading a model and reading a long prompt on a CPU can take that long: raise first_byte_timeout in [agents.<name>] or pass --first-byte-timeout (or use a smaller window or model).`;
  }
  return `${provider}: the answer stalled: nothing arrived for ${d} (the idle timeout between stream chunks). If the model is that slow raise idle_timeout in [agents.<name>] or pass --idle-timeout; otherwise send the prompt again.`;
}

/**
 * Ends a request the caller gave up on (a cancel or a timeout), closing its connection so the
 * server stops working on it. Deno's node:http resends a request destroyed on a kept-alive socket
 * before its answer, taking the close for a stale pooled connection (denoland/deno#36786): a
 * cancelled chat request was sent again on a new connection and the model server computed an answer
 * nobody read. Its retry asks `reusedSocket` (Node's public flag; Node never retries), so the flag
 * is cleared first.
 */
function giveUp(req: http.ClientRequest, err: Error): void {
  req.reusedSocket = false;
  req.destroy(err);
}

/** One request. Resolves when the answer's headers are in; the body is read through the result. */
export function send(urlText: string, o: SendOptions): Promise<HttpResponse> {
  const url = new URL(urlText);
  const mod = url.protocol === 'https:' ? https : url.protocol === 'http:' ? http : undefined;
  if (!mod) return Promise.reject(new ProviderError('unreachable', `${o.provider}: ${urlText} is not an http(s) URL. Check ${URL_HINT[o.provider]} or the base URL in config.`));
  const payload = o.body === undefined ? undefined : JSON.stringify(o.body);
  const { signal } = o;
  if (signal?.aborted) return Promise.reject(new ProviderError('cancelled', 'cancelled'));

  return new Promise<HttpResponse>((resolve, reject) => {
    let fired: TimeoutStage | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let res: IncomingMessage | undefined;
    let settled = false;
    const clear = () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
    };
    const arm = (stage: TimeoutStage) => {
      clear();
      const ms = stage === 'connect' ? o.timeouts.connectMs : stage === 'first_byte' ? o.timeouts.firstByteMs : o.timeouts.idleMs;
      if (!(ms > 0)) return;
      timer = setTimeout(() => {
        fired = stage;
        const err = new ProviderError('timeout', timeoutMessage(o.provider, url, stage, ms), { stage });
        if (res) res.destroy(err);
        giveUp(req, err);
        // before the answer, fail here: Deno's node:http emits no 'error' for a request destroyed
        // while it waits for headers, so the wait would last forever
        if (!settled) fail(err);
      }, ms);
    };
    const onAbort = () => {
      clear();
      const err = new ProviderError('cancelled', 'cancelled');
      res?.destroy(err);
      giveUp(req, err);
      if (!settled) fail(err); // as for a timeout: Deno would never say
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      clear();
      signal?.removeEventListener('abort', onAbort);
    };
    const fail = (err: ProviderError) => {
      done();
      if (!settled) {
        settled = true;
        reject(err);
      }
    };

    const req = mod.request(url, {
      method: o.method,
      headers: { ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}), ...o.headers },
    });
    arm('connect');
    req.on('socket', (s) => {
      // a kept-alive socket is already connected
      if (!s.connecting) arm('first_byte');
      else s.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => arm('first_byte'));
    });
    req.on('error', (err: Error & { code?: string }) => {
      if (signal?.aborted) return fail(new ProviderError('cancelled', 'cancelled'));
      if (fired || err instanceof ProviderError) return fail(err instanceof ProviderError ? err : new ProviderError('timeout', String(err), { stage: fired }));
      const why = err.code ?? err.message;
      if (err.code === 'ECONNRESET' || /socket hang up/i.test(err.message)) {
        return fail(new ProviderError('bad_stream', `${o.provider}: ${url.origin} closed the connection without answering (${why}). Send the prompt again.`, { beforeAnything: true }));
      }
      fail(new ProviderError('unreachable', `${o.provider}: cannot reach ${url.origin}${url.pathname} (${why}). Is the server running? Check the URL (${URL_HINT[o.provider]}) or pick another provider with --provider.`));
    });
    req.on('response', (r) => {
      res = r;
      settled = true;
      const ct = String(r.headers['content-type'] ?? '');
      // the first-byte timer keeps running until the body's first chunk

      async function* chunks(): AsyncGenerator<Uint8Array> {
        let first = true;
        try {
          const it = r[Symbol.asyncIterator]();
          for (;;) {
            if (!first && !timer) arm('idle');
            let step: IteratorResult<Uint8Array>;
            try {
              step = (await it.next()) as IteratorResult<Uint8Array>;
            } catch (err) {
              if (signal?.aborted) throw new ProviderError('cancelled', 'cancelled');
              if (err instanceof ProviderError) throw err;
              throw new ProviderError('bad_stream', `${o.provider}: the response stream broke off (${err instanceof Error ? err.message : String(err)}). Send the prompt again.`, { beforeAnything: first });
            }
            if (step.done) break;
            first = false;
            // the idle clock measures the server, not the time we spend on a chunk
            clear();
            yield step.value;
          }
          if (r.readableAborted || (r as { aborted?: boolean }).aborted) {
            throw new ProviderError('bad_stream', `${o.provider}: the response stream broke off before the end. Send the prompt again.`, { beforeAnything: first });
          }
        } finally {
          done();
          r.destroy();
        }
      }

      resolve({
        status: r.statusCode ?? 0,
        headers: r.headers,
        contentType: ct,
        chunks,
        async text() {
          const dec = new TextDecoder();
          let s = '';
          for await (const c of chunks()) {
            s += dec.decode(c, { stream: true });
            if (s.length > 64 * 1024) break;
          }
          return s + dec.decode();
        },
      });
    });
    req.end(payload);
  });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ProviderError('cancelled', 'cancelled'));
    const t = setTimeout(finish, ms);
    function finish() {
      clearTimeout(t);
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(t);
      reject(new ProviderError('cancelled', 'cancelled'));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface PostOptions {
  headers?: Record<string, string>;
  signal?: AbortSignal;
  settings: HttpSettings;
  onRetry?: (message: string) => void;
}

/**
 * POSTs `body` and returns the 2xx answer. A 429 is waited out when it names a Retry-After of at
 * most `maxWaitS` (or, without one, after a backoff); a 500/502/503/504 or a connection closed
 * before any answer is sent again after a doubling backoff; both at most `retries` times.
 * Everything else becomes a ProviderError.
 */
export async function postStream(provider: ProviderLabel, url: string, body: unknown, o: PostOptions): Promise<HttpResponse> {
  const { retries, baseMs, maxWaitS } = o.settings.retry;
  for (let attempt = 0; ; attempt++) {
    let res: HttpResponse;
    try {
      res = await send(url, { provider, method: 'POST', body, headers: o.headers, signal: o.signal, timeouts: o.settings.timeouts });
    } catch (err) {
      if (err instanceof ProviderError && err.kind === 'bad_stream' && err.beforeAnything && attempt < retries) {
        const wait = backoff(baseMs, attempt);
        o.onRetry?.(`${provider}: the server closed the connection without answering; sending again in ${seconds(wait)} (${attempt + 1} of ${retries}).`);
        await sleep(wait, o.signal);
        continue;
      }
      throw err;
    }
    if (res.status >= 200 && res.status < 300) return res;
    let text = '';
    try {
      text = await res.text();
    } catch (err) {
      if (err instanceof ProviderError && (err.kind === 'cancelled' || err.kind === 'timeout')) throw err;
      // otherwise the body is only used for the message
    }
    const error = statusError(provider, url, res, text);
    const retryAfter = error.retryAfter;
    const transient = res.status === 429 || res.status === 500 || res.status === 502 || res.status === 503 || res.status === 504;
    if (transient && attempt < retries && !(retryAfter !== undefined && retryAfter > maxWaitS) && !(res.status === 429 && retryAfter === undefined && attempt >= 2)) {
      const wait = retryAfter !== undefined ? retryAfter * 1000 : backoff(baseMs, attempt);
      o.onRetry?.(`${provider}: HTTP ${res.status}${retryAfter !== undefined ? ` (Retry-After ${retryAfter} s)` : ''}; sending again in ${seconds(wait)} (${attempt + 1} of ${retries}).`);
      await sleep(wait, o.signal);
      continue;
    }
    throw error;
  }
}

function backoff(baseMs: number, attempt: number): number {
  return Math.min(8000, baseMs * 2 ** attempt);
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

/** The ProviderError for a non-2xx answer. */
export function statusError(provider: ProviderLabel, url: string, res: { status: number; headers: IncomingMessage['headers'] }, text: string): ProviderError {
  const detail = errorDetail(text);
  const status = res.status;
  if (status === 401 || status === 403) {
    return new ProviderError('auth', `${provider}: the server refused the credentials (HTTP ${status}${detail ? `: ${detail}` : ''}). Set OPENAI_API_KEY (or the provider's api_key in config) to a valid key.`);
  }
  if (status === 429) {
    const h = res.headers['retry-after'];
    const after = parseRetryAfter(Array.isArray(h) ? h[0] : h);
    return new ProviderError('rate_limited', `${provider}: rate limited (HTTP 429${detail ? `: ${detail}` : ''})${after !== undefined ? `; the server asks to retry after ${after} s` : ''}. Wait and send the prompt again, or use another model.`, { retryAfter: after });
  }
  if (CONTEXT_RE.test(text)) {
    const limit = limitFromError(text);
    return new ProviderError('context_length', `${provider}: the conversation is longer than the model's context window (${detail || `HTTP ${status}`}). Use /compact, a larger context_window, or a model with a larger context.`, { limit, promptTokens: promptFromError(text) });
  }
  if (status === 404 || (status === 400 && /model/i.test(detail) && /not (?:found|exist|a valid)|unknown model|invalid model/i.test(detail))) {
    return new ProviderError('model_not_found', `${provider}: not found at ${url} (HTTP ${status}${detail ? `: ${detail}` : ''}). Check the model name (--model) and the base URL${provider === 'ollama' ? '; `ollama pull <model>` fetches a model' : ''}.`);
  }
  const h = res.headers['retry-after'];
  const after = parseRetryAfter(Array.isArray(h) ? h[0] : h);
  return new ProviderError('http', `${provider}: HTTP ${status} from ${url}${detail ? `: ${detail}` : ''}.`, { retryAfter: after });
}

function errorDetail(text: string): string {
  if (!text) return '';
  try {
    const j = JSON.parse(text) as { error?: unknown; message?: unknown };
    const e = j.error;
    if (typeof e === 'string') return e.slice(0, 300);
    if (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string') return ((e as { message: string }).message).slice(0, 300);
    if (typeof j.message === 'string') return j.message.slice(0, 300);
  } catch {
    // not JSON
  }
  return text.trim().replace(/\s+/g, ' ').slice(0, 300);
}

/** GETs (or POSTs) a small JSON document; undefined when the server has none or does not answer. */
export async function fetchJson(provider: ProviderLabel, url: string, o: { method?: 'GET' | 'POST'; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal; timeoutMs: number }): Promise<unknown> {
  const t = o.timeoutMs;
  try {
    const res = await send(url, { provider, method: o.method ?? 'GET', body: o.body, headers: o.headers, signal: o.signal, timeouts: { connectMs: t, firstByteMs: t, idleMs: t } });
    const text = await res.text();
    if (res.status < 200 || res.status >= 300) return undefined;
    return JSON.parse(text) as unknown;
  } catch (err) {
    if (err instanceof ProviderError && err.kind === 'cancelled') throw err;
    return undefined;
  }
}

/** The first bytes of a body, printable, for a message about what came instead of a stream. */
export function preview(text: string): string {
  return JSON.stringify(text.trim().replace(/\s+/g, ' ').slice(0, 80));
}

/**
 * Yields the lines of a byte stream (split on \n, \r stripped), each chunk's complete lines as
 * one array: a streamed answer is tens of thousands of lines, and a consumer that loops over an
 * array instead of awaiting each line saves an async step per line (~10% of a flood's time).
 */
export async function* lineBatches(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string[]> {
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of chunks) {
    buf += decoder.decode(chunk, { stream: true });
    // walk the buffer by index and cut the remainder once: slicing per line is quadratic
    const out: string[] = [];
    let start = 0;
    let nl: number;
    while ((nl = buf.indexOf('\n', start)) >= 0) {
      const end = nl > start && buf.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      out.push(buf.slice(start, end));
      start = nl + 1;
    }
    if (start > 0) buf = buf.slice(start);
    if (out.length) yield out;
  }
  buf += decoder.decode();
  if (buf.length) yield [buf.replace(/\r$/, '')];
}
