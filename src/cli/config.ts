// `cxl config`: the effective configuration, each value with where it came from, and the table
// of protected paths every envelope carries; `cxl config --check FILE`: validate one agents.toml
// (over the built-in defaults).
import path from 'node:path';
import process from 'node:process';
import { writeStdout } from '../core/platform/runtime.ts';
import { FLOOR_RULES, QUARANTINE_REASON } from '../core/envelope/shipped.ts';
import { FOUND_ON_DISK, PROTECTED_PATHS, RUNTIME_DIR_ROW, SERVICE_SOCKETS, shownPattern } from '../core/protect/table.ts';
import { LocalTerminalHost } from '../core/shell/local_terminal.ts';
import { launchChoices, noteWorkspaces } from '../core/shell/sandbox/launch_programs.ts';
import { describeSandbox, envelopeSandbox } from '../core/shell/sandbox/settings.ts';
import { loadChain, taskPolicies } from '../config/chain.ts';
import { BUILTIN, ConfigError, formatIssue, loadConfig, mergeLayers, readConfigFile, type EffectiveConfig } from '../config/load.ts';
import { effectiveLines } from '../config/describe.ts';
import { prefixAllowlistWarnings } from '../config/prefix_warnings.ts';
import { untrustedNotice } from '../config/trust.ts';
import { parseFlags, UsageError } from './args.ts';
import { describeModelRequests } from '../agent/loop/model_requests.ts';
import { describeToolsetGating } from './toolset_gating.ts';

const HELP = `Usage: cxl config [--agent NAME] [--var NAME=VALUE]... [--probe] [--trust-project]
       cxl config --check FILE...

Prints the effective configuration (built-in defaults, ~/.contenox/agents.toml,
.contenox/agents.toml of this project, then the [agents.NAME] section), one value a line
with where it came from, the toolsets of the chain's tasks and how the default envelope gates
each tool, their tools_policies, the model's context window
(asked of its server) and request timeouts, and the protected paths every envelope carries
(tier, pattern, reason).

It starts nothing and sends nothing: MCP servers and remote tools are listed from their
configuration. A folder's own configuration applies only once trusted (\`cxl trust\`).

  --probe        also start each MCP server and read each remote tool's document, to list
                 their tools (refused in a folder whose own configuration is not trusted)
  --trust-project  apply this folder's own configuration for this run without recording trust
  --check FILE   validate FILE as an agents.toml; exits 1 with the errors (file:line:col);
                 warns about a prefix_allowlist entry the command policy refuses
  --agent NAME   apply the [agents.NAME] section
  --var N=V      fill {{var:N}} in the chain (repeatable)
  -h, --help     show this help`;

/** Lines for each remote service: its document read now, its tools, or why it has none. */
async function describeRemote(cfg: EffectiveConfig): Promise<string[]> {
  const { RemoteToolset, remoteConfigs } = await import('../agent/tools/remote/toolset.ts');
  // side by side: a service that hangs costs its own wait, not everyone's
  const configs = remoteConfigs(cfg.data.remote_tools, cfg.sources);
  const loaded = await Promise.allSettled(configs.map((c) => RemoteToolset.load(c, { env: process.env, maxOutputBytes: Infinity })));
  return loaded.flatMap((r, i) => (r.status === 'fulfilled' ? r.value.describe() : [`# remote tools ${configs[i].name} (${configs[i].url}): ${r.reason instanceof Error ? r.reason.message : String(r.reason)}`]));
}

/** MCP servers and remote tools as configured, without starting or fetching anything. */
function listServers(cfg: EffectiveConfig): string[] {
  const out: string[] = [];
  for (const [name, s] of Object.entries(cfg.data.mcp_servers ?? {})) {
    out.push(`# mcp server ${name}: ${s.url ?? [s.command, ...(s.args ?? [])].join(' ')} (not started; --probe lists its tools)`);
  }
  for (const [name, r] of Object.entries(cfg.data.remote_tools ?? {})) out.push(`# remote tools ${name}: ${r.url} (not fetched; --probe lists its tools)`);
  return out;
}

