// The `[remote_tools.<name>]` tables of agents.toml: an HTTP service with an OpenAPI document
// whose operations become tools. Checked here, apart from schema.ts, so that file only names the
// key; every problem is reported with its key path (and so its file:line).
import { CORE_TOOLSET_NAMES } from '../core/registry/builtin_toolsets.ts';

export interface RemoteToolSpec {
  /** base URL every call goes to (http or https) */
  url: string;
  /** the document: a path under `url` (`/openapi.json`), a full URL, or a file */
  openapi?: string;
  /** sent with the document request and every call; values may hold `{{env:NAME}}` */
  headers?: Record<string, string>;
  /** how long one call (and fetching the document) may take */
  timeoutMs?: number;
  /** operation ids (or derived tool names) to offer; `*` matches any run of characters */
  include?: string[];
  exclude?: string[];
}

/** What the schema checker lends this file (schema.ts's Checker has these). */
export interface CheckHelpers {
  fail(path: string[], message: string): undefined;
  wrongType(path: string[], expected: string, got: unknown): undefined;
  table(path: string[], v: unknown, valid: readonly string[], what: string): v is Record<string, unknown>;
  str(path: string[], v: unknown): string | undefined;
  strList(path: string[], v: unknown): string[] | undefined;
  duration(path: string[], v: unknown): number | undefined;
}

export const REMOTE_TOOL_KEYS = ['url', 'openapi', 'headers', 'timeout', 'include', 'exclude'] as const;

/** Service names become toolset names (`<name>.<operationId>`): short plain names, none of the built-ins. */
export const REMOTE_NAME = /^[A-Za-z0-9_-]{1,32}$/;
/** the built-in toolsets' names (core/registry/builtin_toolsets.ts) */
const RESERVED = new Set(CORE_TOOLSET_NAMES);
/** RFC 9110 token: what a header name may be. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
import { ENV_TEMPLATE } from '../core/env_template.ts';

export { ENV_TEMPLATE };

/** A `headers` table (a remote service's, an MCP `url` server's): names, strings, `{{env:NAME}}` only. */
export function checkHeaders(c: Pick<CheckHelpers, 'fail' | 'wrongType'>, p: string[], v: unknown): Record<string, string> | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    c.wrongType(p, 'a table of Header-Name = "value"', v);
    return undefined;
  }
  const headers: Record<string, string> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const hp = [...p, k];
    // the value is never repeated in a message: it may be a secret
    if (!HEADER_NAME.test(k)) c.fail(hp, `\`${k}\` is not a valid HTTP header name.`);
    else if (typeof x !== 'string') c.fail(hp, `the value of header \`${k}\` must be a string (quote it).`);
    else if (/[\r\n\0]/.test(x)) c.fail(hp, `the value of header \`${k}\` holds a line break or NUL, which no header may.`);
    else if (/\{\{/.test(x.replace(ENV_TEMPLATE, ''))) c.fail(hp, `the value of header \`${k}\` holds a \`{{…}}\` that is not \`{{env:NAME}}\` (the only template a header takes).`);
    else headers[k] = x;
  }
  return headers;
}

export function checkRemoteTools(c: CheckHelpers, path: string[], v: unknown): Record<string, RemoteToolSpec> | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof Date) return c.wrongType(path, 'a table of [remote_tools.<name>]', v);
  const out: Record<string, RemoteToolSpec> = {};
  for (const [name, s] of Object.entries(v as Record<string, unknown>)) {
    const p = [...path, name];
    if (!REMOTE_NAME.test(name)) {
      c.fail(p, `\`${name}\` is not a remote tools name (letters, digits, _ and -, up to 32); it becomes the first half of its tools' names.`);
      continue;
    }
    if (RESERVED.has(name) || name.startsWith('native-')) {
      c.fail(p, `\`${name}\` is the name of a built-in toolset (or in their \`native-\` namespace); give the service another name.`);
      continue;
    }
    if (!c.table(p, s, REMOTE_TOOL_KEYS, 'a remote service: url, openapi, headers, timeout, include, exclude')) continue;
    const spec = entry(c, p, s);
    if (spec) out[name] = spec;
  }
  return out;
}

function entry(c: CheckHelpers, p: string[], s: Record<string, unknown>): RemoteToolSpec | undefined {
  const url = c.str([...p, 'url'], s.url);
  let ok = true;
  if (s.url === undefined) {
    c.fail(p, `[${p.join('.')}] needs \`url\`, the service's base URL (e.g. url = "http://127.0.0.1:8000").`);
    ok = false;
  } else if (url !== undefined) {
    const why = badBaseUrl(url);
    if (why) {
      // a URL with credentials is not repeated: the password would be in the message
      c.fail([...p, 'url'], `\`${p.join('.')}.url\`${why.startsWith('holds credentials') ? '' : ` = ${JSON.stringify(url)}`} ${why}`);
      ok = false;
    }
  }
  const spec: RemoteToolSpec = { url: url ?? '' };
  const openapi = c.str([...p, 'openapi'], s.openapi);
  if (openapi !== undefined) {
    if (openapi.trim() === '') c.fail([...p, 'openapi'], `\`${p.join('.')}.openapi\` is empty; write a path under url ("/openapi.json"), a URL, or a file.`);
    else spec.openapi = openapi;
  }
  if (s.headers !== undefined) {
    const headers = checkHeaders(c, [...p, 'headers'], s.headers);
    if (headers) spec.headers = headers;
  }
  const t = c.duration([...p, 'timeout'], s.timeout);
  if (t !== undefined) {
    if (t <= 0) c.fail([...p, 'timeout'], `\`${p.join('.')}.timeout\` must be longer than zero.`);
    else spec.timeoutMs = t;
  }
  for (const k of ['include', 'exclude'] as const) {
    const l = c.strList([...p, k], s[k]);
    if (l) spec[k] = l;
  }
  return ok ? spec : undefined;
}

/** Why a base URL is unusable, or undefined when it is fine. */
export function badBaseUrl(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'is not a URL; write e.g. "http://127.0.0.1:8000".';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `uses ${u.protocol.replace(/:$/, '')}; only http and https services are supported.`;
  if (u.username || u.password) return 'holds credentials; put them in headers (they are then never shown) instead.';
  if (u.search || u.hash) return 'has a query or fragment; the base URL is scheme, host, port and an optional path.';
  return undefined;
}
