// `cxl tool <name> [json-args]`: one tool call (or a batch of JSON lines on stdin) through the
// pipeline: tools_policies (the default chain's unless --policy overrides) → path gate and
// quarantine → ledger → run; the result is printed as JSON. Kept thin: build → call → print.
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { writeStdout } from '../core/platform/runtime.ts';
import { ConfigError, formatIssue, loadConfig, type EffectiveConfig } from '../config/load.ts';
import { untrustedNotice } from '../config/trust.ts';
import type { Toolset } from '../core/contract/toolset.ts';
import { ToolError, toToolError } from '../core/errors.ts';
import { Gate } from '../core/gate/gate.ts';
import { DEFAULT_CHAIN_LOCAL_FS, parseFsPolicy } from '../core/local_fs/policy.ts';
import { ReadLedger } from '../core/local_fs/ledger.ts';
import { withoutShellOnlyKeys } from '../core/shell/shell_policy.ts';
import { parseFlags, UsageError } from './args.ts';
import { BUILTIN_TOOLSETS } from '../agent/tools/builtin.ts';
import { fromConfig, McpRegistry } from '../agent/tools/mcp.ts';

const HELP = `Usage: cxl tool <name> [json-args] [flags]
       cxl tool --batch [flags] < calls.jsonl

Runs one tool call against the current directory and prints {"ok":true,"result":...} or
{"ok":false,"code":"...","error":"..."} as JSON (exit 1 on a tool error, 2 on bad usage).
Names: read_file or local_fs.read_file; <server>.<tool> of an MCP server and <service>.<operationId>
of remote tools configured in agents.toml. With --batch, each stdin line is {"tool":"...","args":{...}}
and each answer is one JSON line; the batch shares one session.

Flags:
  --root DIR            workspace root (default: the current directory)
  --policy key=value    a tools_policies.local_fs key, e.g. _max_read_bytes=0 (repeatable), or a
                        local_shell key: _allowed_commands=a,b _denied_commands=c (_allowed_dir sets both)
  --session ID          keep the read ledger of session ID between runs
  --envelope NAME       the session envelope (default: default_envelope of agents.toml, else
                        \`default\`); the answer carries its decision. Nobody can answer an ask
                        here, so an approve is refused (approval_required) unless --yes
  --yes                 approve what the envelope would ask about (writes, .env, *.pem, *.key,
                        commands off the prefix list); a deny still denies
  --batch               read calls as JSON lines from stdin
  --trust-project       apply the root's own .contenox/agents.toml for this run (untrusted, your
                        own configuration decides and a notice on stderr says so)
  -h, --help            this help`;

export interface ToolRunOptions {
  root: string;
  policy: Record<string, string>;
  sessionId?: string;
  yes: boolean;
}

/** Where a named session's ledger lives (CXL_STATE_DIR overrides the XDG state dir). */
export function sessionLedgerFile(id: string): string {
  const base = process.env.CXL_STATE_DIR ?? path.join(process.env.XDG_STATE_HOME ?? path.join(os.homedir(), '.local', 'state'), 'cxl');
  return path.join(base, 'sessions', id, 'ledger.json');
}

/**
 * The built-in toolsets (agent/tools/builtin.ts), each opened when a call first names it or one of
 * its tools: opening imports its implementation, so a cold `cxl tool stat_file` loads local_fs
 * alone. Each fails alone (its calls then report why).
 */
class LazyBuiltins {
  readonly #site;
  readonly #opening = new Map<string, Promise<Toolset | ToolError>>();
  constructor(private readonly o: ToolRunOptions, ledger: ReadLedger, private readonly gate: Gate, private readonly toolsets: Map<string, Toolset | ToolError>) {
    this.#site = { root: o.root, ledger, warn: (w: string) => void process.stderr.write(`cxl tool: warning: ${w}\n`) };
  }

  has(name: string): boolean {
    return BUILTIN_TOOLSETS.some((b) => b.name === name);
  }