/** The project's trust as a header line. */
function projectLine(cfg: EffectiveConfig): string {
  const p = cfg.project;
  const files = Object.keys(p.material?.files ?? {}).join(', ');
  switch (p.state) {
    case 'none':
      return '# project configuration: none';
    case 'own':
      return '# project configuration: this folder is your home: its .contenox is your own';
    case 'trusted':
      return `# project configuration: ${files}, trusted (applied)`;
    case 'trusted-for-run':
      return `# project configuration: ${files}, trusted for this run (applied; \`cxl trust\` records it)`;
    default:
      return `# project configuration: ${files}, ${p.state === 'changed' ? 'changed since trusted' : 'not trusted'}: NOT applied (\`cxl trust --show\` shows what it would change)`;
  }
}

/** The model a session would use, when the environment (not a file) chose it: the head says so too. */
export interface UsedModel {
  provider: string;
  model: string;
}

export function describeConfig(cfg: EffectiveConfig, vars: Record<string, string> = {}, used?: UsedModel): string {
  const lines: string[] = [];
  lines.push(`# files, weakest first: ${[BUILTIN, ...cfg.files].join(', ')}`);
  lines.push(projectLine(cfg));
  lines.push(`# agent section: ${cfg.agent ?? '(none)'}`);
  lines.push(`# default envelope: ${cfg.shownName(cfg.defaultEnvelope)}`);
  lines.push(...effectiveLines(cfg, used));
  const quarantine = FLOOR_RULES.filter((r) => r.reason?.startsWith(QUARANTINE_REASON)).length;
  // which OS sandbox commands run in under the default envelope, and why (probed here, now)
  try {
    const env = cfg.envelope(cfg.defaultEnvelope);
    const { mode, network } = envelopeSandbox(env.resolved.shell);
    const state = mode === 'off' ? { state: 'off' as const } : new LocalTerminalHost({ probe: { roots: [process.cwd()] } }).sandboxState(network);
    lines.push(`# sandbox for commands (envelope ${env.name}): ${describeSandbox(mode, network, state)}`);
    lines.push(...launchLines());
  } catch (err) {
    lines.push(`# sandbox for commands: the default envelope cannot be built (${(err as Error).message})`);
  }
  const asks = FLOOR_RULES.filter((r) => r.ask).length;
  lines.push(`# every envelope carries ${FLOOR_RULES.length} built-in floor rules: ${quarantine} credential quarantine globs (every tool, denied), ${FLOOR_RULES.length - quarantine - asks} write-wall globs (writes and shell, denied) and ${asks} always-ask globs (writes and shell, asked every time)`);
  const { chain, label } = loadChain(cfg.data, cfg.sources, { vars, projectFile: cfg.project.file });
  lines.push('');
  lines.push(`# chain: ${label}`);
  for (const task of chain.tasks) {
    // the model a session uses is the one under `# model:` below (flags, config, environment)
    lines.push(`# task ${task.id}: tools ${task.execute_config.tools.join(', ')}`);
    lines.push(...toolsetLines(cfg, task.execute_config.tools));
    const { policies, from } = taskPolicies(task, cfg.data, cfg.sources, label);
    const prow: [string, string][] = [];
    for (const [ts, vals] of Object.entries(policies)) for (const [k, v] of Object.entries(vals)) prow.push([`tools_policies.${ts}.${k} = ${JSON.stringify(v)}`, from.get(`${ts}.${k}`) ?? label]);
    const w = Math.min(80, Math.max(0, ...prow.map(([l]) => l.length)));
    for (const [l, s] of prow) lines.push(`${l.padEnd(w)}  # ${s}`);
  }
  lines.push('', ...describeProtectedPaths());
  return `${lines.join('\n')}\n`;
}

/**
 * The programs cxl starts for the sandbox and its toolsets, as chosen here: from PATH entries
 * outside the workspace (this directory) and every directory a command may write.
 */
function launchLines(): string[] {
  noteWorkspaces([process.cwd()]);
  const choices = launchChoices(process.env.PATH);
  const lines = [`# programs cxl starts (from PATH outside the workspace and anything else a command may write): ${choices.map((c) => `${c.name} ${c.program ?? '(none)'}`).join(', ')}`];
  for (const c of choices) for (const s of c.skipped) lines.push(`#   ${c.name}: ${path.join(s.dir, c.name)} passed over (${s.why})`);
  return lines;
}

