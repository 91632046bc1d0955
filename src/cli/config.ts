// `cxl config`: the effective configuration, each value with where it came from, and the table
// of protected paths every envelope carries; `cxl config --check FILE`: validate one agents.toml
// (over the built-in defaults).
import process from 'node:process';
import { FLOOR_RULES, QUARANTINE_REASON } from '../core/envelope/shipped.ts';
import { FOUND_ON_DISK, PROTECTED_PATHS, shownPattern } from '../core/protect/table.ts';
import { LocalTerminalHost } from '../core/shell/local_terminal.ts';
import { describeSandbox, envelopeSandbox } from '../core/shell/sandbox/settings.ts';
import { formatDuration } from '../config/duration.ts';
import { loadChain, taskPolicies } from '../config/chain.ts';
import { BUILTIN, ConfigError, formatIssue, loadConfig, mergeLayers, readConfigFile, type EffectiveConfig } from '../config/load.ts';
import { ENV_TEMPLATE } from '../config/remote_tools_schema.ts';
import type { ConfigData } from '../config/schema.ts';
import { parseFlags, UsageError } from './args.ts';
import { fromConfig, McpRegistry } from '../agent/tools/mcp.ts';
import { describeModelRequests } from '../agent/loop/model_requests.ts';

const HELP = `Usage: cxl config [--agent NAME] [--var NAME=VALUE]...
       cxl config --check FILE...

Prints the effective configuration (built-in defaults, ~/.contenox/agents.toml,
.contenox/agents.toml of this project, then the [agents.NAME] section), one value a line
with where it came from, the tools_policies of the chain's tasks, the model's context window
(asked of its server) and request timeouts, and the protected paths every envelope carries
(tier, pattern, reason).

  --check FILE   validate FILE as an agents.toml; exits 1 with the errors (file:line:col)
  --agent NAME   apply the [agents.NAME] section
  --var N=V      fill {{var:N}} in the chain (repeatable)
  -h, --help     show this help`;

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

/** Header values of remote tools may be secrets: never printed, only which variables they use. */
function withHeadersHidden(data: ConfigData): ConfigData {
  if (!data.remote_tools) return data;
  const hide = (v: string) => {
    const vars = [...v.matchAll(ENV_TEMPLATE)].map((m) => m[1]);
    return vars.length ? `(hidden; from ${vars.map((n) => `$${n}`).join(', ')})` : '(hidden)';
  };
  const remote = Object.fromEntries(
    Object.entries(data.remote_tools).map(([name, r]) => [name, r.headers ? { ...r, headers: Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, hide(v)])) } : r]),
  );
  return { ...data, remote_tools: remote };
}

/** Lines for each remote service: its document read now, its tools, or why it has none. */
async function describeRemote(cfg: EffectiveConfig): Promise<string[]> {
  const { RemoteToolset, remoteConfigs } = await import('../agent/tools/remote/toolset.ts');
  // side by side: a service that hangs costs its own wait, not everyone's
  const configs = remoteConfigs(cfg.data.remote_tools, cfg.sources);
  const loaded = await Promise.allSettled(configs.map((c) => RemoteToolset.load(c, { env: process.env, maxOutputBytes: Infinity })));
  return loaded.flatMap((r, i) => (r.status === 'fulfilled' ? r.value.describe() : [`# remote tools ${configs[i].name} (${configs[i].url}): ${r.reason instanceof Error ? r.reason.message : String(r.reason)}`]));
}

/** The model a session would use, when the environment (not a file) chose it: the head says so too. */
export interface UsedModel {
  provider: string;
  model: string;
}