  /** Opens the built-in toolset `name` (once) into the map and the gate. */
  open(name: string): Promise<Toolset | ToolError> {
    let p = this.#opening.get(name);
    if (!p) {
      const builtin = BUILTIN_TOOLSETS.find((b) => b.name === name)!;
      p = builtin.open(this.#site, builtin.fromFlags(this.o.policy)).then((opened) => opened.toolset, toToolError);
      this.#opening.set(name, p);
    }
    return p.then((ts) => {
      if (!this.toolsets.has(name)) {
        this.toolsets.set(name, ts);
        if (!(ts instanceof ToolError)) this.gate.add(ts);
      }
      return ts;
    });
  }

  /**
   * Opens what a bare tool name needs: the toolset whose named tools hold it and those that name
   * none (they are asked their list); when none names it, every toolset, so the lookup sees all
   * lists and a toolset that failed to open answers with its error, as before.
   */
  async forTool(name: string): Promise<void> {
    const named = BUILTIN_TOOLSETS.find((b) => b.tools?.includes(name));
    await Promise.all(BUILTIN_TOOLSETS.filter((b) => !named || b === named || !b.tools).map((b) => this.open(b.name)));
  }

  async all(): Promise<void> {
    await Promise.all(BUILTIN_TOOLSETS.map((b) => this.open(b.name)));
  }
}

async function callTool(gate: Gate, toolsets: Map<string, Toolset | ToolError>, name: unknown, args: unknown): Promise<{ result: unknown; envelope: unknown }> {
  if (typeof name !== 'string' || name === '') throw new ToolError('bad_args', 'Each call needs a "tool" name, e.g. "read_file".');
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    throw new ToolError('bad_args', `${name}: "args" must be a JSON object.`);
  }
  const dot = name.indexOf('.');
  let set: Toolset | ToolError | undefined;
  let tool = name;
  if (dot > 0 && toolsets.has(name.slice(0, dot))) {
    set = toolsets.get(name.slice(0, dot));
    tool = name.slice(dot + 1);
  } else {
    for (const ts of toolsets.values()) if (!(ts instanceof ToolError) && ts.list().some((s) => s.name === name)) set = ts;
    if (!set) for (const ts of toolsets.values()) if (ts instanceof ToolError) set = ts;
  }
  if (!set) throw new ToolError('unknown_tool', `No tool \`${name}\`. Tools: ${[...toolsets.values()].flatMap((t) => (t instanceof ToolError ? [] : t.list().map((s) => s.name))).join(', ')}.`);
  if (set instanceof ToolError) throw set;
  // through the gate: tools_policies → envelope → (approve: --yes or refused) → run
  const r = await gate.call(`${set.name}.${tool}`, (args ?? {}) as Record<string, unknown>);
  const d = r.decision;
  return { result: r.result, envelope: { action: d.action, rule: d.rule, envelope: d.envelope, sentence: d.sentence, ...(r.approvedBy ? { approved_by: r.approvedBy } : {}) } };
}

/** One remote service for `cxl tool`; the OpenAPI parser is imported only here, when one is named. */
async function loadRemote(config: EffectiveConfig, name: string, o: ToolRunOptions): Promise<Toolset | ToolError> {
  const { RemoteToolset, remoteConfigs } = await import('../agent/tools/remote/toolset.ts');
  const cfg = remoteConfigs(config.data.remote_tools, config.sources).find((c) => c.name === name)!;
  const { policy } = parseFsPolicy({ ...DEFAULT_CHAIN_LOCAL_FS, ...withoutShellOnlyKeys(o.policy) });
  try {
    const ts = await RemoteToolset.load(cfg, { env: process.env, maxOutputBytes: policy.maxOutputBytes });
    for (const n of ts.notes()) process.stderr.write(`cxl tool: warning: ${n}\n`);
    return ts;
  } catch (err) {
    return toToolError(err);
  }
}

const answer = (r: { ok: true; result: unknown; envelope: unknown } | ToolError) =>
  JSON.stringify(r instanceof ToolError ? { ok: false, code: r.code, error: r.message, ...(r.details ? { details: r.details } : {}) } : r);

