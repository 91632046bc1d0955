// Everything `cxl acp` and `cxl run` build from flags, configuration and environment, one step
// each, called in order by agentSetup: the project configurations, the envelopes (ACP modes), the
// model-request timeouts, the model provider, the context window, the turn limit, the session
// store, and the factory for a session's tools (client-backed for ACP, workspace-backed for runs).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUILTIN, ConfigError, formatIssue, homeDir, loadConfig, projectConfig, type EffectiveConfig, type ProjectConfig } from '../config/load.ts';
import type { CompiledEnvelope } from '../core/envelope/index.ts';
import { applies, trustStorePath, untrustedNotice } from '../config/trust.ts';
import { META_TRUST_PROMPT } from '../core/protocol_names.ts';
import { DEFAULT_MEMORY_FILES, MemoryCache, type Memory } from '../config/memory.ts';
import { loadCommands, type LoadedCommands } from '../config/commands.ts';
import { loadChain, taskPolicies, type ChainTask } from '../config/chain.ts';
import { admitsToolset } from '../config/toolset_list.ts';
import type { Toolset } from '../core/contract/toolset.ts';
import type { ClientFileIO, FileIO } from '../core/local_fs/file_io.ts';
import { parseFsPolicy } from '../core/local_fs/policy.ts';
import { ReadLedger } from '../core/local_fs/ledger.ts';
import type { TerminalHost } from '../core/shell/terminal.ts';
import { ToolError } from '../core/errors.ts';
import type { ToolSpec } from '../core/tool.ts';
import { SessionAllows } from '../core/gate/session_allows.ts';
import type { SessionMode, ToolContext } from './acp/agent.ts';
import { clientFileIO, clientTerminalHost, missingCapability } from './acp/client_capabilities.ts';
import { dataDir } from '../core/platform/data_dir.ts';
import { fromAcp, McpToolset, type McpServerConfig } from './tools/mcp.ts';
import { SessionContext, type ContextHooks } from './context/session_context.ts';
import { TokenMeter } from './context/tokens.ts';
import { findWindow, type WindowChoice } from './context/window.ts';
import { modelProvider, requestSettings, windowSettings } from './loop/model_requests.ts';
import type { HttpSettings } from './providers/http.ts';
import type { Provider } from './providers/types.ts';
import { SessionStore } from './sessions/store.ts';
import { BUILTIN_TOOLSETS } from './tools/builtin.ts';
import { createSessionTools } from './tools/session_tools.ts';
import { systemPrompt } from './loop/system_prompt.ts';
import type { SessionTools } from './tools/contract.ts';
import type { MissionBinding } from './tools/mission/binding.ts';
import type { UnitToolsOptions } from './units/unit.ts';
import { DEFAULT_FLEET_MAX } from './missions/mission_store.ts';
import type { SessionCheckpoints } from './checkpoints/recorder.ts';

export interface SetupOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  provider?: string;
  model?: string;
  envelope?: string;
  maxTurns?: string;
  /** --context-window */
  contextWindow?: string;
  /** --connect-timeout, --first-byte-timeout, --idle-timeout */
  connectTimeout?: string;
  firstByteTimeout?: string;
  idleTimeout?: string;
  /** for messages: `cxl acp` or `cxl run` */
  command: string;
  /** `--trust-project`: the project's own configuration applies for this run */
  trustProject?: boolean;
  /**
   * The agent whose `[agents.<name>]` section applies (`cxl mission fire NAME`). `run`, the
   * built-in agent of `cxl run`, is the configuration as it stands unless a `[agents.run]` exists.
   */
  agent?: string;
}


/** What the missions of this configuration are given. */
export interface MissionSettings {
  /** `default_mission_envelope`, when set */
  defaultEnvelope?: string;
  /** the file that set it */
  defaultEnvelopeFrom?: string;
  /** `fleet_max_parallel` (0: no cap) */
  fleetMax: number;
  /** the agents `cxl mission fire` may name: `run` and every [agents.<name>] */
  agents: string[];
  /** the agent section in use (`run` when none) */
  agent: string;
}

