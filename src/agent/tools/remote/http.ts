// One remote tool call on the wire: the request built from the operation and the arguments
// (path values encoded and never allowed to climb out of the base path, header values without
// line breaks), sent with fetch under a timeout that aborts it, redirects followed only within
// the service's own origin, the answer read up to a byte cap, and the configured header values
// cut out of everything that comes back.
import { ToolError } from '../../../core/errors.ts';
import type { Operation } from './operations.ts';

export interface PlannedRequest {
  method: string;
  url: URL;
  /** the operation's header and cookie parameters (the configured headers are added when sent) */
  headers: Record<string, string>;
  body?: string;
  contentType?: string;
}

const ACCEPT = 'application/json, text/plain;q=0.9, text/*;q=0.8, */*;q=0.5';
const MAX_REDIRECTS = 5;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function scalar(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

/** A value in OpenAPI's simple style: arrays comma-joined, objects key,value (or key=value exploded). */
function simple(v: unknown, explode: boolean): string {
  if (Array.isArray(v)) return v.map(scalar).join(',');
  if (isObj(v)) return Object.entries(v).map(([k, x]) => (explode ? `${k}=${scalar(x)}` : `${k},${scalar(x)}`)).join(',');
  return scalar(v);
}

const DELIMITERS: Record<string, string> = { spaceDelimited: ' ', pipeDelimited: '|', tabDelimited: '\t' };

/** The request an operation makes with these (already validated) arguments. */
export function planRequest(base: URL, op: Operation, args: Record<string, unknown>, qualified: string): PlannedRequest {
  const bad = (msg: string) => new ToolError('bad_args', `${qualified}: ${msg}`);
  let route = op.path;
  for (const b of op.params) {
    if (b.in !== 'path') continue;
    const v = args[b.prop];
    if (v === undefined || v === null) throw bad(`the path parameter \`${b.prop}\` is required.`);
    const s = simple(v, b.explode);
    // `.` and `..` would be read as path steps by every URL parser, even percent-encoded
    if (s === '' || s === '.' || s === '..' || /^%2e(%2e)?$/i.test(s)) throw bad(`the path parameter \`${b.prop}\` may not be ${JSON.stringify(s)}.`);
    route = route.split(`{${b.name}}`).join(encodeURIComponent(s));
  }
  const basePath = base.pathname.replace(/\/+$/, '');
  const url = new URL(`${basePath}${route}`, base.origin);
  if (url.origin !== base.origin || !(url.pathname === basePath || url.pathname.startsWith(`${basePath}/`) || basePath === '')) {
    throw bad(`the arguments make the URL ${url.href}, which is outside ${base.href}.`);
  }
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const b of op.params) {
    const v = args[b.prop];
    if (v === undefined || v === null || b.in === 'path') continue;
    if (b.in === 'query') {
      if (Array.isArray(v)) {
        if (b.explode) for (const x of v) url.searchParams.append(b.name, scalar(x));
        else url.searchParams.append(b.name, v.map(scalar).join(DELIMITERS[b.style] ?? ','));
      } else if (isObj(v)) {
        if (b.style === 'deepObject') for (const [k, x] of Object.entries(v)) url.searchParams.append(`${b.name}[${k}]`, scalar(x));
        else if (b.explode) for (const [k, x] of Object.entries(v)) url.searchParams.append(k, scalar(x));
        else url.searchParams.append(b.name, simple(v, false));
      } else url.searchParams.append(b.name, scalar(v));
    } else {
      const s = simple(v, b.explode);
      if (/[\r\n\0]/.test(s)) throw bad(`the ${b.in} parameter \`${b.prop}\` holds a line break or NUL, which no header may.`);
      if (b.in === 'header') headers[b.name] = s;
      else cookies.push(`${b.name}=${encodeURIComponent(s)}`);
    }
  }
  if (cookies.length) headers.Cookie = cookies.join('; ');
  const plan: PlannedRequest = { method: op.method, url, headers };
  const body = op.body;
  if (body) {
    let value: unknown;
    if (body.mode === 'flat') {
      const o: Obj = {};
      for (const k of body.props ?? []) if (args[k] !== undefined) o[k] = args[k];
      value = Object.keys(o).length || body.required ? o : undefined;
    } else value = args[body.prop!];
    if (value !== undefined) {
      plan.contentType = body.contentType;
      if (body.kind === 'json') plan.body = JSON.stringify(value);
      else if (body.kind === 'text') plan.body = scalar(value);
      else {
        const form = new URLSearchParams();
        for (const [k, x] of Object.entries(isObj(value) ? value : {})) {
          if (Array.isArray(x)) for (const e of x) form.append(k, scalar(e));
          else if (x !== undefined && x !== null) form.append(k, scalar(x));
        }
        plan.body = form.toString();
      }
    }
  }
  return plan;
}