export function describeConfig(cfg: EffectiveConfig, vars: Record<string, string> = {}, used?: UsedModel): string {
  const lines: string[] = [];
  lines.push(`# files, weakest first: ${[BUILTIN, ...cfg.files].join(', ')}`);
  lines.push(`# agent section: ${cfg.agent ?? '(none)'}`);
  lines.push(`# default envelope: ${cfg.defaultEnvelope}`);
  const rows: [string, string][] = [];
  const sourceOf = (k: string) => cfg.sources.get(k.replace(/\."([^"]+)"/g, '.$1')) ?? BUILTIN;
  leaves(withHeadersHidden(cfg.data), '', rows, sourceOf);
  // the built-in provider and model are defaults the environment overrides: show what is used
  for (const key of ['provider', 'model'] as const) {
    const at = rows.findIndex(([l]) => l.startsWith(`${key} = `));
    if (used && at !== -1 && sourceOf(key) === BUILTIN && cfg.data[key] !== used[key]) rows[at] = [`${key} = ${JSON.stringify(used[key])}`, 'the environment (see # model below)'];
  }
  const width = Math.min(80, Math.max(...rows.map(([l]) => l.length)));
  for (const [l, s] of rows) lines.push(`${l.padEnd(width)}  # ${s}`);
  const quarantine = FLOOR_RULES.filter((r) => r.reason?.startsWith(QUARANTINE_REASON)).length;
  // which OS sandbox commands run in under the default envelope, and why (probed here, now)
  try {
    const env = cfg.envelope(cfg.defaultEnvelope);
    const { mode, network } = envelopeSandbox(env.resolved.shell);
    const state = mode === 'off' ? { state: 'off' as const } : new LocalTerminalHost().sandboxState(network);
    lines.push(`# sandbox for commands (envelope ${env.name}): ${describeSandbox(mode, network, state)}`);
  } catch (err) {
    lines.push(`# sandbox for commands: the default envelope cannot be built (${(err as Error).message})`);
  }
  const asks = FLOOR_RULES.filter((r) => r.ask).length;
  lines.push(`# every envelope carries ${FLOOR_RULES.length} built-in floor rules: ${quarantine} credential quarantine globs (every tool, denied), ${FLOOR_RULES.length - quarantine - asks} write-wall globs (writes and shell, denied) and ${asks} always-ask globs (writes and shell, asked every time)`);
  const { chain, label } = loadChain(cfg.data, cfg.sources, { vars });
  lines.push('');
  lines.push(`# chain: ${label}`);
  for (const task of chain.tasks) {
    // the model a session uses is the one under `# model:` below (flags, config, environment)
    lines.push(`# task ${task.id}: tools ${task.execute_config.tools.join(', ')}`);
    const { policies, from } = taskPolicies(task, cfg.data, cfg.sources, label);
    const prow: [string, string][] = [];
    for (const [ts, vals] of Object.entries(policies)) for (const [k, v] of Object.entries(vals)) prow.push([`tools_policies.${ts}.${k} = ${JSON.stringify(v)}`, from.get(`${ts}.${k}`) ?? label]);
    const w = Math.min(80, Math.max(0, ...prow.map(([l]) => l.length)));
    for (const [l, s] of prow) lines.push(`${l.padEnd(w)}  # ${s}`);
  }
  lines.push('', ...describeProtectedPaths());
  return `${lines.join('\n')}\n`;
}

/** The table of protected paths as comment lines: tier, pattern, reason. */
export function describeProtectedPaths(): string[] {
  const rows = [...PROTECTED_PATHS.map((e) => [e.tier, shownPattern(e), e.reason]), ...FOUND_ON_DISK.map((f) => [f.tier, f.pattern, f.reason])];
  const tw = Math.max(...rows.map((r) => r[0].length));
  const pw = Math.min(60, Math.max(...rows.map((r) => r[1].length)));
  return [
    '# protected paths, in every envelope (quarantine: never read, written or listed; read_approve: read after a yes;',
    '# write_wall: never written; always_ask: written after a yes every time, never allowed for the session)',
    ...rows.map(([t, p, r]) => `# ${t.padEnd(tw)}  ${p.padEnd(pw)}  ${r}`),
  ];
}

export async function main(argv: string[]): Promise<number> {
  const flags = parseFlags('cxl config', argv, {
    check: { type: 'string', multiple: true },
    agent: { type: 'string' },
    var: { type: 'string', multiple: true },
  }, HELP);
  if (!flags) return 0;
  const { values } = flags;
  const vars: Record<string, string> = {};
  for (const v of (values.var as string[] | undefined) ?? []) {
    const eq = v.indexOf('=');
    if (eq <= 0) throw new UsageError(`cxl config: --var takes NAME=VALUE, got \`${v}\`.`);
    vars[v.slice(0, eq)] = v.slice(eq + 1);
  }
  const checks = values.check as string[] | undefined;
  if (checks) {
    let bad = 0;
    for (const file of checks) {
      try {
        const layer = readConfigFile(file);
        mergeLayers([[file, layer]], { agent: values.agent as string | undefined });
        process.stdout.write(`${file}: ok\n`);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        bad++;
        for (const i of err.issues) process.stderr.write(`${formatIssue(i)}\n`);
      }
    }
    return bad ? 1 : 0;
  }
  try {
    const cfg = loadConfig({ agent: values.agent as string | undefined });
    // the model's window (and, with only OPENAI_BASE_URL, the model) is asked of its server
    const model = await describeModelRequests(cfg, process.env);
    process.stdout.write(describeConfig(cfg, vars, model.provider ? { provider: model.provider.name, model: model.provider.model } : undefined));
    process.stdout.write(`\n${model.lines.join('\n')}\n`);
    // attached MCP servers: started briefly to list their tools
    if (Object.keys(cfg.data.mcp_servers ?? {}).length) {
      const mcp = new McpRegistry(fromConfig(cfg.data.mcp_servers, process.cwd()));
      process.stdout.write(`\n${(await mcp.describe()).join('\n')}\n`);
      await mcp.close();
    }
    // remote tools: each document fetched (or read) now, to list the tools it gives
    if (Object.keys(cfg.data.remote_tools ?? {}).length) process.stdout.write(`\n${(await describeRemote(cfg)).join('\n')}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const i of err.issues) process.stderr.write(`${formatIssue(i)}\n`);
    return 1;
  }
}