export async function main(argv: string[]): Promise<number> {
  const flags = parseFlags('cxl tool', argv, {
    root: { type: 'string' },
    policy: { type: 'string', multiple: true },
    session: { type: 'string' },
    yes: { type: 'boolean' },
    batch: { type: 'boolean' },
    envelope: { type: 'string' },
    'trust-project': { type: 'boolean' },
  }, HELP);
  if (!flags) return 0;
  const { values, positionals } = flags;
  const policy: Record<string, string> = {};
  for (const kv of (values.policy as string[] | undefined) ?? []) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new UsageError(`cxl tool: --policy takes key=value (e.g. --policy _max_read_bytes=0), got \`${kv}\`.`);
    policy[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  const sessionId = values.session as string | undefined;
  if (sessionId !== undefined && (!/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/.test(sessionId))) {
    throw new UsageError('cxl tool: --session takes letters, digits, `.`, `_` and `-` (up to 128), not starting with `.`.');
  }
  const batch = values.batch === true;
  if (batch && positionals.length > 0) throw new UsageError('cxl tool: --batch reads calls from stdin; give no tool name.');
  if (!batch && (positionals.length < 1 || positionals.length > 2)) throw new UsageError(`cxl tool: give a tool name and optional JSON arguments.\n\n${HELP}`);

  const o: ToolRunOptions = { root: (values.root as string | undefined) ?? process.cwd(), policy, sessionId, yes: values.yes === true };
  let gate: Gate;
  let mcp = new McpRegistry([]);
  let config: EffectiveConfig;
  try {
    config = loadConfig({ cwd: o.root, trustProject: values['trust-project'] === true || undefined });
    const held = untrustedNotice(config.project);
    if (held) process.stderr.write(`cxl tool: ${held}\n`);
    mcp = new McpRegistry(fromConfig(config.data.mcp_servers, o.root));
    gate = new Gate({ envelope: config.envelope(values.envelope as string | undefined), autoApprove: o.yes, root: o.root });
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(`cxl tool: the configuration is broken:\n${err.issues.map(formatIssue).join('\n')}`);
    if (err instanceof ToolError) throw new UsageError(`cxl tool: ${err.message}`);
    throw err;
  }
  const ledgerFile = sessionId ? sessionLedgerFile(sessionId) : undefined;
  const ledger = ledgerFile ? ReadLedger.load(ledgerFile, sessionId!) : new ReadLedger(`cxl-tool-${process.pid}-${Date.now()}`);
  const toolsets = new Map<string, Toolset | ToolError>();
  const builtins = new LazyBuiltins(o, ledger, gate, toolsets);
  const run = async (name: unknown, args: unknown) => {
    try {
      // `<server>.<tool>` of a configured MCP server: start it on first use
      const server = typeof name === 'string' && name.includes('.') ? name.slice(0, name.indexOf('.')) : '';
      // a built-in toolset is opened by the first call that names it or one of its tools
      if (server && builtins.has(server)) await builtins.open(server);
      else if (!server && typeof name === 'string' && name !== '') await builtins.forTool(name);
      else if (server && !mcp.has(server) && !Object.hasOwn(config.data.remote_tools ?? {}, server)) await builtins.all();
      if (server && !toolsets.has(server) && mcp.has(server)) {
        const ts = await mcp.get(server);
        toolsets.set(server, ts);
        if (!(ts instanceof ToolError)) gate.add(ts);
      }
      // `<service>.<operationId>` of a configured remote service: its document is read on first use
      if (server && !toolsets.has(server) && Object.hasOwn(config.data.remote_tools ?? {}, server)) {
        const ts = await loadRemote(config, server, o);
        toolsets.set(server, ts);
        if (!(ts instanceof ToolError)) gate.add(ts);
      }
      return { ok: true as const, ...(await callTool(gate, toolsets, name, args)) };
    } catch (err) {
      return toToolError(err);
    }
  };

  let code = 0;
  if (!batch) {
    let args: unknown = {};
    if (positionals[1] !== undefined) {
      try {
        args = JSON.parse(positionals[1]);
      } catch (err) {
        throw new UsageError(`cxl tool: the arguments are not valid JSON (${(err as Error).message}). Example: cxl tool read_file '{"path":"README.md"}'`);
      }
    }
    const r = await run(positionals[0], args);
    writeStdout(`${answer(r)}\n`);
    code = r instanceof ToolError ? 1 : 0;
  } else {
    const { createInterface } = await import('node:readline'); // only --batch reads lines
    const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
    for await (const line of rl) {
      if (line.trim() === '') continue;
      let call: { tool?: unknown; args?: unknown };
      try {
        call = JSON.parse(line);
        if (typeof call !== 'object' || call === null || Array.isArray(call)) throw new Error('not an object');
      } catch (err) {
        writeStdout(`${answer(new ToolError('bad_args', `This line is not a JSON object {"tool": "...", "args": {...}} (${(err as Error).message}).`))}\n`);
        continue;
      }
      writeStdout(`${answer(await run(call.tool, call.args))}\n`);
    }
  }
  if (ledgerFile) ledger.save(ledgerFile);
  await mcp.close();
  return code;
}