/** What an approval shows: method and URL, the operation's own headers, the body, the configured header names. */
export function describeRequest(plan: PlannedRequest, configured: string[], maxBody = 4000): string[] {
  const lines = [`${plan.method} ${plan.url.href}`];
  for (const [k, v] of Object.entries(plan.headers)) lines.push(`${k}: ${v}`);
  if (configured.length) lines.push(`(with ${configured.join(', ')} from agents.toml; ${configured.length === 1 ? 'its value is' : 'their values are'} not shown)`);
  if (plan.body !== undefined) {
    let shown = plan.body;
    if (plan.contentType && /json/i.test(plan.contentType)) {
      try {
        shown = JSON.stringify(JSON.parse(plan.body), null, 2);
      } catch {
        // shown as sent
      }
    }
    if (shown.length > maxBody) shown = `${shown.slice(0, maxBody)}\n… (${shown.length - maxBody} more characters)`;
    lines.push(`body (${plan.contentType}):`, shown);
  }
  return lines;
}

export interface SendOptions {
  /** sent with every request to the service's origin: the configured headers, filled */
  fixedHeaders: Record<string, string>;
  timeoutMs: number;
  /** the answer is cut here (Infinity: not cut) */
  maxBytes: number;
  signal?: AbortSignal;
  /** what to cut out of anything shown: the filled header values */
  secrets: string[];
  /** `svc.getPet`, for messages */
  label: string;
  /** where the timeout is set, for messages */
  timeoutHint: string;
}

export interface HttpAnswer {
  status: number;
  statusText: string;
  contentType: string;
  /** the body as text (secrets cut out), or undefined for a binary body */
  text?: string;
  bytes: number;
  /** more came than maxBytes */
  truncated: boolean;
}

/** Cuts every configured secret out of text that came from the service. */
export function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('[redacted]');
  return out;
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}

function cause(err: unknown): string {
  const c = (err as { cause?: { code?: string; message?: string } }).cause;
  return (c?.code ?? c?.message ?? (err instanceof Error ? err.message : String(err))).replace(/\s+/g, ' ').trim();
}

/** Sends the request; throws ToolError (timeout, cancelled, io_error) when no answer comes. */
export async function send(plan: PlannedRequest, o: SendOptions): Promise<HttpAnswer> {
  const timeout = AbortSignal.timeout(o.timeoutMs);
  const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
  const stopped = (err: unknown): ToolError => {
    if (o.signal?.aborted) return new ToolError('cancelled', `${o.label} was cancelled.`);
    if (timeout.aborted) {
      return new ToolError('timeout', `${o.label} got no complete answer from ${plan.url.origin} within ${seconds(o.timeoutMs)}; the request was abandoned${plan.method === 'GET' ? '' : ' (the service may still have acted on it)'}. Try again later, or raise ${o.timeoutHint}.`, { reason: `no complete answer within ${seconds(o.timeoutMs)}` });
    }
    const why = redact(cause(err), o.secrets);
    return new ToolError('io_error', `${o.label}: cannot reach ${plan.url.origin} (${why}). Is the service running?`, { reason: why });
  };
  let method = plan.method;
  let url = plan.url;
  let body = plan.body;
  let res: Response;
  for (let hop = 0; ; hop++) {
    const headers: Record<string, string> = { accept: ACCEPT, ...plan.headers, ...o.fixedHeaders };
    if (body !== undefined && plan.contentType) headers['content-type'] = plan.contentType;
    try {
      res = await fetch(url, { method, headers, body, redirect: 'manual', signal });
    } catch (err) {
      throw stopped(err);
    }
    if (res.status < 300 || res.status > 399 || res.status === 304 || !res.headers.get('location')) break;
    const location = res.headers.get('location')!;
    await res.body?.cancel().catch(() => {});
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new ToolError('io_error', `${o.label}: the service answered ${res.status} with a Location that is not a URL.`, { status: res.status });
    }
    // the configured headers (credentials) go to the service's own origin and nowhere else
    if (next.origin !== plan.url.origin) {
      throw new ToolError('io_error', `${o.label}: the service redirected (${res.status}) to ${next.origin}, another host; redirects are followed only within ${plan.url.origin}.`, { status: res.status, location: next.href });
    }
    if (hop + 1 >= MAX_REDIRECTS) throw new ToolError('io_error', `${o.label}: more than ${MAX_REDIRECTS} redirects; the last went to ${next.href}.`, { status: res.status });
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
      method = method === 'HEAD' ? 'HEAD' : 'GET';
      body = undefined;
    }
    url = next;
  }
  const contentType = res.headers.get('content-type') ?? '';
  let read: { bytes: Uint8Array; total: number; truncated: boolean };
  try {
    read = await readCapped(res, o.maxBytes, signal);
  } catch (err) {
    throw stopped(err);
  }
  const binary = isBinary(contentType, read.bytes);
  const text = binary ? undefined : redact(new TextDecoder().decode(read.bytes), o.secrets);
  return { status: res.status, statusText: res.statusText, contentType, text, bytes: read.total, truncated: read.truncated };
}