export interface AgentSetup {
  cwd: string;
  /** where sessions, checkpoints, prompt history, missions and asks are kept */
  dataDir: string;
  store: SessionStore;
  modes: SessionMode[];
  defaultMode: string;
  /** `default_envelope` when a configuration file sets it (not the built-in default), and that file */
  configuredEnvelope?: { name: string; from: string };
  modesFor(cwd: string): { modes: SessionMode[]; current: string };
  /** an envelope of the configuration of a session rooted at `cwd`, compiled (throws for an unknown name) */
  envelopeFor(cwd: string, name: string): CompiledEnvelope;
  provider: Provider | null;
  providerProblem?: string;
  /** the model-request timeouts and retries */
  http: HttpSettings;
  /** the context window of `provider`'s model (default: the agent's): asked of the server once per model, on first use */
  window(provider?: Provider | null): Promise<WindowChoice>;
  /** a session's context budget (compaction, usage), reporting through `hooks` */
  newContext(hooks: ContextHooks): SessionContext;
  maxTurns: number;
  /** `checkpoint_session_bytes`: what one session's checkpoints may keep (undefined: the default, 1 GiB) */
  checkpointSessionBytes?: number;
  /** the system prompt of a session rooted at `cwd`: its memory files as they are now */
  systemPrompt(cwd: string): string;
  /** the memory files of a session rooted at `cwd` (AGENTS.md…), read again when they change */
  memory(cwd: string): { memory: Memory; names: readonly string[] };
  /** the custom commands of a session rooted at `cwd` (the project's only when it is trusted); `reserved`: built-in names */
  commands(cwd: string, reserved: readonly string[]): LoadedCommands;
  buildAcpTools(ctx: ToolContext): Promise<SessionTools>;
  /** a one-shot conversation's tools (`cxl -p`): the workspace's local_fs and local_shell, no mission tools */
  buildLocalTools(o: LocalToolsOptions): Promise<SessionTools>;
  /** a unit's tools: the workspace's local_fs and local_shell, its mission tools, asks stored and waited on */
  buildUnitTools(o: UnitToolsOptions): Promise<SessionTools>;
  missions: MissionSettings;
  closeAll(): Promise<void>;
}

/** What a one-shot conversation's tools are built with (`cxl -p`, agent/one_shot.ts). */
export interface LocalToolsOptions {
  sessionId: string;
  mode: string;
  /** the stored session's read ledger and session-scoped allows, when it continues one */
  ledger?: unknown;
  allows?: unknown;
  /** what goes wrong while the tools are built or run (a server that fails or dies) */
  notice(text: string): void;
  /** true: each call brings its approver (durable asks); false: an ask is refused at once */
  approvals: boolean;
  /** what a refused ask tells the model and the person to do instead */
  nobodyHint?: string;
  /** how long an ask waits when the envelope's rule names no timeout */
  askTimeoutMs?: number;
  /** more roots the tools reach (`cxl -p --add-dir`), checked and canonical */
  extra?: readonly string[];
}

export const DEFAULT_MAX_TURNS = 25;

