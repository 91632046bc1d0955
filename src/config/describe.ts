// The effective configuration as lines `key = value  # where it came from`: what `cxl config`
// prints, and what a trust prompt compares with and without a project's own file to show what
// trusting it would change. Secrets in remote tools' and MCP servers' headers are never printed.
import { formatDuration } from './duration.ts';
import { BUILTIN, type EffectiveConfig } from './load.ts';
import { ENV_TEMPLATE } from './remote_tools_schema.ts';
import type { ConfigData } from './schema.ts';

function show(v: unknown): string {
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && 'grant' in v) {
    const g = v as { grant: string; timeoutMs?: number };
    return g.timeoutMs === undefined ? JSON.stringify(g.grant) : `{ grant = ${JSON.stringify(g.grant)}, timeout = "${formatDuration(g.timeoutMs)}" }`;
  }
  if (Array.isArray(v) && v.some((x) => typeof x === 'object' && x !== null)) return `[${v.map(show).join(', ')}]`;
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    return `{ ${Object.entries(v).map(([k, x]) => `${k} = ${show(x)}`).join(', ')} }`;
  }
  return JSON.stringify(v);
}

/** Leaf lines `key = value` in a stable order, with the source of each. */
function leaves(v: unknown, key: string, out: [string, string][], sourceOf: (k: string) => string): void {
  if (Array.isArray(v)) {
    if (v.some((x) => typeof x === 'object' && x !== null)) v.forEach((x, i) => out.push([`${key}[${i}] = ${show(x)}`, sourceOf(`${key}[${i}]`)]));
    else out.push([`${key} = ${show(v)}`, sourceOf(key)]);
    return;
  }
  if (typeof v === 'object' && v !== null && !('grant' in v && Object.keys(v).every((k) => k === 'grant' || k === 'timeoutMs'))) {
    for (const [k, x] of Object.entries(v)) {
      if (k === 'bare') continue;
      const name = k === 'timeoutMs' ? 'timeout' : k;
      if (k === 'timeoutMs') out.push([`${key}.${name} = "${formatDuration(x as number)}"`, sourceOf(`${key}.${k}`)]);
      else leaves(x, key ? `${key}.${/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k)}` : k, out, sourceOf);
    }
    return;
  }
  out.push([`${key} = ${show(v)}`, sourceOf(key)]);
}

/** Header values of remote tools and MCP servers may be secrets: never printed, only which variables they use. */
function withHeadersHidden(data: ConfigData): ConfigData {
  if (!data.remote_tools && !data.mcp_servers) return data;
  const hide = (v: string) => {
    const vars = [...v.matchAll(ENV_TEMPLATE)].map((m) => m[1]);
    return vars.length ? `(hidden; from ${vars.map((n) => `$${n}`).join(', ')})` : '(hidden)';
  };
  const hidden = <T extends { headers?: Record<string, string> }>(table: Record<string, T> | undefined) =>
    table && Object.fromEntries(Object.entries(table).map(([name, r]) => [name, r.headers ? { ...r, headers: Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, hide(v)])) } : r]));
  return { ...data, ...(data.remote_tools ? { remote_tools: hidden(data.remote_tools) } : {}), ...(data.mcp_servers ? { mcp_servers: hidden(data.mcp_servers) } : {}) };
}

/**
 * One line per effective value, with its source, aligned. `used`: the provider and model a session
 * would use when the environment (not a file) overrides the built-in defaults.
 */
export function effectiveLines(
  cfg: Pick<EffectiveConfig, 'data' | 'sources'>,
  used?: { provider: string; model: string },
  o: { padTo?: number; usedSource?: string; sourceShown?: (source: string) => string } = {},
): string[] {
  const rows: [string, string][] = [];
  const sourceOf = (k: string) => cfg.sources.get(k.replace(/\."([^"]+)"/g, '.$1')) ?? BUILTIN;
  leaves(withHeadersHidden(cfg.data), '', rows, sourceOf);
  for (const key of ['provider', 'model'] as const) {
    const at = rows.findIndex(([l]) => l.startsWith(`${key} = `));
    if (used && at !== -1 && sourceOf(key) === BUILTIN && cfg.data[key] !== used[key]) rows[at] = [`${key} = ${JSON.stringify(used[key])}`, o.usedSource ?? 'the environment (see # model below)'];
  }
  // the comments in one column, up to `padTo` (0: each right after its line, for narrow screens)
  const width = Math.min(o.padTo ?? 80, Math.max(...rows.map(([l]) => l.length)));
  const shown = o.sourceShown ?? ((x: string) => x);
  return rows.map(([l, s]) => `${l.padEnd(width)}  # ${shown(s)}`);
}
