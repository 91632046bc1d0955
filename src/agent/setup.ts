// Everything `cxl acp` and `cxl run` build from flags, configuration and environment: the model
// provider, the envelopes (ACP modes), the chain's tools and tools_policies, the session store,
// and the factories for a session's tools (client-backed for ACP, workspace-backed for runs).
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { BUILTIN, ConfigError, formatIssue, loadConfig, type EffectiveConfig } from '../config/load.ts';
import { loadChain, taskPolicies, type ChainTask } from '../config/chain.ts';
import { ClientFileIO, WorkspaceFileIO } from '../core/file_io.ts';
import { parseFsPolicy } from '../core/fs_policy.ts';
import { ReadLedger } from '../core/ledger.ts';
import { LocalFsToolset } from '../core/local_fs/toolset.ts';
import { ClientTerminalHost, SANDBOX_META, type AcpTerminalClient } from '../core/shell/client_terminal.ts';
import type { SandboxState } from '../core/shell/sandbox/settings.ts';
import { LocalShell } from '../core/shell/local_shell.ts';
import type { Terminal, TerminalHost, TerminalRequest } from '../core/shell/terminal.ts';
import { ToolError } from '../core/errors.ts';
import type { ToolSpec, Toolset } from '../core/tool.ts';
import type { SessionMode, ToolContext } from './acp_agent.ts';
import { dataDir } from './data_dir.ts';
import { fromAcp, McpToolset, type McpServerConfig } from './mcp.ts';
import { ProviderConfigError, selectProvider } from './providers/select.ts';
import type { Provider } from './providers/types.ts';
import { SessionStore } from './session_store.ts';
import { createSessionTools, makeGate, type HookRef } from './session_tools.ts';
import { SessionAllows } from '../core/session_allows.ts';
import { systemPrompt } from './system_prompt.ts';
import type { SessionTools } from './tools.ts';

export interface SetupOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  provider?: string;
  model?: string;
  envelope?: string;
  maxTurns?: string;
  /** for messages: `cxl acp` or `cxl run` */
  command: string;
}

export interface AgentSetup {
  cwd: string;
  store: SessionStore;
  modes: SessionMode[];
  defaultMode: string;
  modesFor(cwd: string): { modes: SessionMode[]; current: string };
  provider: Provider | null;
  providerProblem?: string;
  maxTurns: number;
  systemPrompt(cwd: string): string;
  buildAcpTools(ctx: ToolContext): Promise<SessionTools>;
  /** `notice`: what goes wrong while the tools are built or run (a server that fails or dies) */
  buildLocalTools(mode: string, notice: (text: string) => void): Promise<SessionTools>;
  closeAll(): Promise<void>;
}

export const DEFAULT_MAX_TURNS = 25;

/** Timeouts for attached MCP servers; CXL_MCP_TIMEOUT_MS bounds one call (tests use it to make hangs short). */
function mcpTimeouts(env: Record<string, string | undefined>): { startTimeoutMs?: number; callTimeoutMs?: number } {
  const n = Number(env.CXL_MCP_TIMEOUT_MS);
  return Number.isFinite(n) && n > 0 ? { startTimeoutMs: Math.max(n, 5000), callTimeoutMs: n } : {};
}

function configured(cfg: EffectiveConfig, key: 'provider' | 'model'): string | undefined {
  // the built-in layer's provider/model are defaults, not a choice: the environment may override them
  return cfg.sources.get(key) === BUILTIN ? undefined : cfg.data[key];
}

function loadFor(cwd: string, env: Record<string, string | undefined>): EffectiveConfig {
  try {
    return loadConfig({ cwd, home: env.HOME });
  } catch (err) {
    if (err instanceof ConfigError) throw new ToolError('bad_args', `configuration error:\n${err.issues.map(formatIssue).join('\n')}`);
    throw err;
  }
}

/** The chain's first task: which toolsets, with which tools_policies, and its system prompt. */
function taskFor(cfg: EffectiveConfig, vars: Record<string, string>): { task: ChainTask; policies: Record<string, Record<string, string>> } {
  const { chain, label } = loadChain(cfg.data, cfg.sources, { vars });
  const task = chain.tasks[0];
  const { policies } = taskPolicies(task, cfg.data, cfg.sources, label);
  return { task, policies };
}