export async function agentSetup(o: SetupOptions): Promise<AgentSetup> {
  const configs = new ProjectConfigs(o.env, o.trustProject, o.agent);
  const cfg = configs.for(o.cwd);
  const { modes, defaultMode } = sessionModes(cfg, o.envelope);
  const http = requestSettings(cfg, o);
  const { provider, providerProblem } = modelProvider(cfg, o, http);
  const { window, newContext } = contextWindow(cfg, o, provider);
  const maxTurns = turnLimit(o.maxTurns);
  const vars: Record<string, string> = provider ? { provider: provider.name, model: provider.model } : {};
  const data = dataDir(o.env);
  const store = new SessionStore(data);
  const memories = new MemoryCache({ home: o.env.HOME });
  const memoryOf = (cwd: string) => {
    let names: readonly string[] = DEFAULT_MEMORY_FILES;
    try {
      names = configs.for(cwd).data.memory_files ?? DEFAULT_MEMORY_FILES;
    } catch {
      names = cfg.data.memory_files ?? DEFAULT_MEMORY_FILES;
    }
    return { memory: memories.get(cwd, names), names };
  };
  // a memory file left out (a link out of the project, a protected file) is said when the session starts
  const skippedMemory = (cwd: string) => memoryOf(cwd).memory.skipped.map((s) => `Memory file ${s.path} is not read: ${s.why}.`);
  const factory = new SessionToolsFactory(configs, vars, mcpTimeouts(o.env), o.env, skippedMemory);

  const configOf = (cwd: string): EffectiveConfig => {
    try {
      return configs.for(cwd);
    } catch {
      return cfg;
    }
  };

  return {
    cwd: o.cwd,
    dataDir: data,
    store,
    modes,
    defaultMode,
    ...configuredDefault(cfg, 'default_envelope', (name, from) => ({ configuredEnvelope: { name, from } })),
    modesFor: (cwd) => {
      const c = configOf(cwd);
      const m = modesOf(c);
      // --envelope wins; else the default of this folder's configuration as it is now (a folder
      // trusted since the agent started has its own default)
      const current = o.envelope !== undefined && m.some((x) => x.id === o.envelope) ? o.envelope : c.defaultEnvelope;
      return { modes: m, current };
    },
    envelopeFor: (cwd, name) => configOf(cwd).envelope(name),
    provider,
    providerProblem,
    http,
    window,
    newContext,
    maxTurns,
    ...(cfg.data.checkpoint_session_bytes !== undefined ? { checkpointSessionBytes: cfg.data.checkpoint_session_bytes } : {}),
    systemPrompt: (cwd) => {
      const memory = memoryOf(cwd).memory.prompt;
      try {
        return systemPrompt(cwd, taskFor(configs.for(cwd), vars).task.system_prompt, memory);
      } catch {
        return systemPrompt(cwd, undefined, memory);
      }
    },
    memory: memoryOf,
    commands: (cwd, reserved) => {
      let project: EffectiveConfig['project'];
      try {
        project = configs.for(cwd).project;
      } catch {
        // a project configuration that does not load: nothing of it applies, its commands neither
        project = { ...projectConfig({ cwd, home: o.env.HOME, env: o.env }), state: 'untrusted' };
      }
      return loadCommands({ home: o.env.HOME || os.homedir(), project, reserved });
    },
    buildAcpTools: (ctx) => factory.forClient(ctx),
    buildLocalTools: (l) => factory.forWorkspace(o.cwd, l),
    buildUnitTools: (u) => factory.forUnit(o.cwd, u),
    missions: {
      ...configuredDefault(cfg, 'default_mission_envelope', (name, from) => ({ defaultEnvelope: name, defaultEnvelopeFrom: from })),
      fleetMax: cfg.data.fleet_max_parallel ?? DEFAULT_FLEET_MAX,
      agents: ['run', ...cfg.agents.filter((a) => a !== 'run')],
      agent: o.agent ?? cfg.agent ?? 'run',
    },
    closeAll: () => factory.closeAll(),
  };
}

// ── step: the configuration of each project directory ──────────────────────────────────────

/**
 * The configuration of each project directory, resolved once per run (its trust, its files read
 * and hashed, the layers merged) and passed to everything that asks: sessions rooted elsewhere see
 * their own .contenox/agents.toml. A later ask only stats what the resolution read (the folder,
 * its .contenox, the files of its configuration, the trust store, the person's own file), as git
 * checks its index: when one changed (trusted from the UI, a pull) the next session resolves it
 * again; a running session keeps the configuration it started with.
 */
class ProjectConfigs {
  readonly #loaded = new Map<string, { seen: string; cfg: EffectiveConfig }>();
  constructor(
    private readonly env: Record<string, string | undefined>,
    private readonly trustProject?: boolean,
    private readonly agent?: string,
  ) {}