/** The built-in toolsets a task offers and their gating under the default envelope. */
function toolsetLines(cfg: EffectiveConfig, tools: readonly string[]): string[] {
  try {
    const env = cfg.envelope(cfg.defaultEnvelope);
    return [`#  its toolsets, as envelope ${env.name} gates their tools (before paths: a quarantined, approve_paths or walled path still denies or asks):`, ...describeToolsetGating(tools, env)];
  } catch (err) {
    return [`#  its toolsets: the default envelope cannot be built (${(err as Error).message})`];
  }
}

/** The table of protected paths as comment lines: tier, pattern, reason and where the path comes from. */
export function describeProtectedPaths(): string[] {
  const withSource = (reason: string, source?: string) => (source ? `${reason} [${source}]` : reason);
  const rows = [...PROTECTED_PATHS.map((e) => [e.tier, shownPattern(e), withSource(e.reason, e.source)]), ...FOUND_ON_DISK.map((f) => [f.tier, f.pattern, f.reason])];
  const hidden = [[RUNTIME_DIR_ROW.pattern, withSource(RUNTIME_DIR_ROW.reason, RUNTIME_DIR_ROW.source)], ...SERVICE_SOCKETS.map((s) => [s.path, withSource(s.reason, s.source)])];
  const tw = Math.max(...rows.map((r) => r[0].length));
  const pw = Math.min(60, Math.max(...rows.map((r) => r[1].length)));
  return [
    '# protected paths, in every envelope (quarantine: never read, written or listed; read_approve: read after a yes;',
    '# write_wall: never written; always_ask: written after a yes every time, never allowed for the session) [source]',
    ...rows.map(([t, p, r]) => `# ${t.padEnd(tw)}  ${p.padEnd(pw)}  ${r}`),
    '# hidden from every sandboxed command, where services listen (no command can open a unix socket either)',
    ...hidden.map(([p, r]) => `# ${'sandbox'.padEnd(tw)}  ${p.padEnd(pw)}  ${r}`),
  ];
}

export async function main(argv: string[]): Promise<number> {
  const flags = parseFlags('cxl config', argv, {
    check: { type: 'string', multiple: true },
    agent: { type: 'string' },
    var: { type: 'string', multiple: true },
    probe: { type: 'boolean' },
    'trust-project': { type: 'boolean' },
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
        const cfg = mergeLayers([[file, layer]], { agent: values.agent as string | undefined });
        writeStdout(`${file}: ok\n`);
        for (const w of prefixAllowlistWarnings(cfg, process.cwd())) process.stderr.write(`${file}: warning: ${w}\n`);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        bad++;
        for (const i of err.issues) process.stderr.write(`${formatIssue(i)}\n`);
      }
    }
    return bad ? 1 : 0;
  }
  try {
    const cfg = loadConfig({ agent: values.agent as string | undefined, trustProject: values['trust-project'] === true ? true : undefined });
    const held = untrustedNotice(cfg.project);
    if (values.probe && held) {
      process.stderr.write(`cxl config: --probe would start this folder's servers, and ${held.replace(/^This folder's/, "its").replace(/\.$/, '')}.\n`);
      return 1;
    }
    // the model's window (and, with only OPENAI_BASE_URL, the model) is asked of its server
    const model = await describeModelRequests(cfg, process.env);
    writeStdout(describeConfig(cfg, vars, model.provider ? { provider: model.provider.name, model: model.provider.model } : undefined));
    writeStdout(`\n${model.lines.join('\n')}\n`);
    const mcp = Object.keys(cfg.data.mcp_servers ?? {}).length > 0;
    const remote = Object.keys(cfg.data.remote_tools ?? {}).length > 0;
    if (!values.probe) {
      if (mcp || remote) writeStdout(`\n${listServers(cfg).join('\n')}\n`);
      return 0;
    }
    // --probe: each MCP server started briefly and each remote document read, to list their tools
    if (mcp) {
      const { fromConfig, McpRegistry } = await import('../agent/tools/mcp.ts');
      const reg = new McpRegistry(fromConfig(cfg.data.mcp_servers, process.cwd()));
      writeStdout(`\n${(await reg.describe()).join('\n')}\n`);
      await reg.close();
    }
    if (remote) writeStdout(`\n${(await describeRemote(cfg)).join('\n')}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const i of err.issues) process.stderr.write(`${formatIssue(i)}\n`);
    return 1;
  }
}