export async function agentSetup(o: SetupOptions): Promise<AgentSetup> {
  const cfg = loadFor(o.cwd, o.env);
  // one load per project directory: sessions rooted elsewhere see their own .contenox/agents.toml
  const configs = new Map<string, EffectiveConfig>([[o.cwd, cfg]]);
  const configFor = (cwd: string): EffectiveConfig => {
    let c = configs.get(cwd);
    if (!c) {
      c = loadFor(cwd, o.env);
      configs.set(cwd, c);
    }
    return c;
  };
  const modesOf = (c: EffectiveConfig): SessionMode[] =>
    Object.entries(c.envelopes)
      .map(([id, spec]) => ({ id, name: id, ...(spec.description ? { description: spec.description } : {}) }))
      .sort((a, b) => a.id.localeCompare(b.id));
  const modes = modesOf(cfg);
  const defaultMode = o.envelope ?? cfg.defaultEnvelope;
  if (!modes.some((m) => m.id === defaultMode)) {
    throw new ToolError('bad_args', `no envelope named \`${defaultMode}\`; envelopes: ${modes.map((m) => m.id).join(', ')}.`);
  }
  let provider: Provider | null = null;
  let providerProblem: string | undefined;
  const providerName = o.provider ?? configured(cfg, 'provider');
  // a provider picked by flag does not inherit a model configured for another provider
  const cfgModel = o.provider && o.provider !== cfg.data.provider ? undefined : configured(cfg, 'model');
  try {
    provider = selectProvider({ provider: o.provider, model: o.model }, { provider: providerName, model: cfgModel }, o.env);
  } catch (err) {
    if (!(err instanceof ProviderConfigError)) throw err;
    providerProblem = err.message;
  }
  const maxTurns = o.maxTurns === undefined ? DEFAULT_MAX_TURNS : Number(o.maxTurns);
  if (!Number.isInteger(maxTurns) || maxTurns < 1) throw new ToolError('bad_args', `--max-turns must be a positive whole number; got ${o.maxTurns}.`);
  const vars: Record<string, string> = {};
  if (provider) {
    vars.provider = provider.name;
    vars.model = provider.model;
  }
  const store = new SessionStore(dataDir(o.env));
  const open = new Set<SessionTools>();
  const timeouts = mcpTimeouts(o.env);

  /** Builds a session's toolsets for `cwd`, with the content half and terminals given. */
  const build = async (b: {
    sessionId: string;
    cwd: string;
    mode: string;
    ledger?: unknown;
    allows?: unknown;
    io: 'workspace' | ClientFileIO;
    host: TerminalHost | 'local' | null;
    mcp: McpServerConfig[];
    notice: (text: string) => void;
    approvalsPossible: boolean;
    hooks: HookRef;
    missing?: (spec: ToolSpec) => ToolError | undefined;
  }): Promise<SessionTools> => {
    const scfg = configFor(b.cwd);
    const { task, policies } = taskFor(scfg, vars);
    const fsParsed = parseFsPolicy(policies.local_fs);
    for (const w of fsParsed.warnings) b.notice(w);
    const allows = SessionAllows.fromJSON(b.allows);
    const gate = makeGate({ config: scfg, mode: b.mode, allows, hooks: b.hooks, root: b.cwd, approvalsPossible: b.approvalsPossible });
    let ledger: ReadLedger;
    try {
      ledger = b.ledger ? ReadLedger.fromJSON(b.ledger) : new ReadLedger(b.sessionId);
    } catch {
      ledger = new ReadLedger(b.sessionId);
    }
    const toolsets: Toolset[] = [];
    const wants = new Set(task.execute_config.tools);
    let fsToolset: LocalFsToolset | undefined;
    if (wants.has('local_fs')) {
      fsToolset = new LocalFsToolset({
        root: b.cwd,
        policy: fsParsed.policy,
        ledger,
        sessionId: b.sessionId,
        io: b.io === 'workspace' ? undefined : b.io,
        // read-approve paths (.env, *.pem) are asked through the gate; nobody there = refuse
        approvals: 'ask',
        ask: (req) => gate.fsAsk(req),
      });
      toolsets.push(fsToolset);
    }
    if (wants.has('local_shell')) {
      // without a client terminal the tool is still offered (and refuses naming the capability)
      // under a command policy `cd` stays inside the session root unless the policy names another
      // _allowed_dir (as `cxl tool` does); no policy at all means the platform shell, unconfined
      const sp = policies.local_shell;
      const shellPolicy = sp && Object.keys(sp).length && sp._allowed_dir === undefined ? { ...sp, _allowed_dir: '.' } : sp;
      toolsets.push(new LocalShell({ root: fsToolset?.root ?? b.cwd, policy: shellPolicy, host: b.host === 'local' ? undefined : (b.host ?? new RefusingHost()) }));
    }
    // started side by side: one slow or hung server costs its own start timeout, not everyone's
    const started = await Promise.allSettled(b.mcp.map((m) => McpToolset.start({ ...m, cwd: m.cwd ?? b.cwd }, { ...timeouts, onProblem: b.notice })));
    const mcp: McpToolset[] = [];
    for (const r of started) {
      if (r.status === 'fulfilled') mcp.push(r.value);
      else b.notice(r.reason instanceof Error ? r.reason.message : String(r.reason));
    }
    const tools = createSessionTools({
      toolsets,
      mcp,
      config: scfg,
      mode: b.mode,
      ledger,
      allows,
      hooks: b.hooks,
      root: fsToolset?.root ?? b.cwd,
      approvalsPossible: b.approvalsPossible,
      missing: b.missing,
      gate,
    });
    open.add(tools);
    const close = tools.close.bind(tools);
    tools.close = async () => {
      open.delete(tools);
      await close();
    };
    return tools;
  };

  const configServers = (c: EffectiveConfig): McpServerConfig[] =>
    Object.entries(c.data.mcp_servers ?? {}).map(([name, s]) => ({ name, command: s.command, args: s.args, env: s.env, url: s.url }));

  return {
    cwd: o.cwd,
    store,
    modes,
    defaultMode,
    modesFor: (cwd) => {
      let c: EffectiveConfig;
      try {
        c = configFor(cwd);
      } catch {
        c = cfg;
      }
      const m = modesOf(c);
      const current = m.some((x) => x.id === defaultMode) ? defaultMode : c.defaultEnvelope;
      return { modes: m, current };
    },
    provider,
    providerProblem,
    maxTurns,
    systemPrompt: (cwd) => {
      try {
        return systemPrompt(cwd, taskFor(configFor(cwd), vars).task.system_prompt);
      } catch {
        return systemPrompt(cwd);
      }
    },
    buildAcpTools: async (ctx) => {
      const caps = ctx.capabilities;
      const client = ctx.client;
      const hooks: HookRef = {};
      const io = new ClientFileIO({
        ...(caps.fs?.readTextFile
          ? {
              readTextFile: async (p: string, line?: number, limit?: number) =>
                (await clientCall(() => client.request(acp.methods.client.fs.readTextFile, { sessionId: ctx.sessionId, path: p, ...(line ? { line } : {}), ...(limit ? { limit } : {}) }))).content,
            }
          : {}),
        ...(caps.fs?.writeTextFile
          ? {
              writeTextFile: async (p: string, content: string) => {
                await clientCall(() => client.request(acp.methods.client.fs.writeTextFile, { sessionId: ctx.sessionId, path: p, content }));
              },
            }
          : {}),
      });
      const sandbox = clientSandbox(caps);
      const host = caps.terminal ? new ReportingHost(new ClientTerminalHost(acpTerminalClient(client), { sessionId: ctx.sessionId, ...(sandbox ? { sandbox } : {}) }), hooks) : null;
      const acpServers = fromAcp(ctx.mcpServers as unknown as Array<Record<string, unknown>>);
      const notice = (t: string) => void ctx.notice(t).catch(() => {});
      for (const s of acpServers.skipped) notice(s);
      const names = new Set(acpServers.configs.map((c) => c.name));
      return build({
        sessionId: ctx.sessionId,
        cwd: ctx.cwd,
        mode: ctx.mode,
        ledger: ctx.ledger,
        allows: ctx.allows,
        io,
        host,
        mcp: [...configServers(configFor(ctx.cwd)).filter((c) => !names.has(c.name)), ...acpServers.configs],
        notice,
        approvalsPossible: true,
        hooks,
        missing: (spec) => missingCapability(spec, caps),
      });
    },
    buildLocalTools: (mode, notice) =>
      build({
        sessionId: `run-${Date.now()}`,
        cwd: o.cwd,
        mode,
        io: 'workspace',
        host: 'local',
        mcp: configServers(cfg),
        notice,
        approvalsPossible: false,
        hooks: {},
      }),
    closeAll: async () => {
      for (const t of [...open]) await t.close();
    },
  };
}