  /** The configuration with the agent section applied: `run` is the built-in agent unless the files define [agents.run]. */
  #load(opts: { cwd: string; home?: string; env: Record<string, string | undefined>; trustProject?: boolean; project: ProjectConfig }): EffectiveConfig {
    if (this.agent === undefined) return loadConfig(opts);
    if (this.agent !== 'run') return loadConfig({ ...opts, agent: this.agent });
    const cfg = loadConfig(opts);
    return cfg.agents.includes('run') ? loadConfig({ ...opts, agent: 'run' }) : cfg;
  }

  /**
   * Why the project's own configuration no longer applies in `cwd` (changed since it was
   * trusted: its agents.toml, or a script one of its MCP servers runs), or undefined when it does.
   * Asked again right before a project's MCP server is spawned: a full resolution, not the stat.
   */
  lapsed(cwd: string): string | undefined {
    const project = projectConfig({ cwd, home: this.env.HOME, env: this.env, trustProject: this.trustProject });
    return applies(project.state) ? undefined : (untrustedNotice(project) ?? `This folder's own configuration is ${project.state}.`);
  }

  for(cwd: string): EffectiveConfig {
    const hit = this.#loaded.get(cwd);
    if (hit && hit.seen === this.#seen(cwd, hit.cfg.project)) return hit.cfg;
    const base = { cwd, home: this.env.HOME, env: this.env, trustProject: this.trustProject };
    const project = projectConfig(base);
    const seen = this.#seen(cwd, project);
    let cfg: EffectiveConfig;
    try {
      cfg = this.#load({ ...base, project });
    } catch (err) {
      if (err instanceof ConfigError) throw new ToolError('bad_args', `configuration error:\n${err.issues.map(formatIssue).join('\n')}`);
      throw err;
    }
    this.#loaded.set(cwd, { seen, cfg });
    return cfg;
  }

  /** What a resolution of `cwd` read, as stat sees it now (identity, size, change time). */
  #seen(cwd: string, project: ProjectConfig): string {
    const home = homeDir(this.env.HOME);
    const dir = project.material?.dir ?? path.resolve(cwd);
    const paths = [dir, path.join(dir, '.contenox'), path.join(dir, '.contenox', 'commands'), project.file, trustStorePath(home), path.join(home, '.contenox', 'agents.toml'), ...Object.keys(project.material?.files ?? {}).map((rel) => path.join(dir, rel))];
    return paths.map(statKey).join('|');
  }
}

function statKey(file: string): string {
  try {
    const st = fs.statSync(file, { bigint: true });
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return '-';
  }
}

// ── step: envelopes as ACP modes ───────────────────────────────────────────────────────────

/** The stricter shipped envelopes, last in the cycle in this order (`serve` is a host's default, seldom picked by hand). */
const SHIPPED_LAST = ['read_only', 'strict', 'ask_always', 'serve'];

/**
 * The envelopes as session modes, in the order a client cycles them (Shift+Tab): the configured
 * default, then `auto_edit` (the change people make most), the project's own envelopes, then the
 * stricter shipped ones. One press from `default` reaches `auto_edit`.
 */
export function modesOf(c: EffectiveConfig): SessionMode[] {
  const rank = (id: string) => (id === c.defaultEnvelope ? 0 : id === 'auto_edit' ? 1 : id === 'default' ? 2 : SHIPPED_LAST.includes(id) ? 4 : 3);
  return Object.entries(c.envelopes)
    .map(([id, spec]) => ({ id, name: c.shownName(id), ...(spec.description ? { description: spec.description } : {}) }))
    .sort((a, b) => rank(a.id) - rank(b.id) || (rank(a.id) === 4 ? SHIPPED_LAST.indexOf(a.id) - SHIPPED_LAST.indexOf(b.id) : a.id.localeCompare(b.id)));
}

function sessionModes(cfg: EffectiveConfig, envelope: string | undefined): { modes: SessionMode[]; defaultMode: string } {
  const modes = modesOf(cfg);
  const defaultMode = envelope ?? cfg.defaultEnvelope;
  if (!modes.some((m) => m.id === defaultMode)) {
    throw new ToolError('bad_args', `no envelope named \`${defaultMode}\`; envelopes: ${modes.map((m) => m.id).sort().join(', ')}.`);
  }
  return { modes, defaultMode };
}

/** A default envelope a configuration file sets (the built-in `default_envelope` is not one), as `make` shapes it. */
function configuredDefault<T>(cfg: EffectiveConfig, key: 'default_envelope' | 'default_mission_envelope', make: (name: string, from: string) => T): T | Record<string, never> {
  const name = cfg.data[key];
  const from = cfg.sources.get(key);
  return name && from && from !== BUILTIN ? make(name, from) : {};
}

// ── step: the context window ────────────────────────────────────────────────────────────────

/**
 * The window, found once per model (the server is asked on first use, not at startup: a session
 * switched to another model asks for that one's), and the sessions' budgets over it.
 */