async function readCapped(res: Response, max: number, signal: AbortSignal): Promise<{ bytes: Uint8Array; total: number; truncated: boolean }> {
  if (!res.body) return { bytes: new Uint8Array(0), total: 0, truncated: false };
  const reader = res.body.getReader();
  // fetch's own abort may never reach the body under Deno once the Request is collected (see
  // mcp_http_fetch.ts): the signal cancels the reader itself, so a service that stops halfway
  // through its answer still meets the timeout and the user's cancel
  const onAbort = () => void reader.cancel(signal.reason).catch(() => {});
  signal.addEventListener('abort', onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  try {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const { done, value } = await reader.read();
      // a cancelled reader ends as if the answer were whole: it was not
      if (signal.aborted) throw signal.reason;
      if (done) break;
      if (total + value.byteLength > max) {
        chunks.push(value.subarray(0, max - total));
        total = max;
        truncated = true;
        await reader.cancel().catch(() => {});
        break;
      }
      chunks.push(value);
      total += value.byteLength;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { bytes, total, truncated };
}

function isBinary(contentType: string, bytes: Uint8Array): boolean {
  const t = contentType.split(';')[0].trim().toLowerCase();
  if (/^(?:text\/|application\/(?:[\w.+-]+\+)?(?:json|xml|yaml|x-yaml|javascript|x-www-form-urlencoded|problem\+json)$)/.test(t) || /\+(?:json|xml)$/.test(t)) return false;
  if (t && t !== 'application/octet-stream') return !/^(?:application\/(?:graphql|sql|csv))$/.test(t);
  // no type, or octet-stream: binary when it holds NUL bytes
  return bytes.subarray(0, 4096).includes(0);
}

/** The answer as the model reads it: parsed JSON, text, or a line saying what was not shown. */
export function resultOf(a: HttpAnswer, maxBytes: number): unknown {
  if (a.text === undefined) return `(binary answer, ${a.contentType || 'no content type'}, ${a.bytes}${a.truncated ? '+' : ''} bytes; not shown)`;
  if (a.text === '') return `(HTTP ${a.status}${a.statusText ? ` ${a.statusText}` : ''}, no content)`;
  if (a.truncated) {
    // cut on a character: a split multi-byte sequence decodes as U+FFFD at the very end
    return `${a.text.replace(/\uFFFD$/, '')}\n… (answer cut at ${maxBytes} bytes, _max_output_bytes; ask the service for less)`;
  }
  if (/json/i.test(a.contentType)) {
    try {
      return JSON.parse(a.text);
    } catch {
      return a.text;
    }
  }
  return a.text;
}

/** A 4xx/5xx answer as a tool error: the status and the start of the body. */
export function httpError(a: HttpAnswer, label: string): ToolError {
  let detail = a.text === undefined ? '' : a.text.replace(/\s+/g, ' ').trim();
  if (detail.length > 300) detail = `${detail.slice(0, 300)}…`;
  const hint = a.status === 401 || a.status === 403 ? ' Check the headers in its [remote_tools] entry.' : a.status >= 500 ? ' The service failed; try again later or report it to its owners.' : ' Check the arguments.';
  return new ToolError('io_error', `${label}: the service answered ${a.status}${a.statusText ? ` ${a.statusText}` : ''}${detail ? `: ${detail}` : ''}.${hint}`, { status: a.status });
}