/** A client's JSON-RPC error with its details in the message ("Internal error" alone says nothing). */
async function clientCall<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    const e = err as { message?: string; code?: number; data?: unknown };
    const d = e.data as { details?: unknown; message?: unknown } | string | undefined;
    const detail = typeof d === 'string' ? d : typeof d?.details === 'string' ? d.details : typeof d?.message === 'string' ? d.message : undefined;
    if (detail === undefined) throw err;
    const out = new Error(`${e.message ?? 'client error'} (${detail})`);
    if (/not found|no such file|ENOENT/i.test(detail) || e.code === -32002) (out as NodeJS.ErrnoException).code = 'ENOENT';
    throw out;
  }
}

const CONTENT_READS = new Set(['read_file', 'read_file_range']);
const CONTENT_WRITES = new Set(['write_file', 'edit_file', 'sed']);

/** REFERENCE 1: a tool whose client capability is absent refuses, naming it; nothing falls back to the host. */
function missingCapability(spec: ToolSpec, caps: acp.ClientCapabilities): ToolError | undefined {
  if (spec.toolset === 'local_fs') {
    if (CONTENT_READS.has(spec.name) && !caps.fs?.readTextFile) {
      return new ToolError('capability_missing', `The connected client does not offer fs.readTextFile, so ${spec.name} cannot read files here. Browsing tools (list_dir, grep, find_files, stat_file, count_stats) still work.`, { capability: 'fs.readTextFile' });
    }
    if (CONTENT_WRITES.has(spec.name) && (!caps.fs?.writeTextFile || !caps.fs?.readTextFile)) {
      const cap = !caps.fs?.writeTextFile ? 'fs.writeTextFile' : 'fs.readTextFile';
      return new ToolError('capability_missing', `The connected client does not offer ${cap}, so ${spec.name} cannot change files here.`, { capability: cap });
    }
  }
  if (spec.toolset === 'local_shell' && !caps.terminal) {
    return new ToolError('capability_missing', 'The connected client does not offer the terminal capability, so local_shell cannot run commands here. Use the local_fs tools, or a client with terminal support.', { capability: 'terminal' });
  }
  return undefined;
}