function contextWindow(cfg: EffectiveConfig, o: SetupOptions, provider: Provider | null): { window: (p?: Provider | null) => Promise<WindowChoice>; newContext: (hooks: ContextHooks) => SessionContext } {
  const settings = windowSettings(cfg, o.contextWindow);
  const found = new Map<string, Promise<WindowChoice>>();
  const window = (p: Provider | null = provider) => {
    const key = p ? `${p.name} ${p.endpoint} ${p.model}` : '';
    let w = found.get(key);
    if (!w) found.set(key, (w = findWindow(p, settings)));
    return w;
  };
  const meter = new TokenMeter();
  const threshold = cfg.data.compact_threshold;
  return { window, newContext: (hooks) => new SessionContext({ ...hooks, provider, window, meter, threshold }) };
}

// ── step: the turn limit ───────────────────────────────────────────────────────────────────

function turnLimit(flag: string | undefined): number {
  const maxTurns = flag === undefined ? DEFAULT_MAX_TURNS : Number(flag);
  if (!Number.isInteger(maxTurns) || maxTurns < 1) throw new ToolError('bad_args', `--max-turns must be a positive whole number; got ${flag}.`);
  return maxTurns;
}

// ── step: a session's tools ────────────────────────────────────────────────────────────────

/** Timeouts for attached MCP servers; CXL_MCP_TIMEOUT_MS bounds one call (tests use it to make hangs short). */
function mcpTimeouts(env: Record<string, string | undefined>): { startTimeoutMs?: number; callTimeoutMs?: number } {
  const n = Number(env.CXL_MCP_TIMEOUT_MS);
  return Number.isFinite(n) && n > 0 ? { startTimeoutMs: Math.max(n, 5000), callTimeoutMs: n } : {};
}

/** The chain's first task: which toolsets, with which tools_policies, and its system prompt. */
function taskFor(cfg: EffectiveConfig, vars: Record<string, string>): { task: ChainTask; policies: Record<string, Record<string, string>> } {
  const { chain, label } = loadChain(cfg.data, cfg.sources, { vars, projectFile: cfg.project.file });
  const task = chain.tasks[0];
  const { policies } = taskPolicies(task, cfg.data, cfg.sources, label);
  return { task, policies };
}

/** Whether `key` (and everything under it) came from the project's own file. */
function fromProject(c: EffectiveConfig, key: string): boolean {
  if (!c.project.file) return false;
  for (const [k, src] of c.sources) if ((k === key || k.startsWith(`${key}.`)) && src.replace(/ \[agents\.[^\]]*\]$/, '') === c.project.file) return true;
  return false;
}

/**
 * The configuration's MCP servers; a project's own is checked once more right before it is
 * spawned (`lapsed`), so a script replaced since the configuration was read does not run.
 */
function configServers(c: EffectiveConfig, lapsed?: (cwd: string) => string | undefined, cwd?: string): McpServerConfig[] {
  return Object.entries(c.data.mcp_servers ?? {}).map(([name, s]) => {
    const check = lapsed && cwd !== undefined && s.command !== undefined && fromProject(c, `mcp_servers.${name}`);
    const verify = check ? () => {
      const why = lapsed(cwd);
      return why === undefined ? undefined : `MCP server ${name} (from this folder's own configuration) is not started. ${why}`;
    } : undefined;
    return { name, command: s.command, args: s.args, env: s.env, url: s.url, ...(s.headers ? { headers: s.headers, headersFromConfig: true } : {}), ...(verify ? { verify } : {}) };
  });
}

interface SessionToolsInput {
  sessionId: string;
  cwd: string;
  mode: string;
  /** a unit's ceiling: the envelope of the session whose model fired it */
  ceiling?: string;
  ledger?: unknown;
  allows?: unknown;
  /** the content half: the workspace itself, or the client's fs/* */
  io: 'workspace' | ClientFileIO;
  /** where commands run: this machine, or the client's terminals */
  host: TerminalHost | 'local';
  /** the MCP servers the client attached (they win over configured ones of the same name) */
  clientMcp: McpServerConfig[];
  notice: (text: string) => void;
  approvalsPossible: boolean;
  missing?: (spec: ToolSpec) => ToolError | undefined;
  mission?: MissionBinding;
  askTimeoutMs?: number;
  /** the session's checkpoints (ACP sessions): writes and commands are recorded */
  checkpoints?: SessionCheckpoints;
  /** the session's additional directories (ACP sessions), checked and canonical */
  extra?: readonly string[];
  /** the client offers to trust the folder itself (META_TRUST_PROMPT) */
  trustPrompt?: boolean;
  nobodyHint?: string;
}