/** The client's terminal/* methods for the shell toolset's client adapter. */
function acpTerminalClient(client: acp.AgentContext): AcpTerminalClient {
  return {
    create: (p) => client.request(acp.methods.client.terminal.create, p) as Promise<{ terminalId: string }>,
    output: (p) => client.request(acp.methods.client.terminal.output, p) as Promise<acp.TerminalOutputResponse>,
    waitForExit: (p) => client.request(acp.methods.client.terminal.waitForExit, p) as Promise<acp.WaitForTerminalExitResponse>,
    kill: (p) => client.request(acp.methods.client.terminal.kill, p),
    release: (p) => client.request(acp.methods.client.terminal.release, p),
  };
}

/** The sandbox a client says it runs terminals in (the cxl client does; others say nothing). */
function clientSandbox(caps: acp.ClientCapabilities): SandboxState | undefined {
  const m = caps._meta?.[SANDBOX_META] as { state?: unknown; reason?: unknown } | undefined;
  if (!m || typeof m !== 'object' || !['bubblewrap', 'seatbelt', 'off', 'unavailable'].includes(m.state as string)) return undefined;
  const state = m.state as SandboxState['state'];
  const reason = typeof m.reason === 'string' ? `the client's: ${m.reason}` : "the client's";
  return { state, reason };
}

/** Tells the running tool call about each terminal it opens, so the client can show it live. */
class ReportingHost implements TerminalHost {
  readonly kind = 'client' as const;
  constructor(
    private readonly inner: TerminalHost,
    private readonly hooks: HookRef,
  ) {}
  sandboxState(network: boolean): SandboxState {
    return this.inner.sandboxState?.(network) ?? { state: 'unavailable', reason: 'the client reports no sandbox' };
  }
  async create(req: TerminalRequest): Promise<Terminal> {
    const t = await this.inner.create(req);
    await this.hooks.current?.onTerminal?.(t.id);
    return t;
  }
}

/** Where a client has no terminal: nothing may fall back to running on this machine. */
class RefusingHost implements TerminalHost {
  readonly kind = 'client' as const;
  async create(): Promise<Terminal> {
    throw new ToolError('capability_missing', 'The connected client does not offer the terminal capability, so local_shell cannot run commands here.', { capability: 'terminal' });
  }
}