/** Builds each session's toolsets (local_fs, local_shell, remote tools, MCP) behind its gate, and closes them all on the way out. */
class SessionToolsFactory {
  readonly #open = new Set<SessionTools>();
  constructor(
    private readonly configs: ProjectConfigs,
    private readonly vars: Record<string, string>,
    private readonly timeouts: { startTimeoutMs?: number; callTimeoutMs?: number },
    private readonly env: Record<string, string | undefined> = {},
    private readonly skippedMemory: (cwd: string) => string[] = () => [],
  ) {}

  forClient(ctx: ToolContext): Promise<SessionTools> {
    const acpServers = fromAcp(ctx.mcpServers as unknown as Array<Record<string, unknown>>);
    const notice = (t: string) => void ctx.notice(t).catch(() => {});
    for (const s of acpServers.skipped) notice(s);
    return this.build({
      sessionId: ctx.sessionId,
      cwd: ctx.cwd,
      mode: ctx.mode,
      ledger: ctx.ledger,
      allows: ctx.allows,
      io: clientFileIO(ctx),
      host: clientTerminalHost(ctx),
      clientMcp: acpServers.configs,
      notice,
      approvalsPossible: true,
      missing: (spec) => missingCapability(spec, ctx.capabilities),
      ...(ctx.mission ? { mission: ctx.mission } : {}),
      ...(ctx.checkpoints ? { checkpoints: ctx.checkpoints } : {}),
      ...(ctx.extra?.length ? { extra: ctx.extra } : {}),
      trustPrompt: (ctx.capabilities._meta as Record<string, unknown> | undefined)?.[META_TRUST_PROMPT] === true,
    });
  }

  /** A unit's: the workspace itself, commands here, asks stored and waited on (the caller's approver). */
  forUnit(cwd: string, u: UnitToolsOptions): Promise<SessionTools> {
    return this.build({
      sessionId: u.sessionId,
      cwd,
      mode: u.mode,
      ...(u.ceiling !== undefined ? { ceiling: u.ceiling } : {}),
      io: 'workspace',
      host: 'local',
      clientMcp: [],
      notice: u.notice,
      approvalsPossible: true,
      mission: u.mission,
      askTimeoutMs: u.askTimeoutMs,
    });
  }

  /** A one-shot conversation's: the workspace itself, commands here, no mission tools. */
  forWorkspace(cwd: string, l: LocalToolsOptions): Promise<SessionTools> {
    return this.build({
      sessionId: l.sessionId,
      cwd,
      mode: l.mode,
      ledger: l.ledger,
      allows: l.allows,
      io: 'workspace',
      host: 'local',
      clientMcp: [],
      notice: l.notice,
      approvalsPossible: l.approvals,
      ...(l.nobodyHint ? { nobodyHint: l.nobodyHint } : {}),
      ...(l.askTimeoutMs !== undefined ? { askTimeoutMs: l.askTimeoutMs } : {}),
      ...(l.extra?.length ? { extra: l.extra } : {}),
    });
  }

  async closeAll(): Promise<void> {
    for (const t of [...this.#open]) await t.close();
  }

  private async build(b: SessionToolsInput): Promise<SessionTools> {
    const scfg = this.configs.for(b.cwd);
    const untrusted = untrustedNotice(scfg.project);
    // a client with its own trust prompt says it (once, with what trusting would change)
    if (untrusted && !b.trustPrompt) b.notice(untrusted);
    for (const m of this.skippedMemory(b.cwd)) b.notice(m);
    const { task, policies } = taskFor(scfg, this.vars);
    // each warning once: local_fs's policy is read for the remote tools' output cap too
    const said = new Set<string>();
    const warn = (w: string) => {
      if (said.has(w)) return;
      said.add(w);
      b.notice(w);
    };
    const outputCap = parseFsPolicy(policies.local_fs);
    outputCap.warnings.forEach(warn);
    // an allow answers only in the folder it was given in (a session loaded elsewhere asks again)
    const allows = SessionAllows.fromJSON(b.allows, realDir(b.cwd));
    const ledger = restoreLedger(b.ledger, b.sessionId);
    const toolsets: Toolset[] = [];
    // a toolset that confines itself (local_fs's _allowed_dir) moves the root of those after it
    let root = b.cwd;
    for (const builtin of BUILTIN_TOOLSETS) {
      if (!builtin.always && !admitsToolset(task.execute_config.tools, builtin.name)) continue;
      if (builtin.offeredIn && !builtin.offeredIn(root)) continue;
      const site = {
        root,
        sessionId: b.sessionId,
        ledger,
        io: b.io === 'workspace' ? undefined : b.io,
        host: b.host === 'local' ? undefined : b.host,
        warn,
        ...(b.mission ? { mission: b.mission } : {}),
        ...(b.extra?.length ? { extra: b.extra } : {}),
      };
      const opened = await builtin.open(site, policies[builtin.name]);
      toolsets.push(opened.toolset);
      root = opened.root ?? root;
    }
    // the servers of the configuration just read (its trust checked now), not of an earlier read
    const names = new Set(b.clientMcp.map((c) => c.name));
    const servers = [...configServers(scfg, (cwd) => this.configs.lapsed(cwd), b.cwd).filter((c) => !names.has(c.name)), ...b.clientMcp];
    const [mcp, remote] = await Promise.all([this.startMcp(b, servers), this.startRemote(b, scfg, servers, outputCap.policy.maxOutputBytes)]);
    toolsets.push(...remote);
    const tools = createSessionTools({ toolsets, mcp, config: scfg, mode: b.mode, ...(b.ceiling !== undefined ? { ceiling: b.ceiling } : {}), ledger, allows, root: b.cwd, ...(b.checkpoints ? { effects: b.checkpoints } : {}), approvalsPossible: b.approvalsPossible, missing: b.missing, askTimeoutMs: b.askTimeoutMs, nobodyHint: b.nobodyHint });
    this.#open.add(tools);
    const close = tools.close.bind(tools);
    tools.close = async () => {
      this.#open.delete(tools);
      await close();
    };
    return tools;
  }

  /** [remote_tools.*]: the OpenAPI parser is imported only when a service is configured. */
  private async startRemote(b: SessionToolsInput, cfg: EffectiveConfig, servers: McpServerConfig[], maxOutputBytes: number): Promise<Toolset[]> {
    if (!Object.keys(cfg.data.remote_tools ?? {}).length) return [];
    const { loadRemoteTools, remoteConfigs } = await import('./tools/remote/toolset.ts');
    const mcpNames = new Set(servers.map((m) => m.name));
    const configs = remoteConfigs(cfg.data.remote_tools, cfg.sources).filter((c) => {
      if (!mcpNames.has(c.name)) return true;
      b.notice(`remote tools ${c.name}: the client attached an MCP server of the same name, which keeps it; the remote tools ${c.name} are left out.`);
      return false;
    });
    const { toolsets, problems } = await loadRemoteTools(configs, { env: this.env, maxOutputBytes });
    for (const p of problems) b.notice(p);
    return toolsets;
  }

  /** Started side by side: one slow or hung server costs its own start timeout, not everyone's. */
  private async startMcp(b: SessionToolsInput, servers: McpServerConfig[]): Promise<McpToolset[]> {
    const started = await Promise.allSettled(servers.map((m) => McpToolset.start({ ...m, cwd: m.cwd ?? b.cwd }, { ...this.timeouts, onProblem: b.notice })));
    const mcp: McpToolset[] = [];
    for (const r of started) {
      if (r.status === 'fulfilled') mcp.push(r.value);
      else b.notice(r.reason instanceof Error ? r.reason.message : String(r.reason));
    }
    return mcp;
  }
}

function realDir(dir: string): string {
  try {
    return fs.realpathSync.native(dir);
  } catch {
    return path.resolve(dir);
  }
}

function restoreLedger(saved: unknown, sessionId: string): ReadLedger {
  try {
    return saved ? ReadLedger.fromJSON(saved) : new ReadLedger(sessionId);
  } catch {
    return new ReadLedger(sessionId);
  }
}
