// A live session: what one ACP session holds while the agent runs (its stored form and log on
// disk, its tools, its context budget, its notices, the turn in progress) and what it does
// between prompts: save itself, switch mode, tell the client its sandbox and whether it can be
// resumed. Prompt turns (prompt.ts) work on it; the session manager opens and closes it.
import path from 'node:path';
import process from 'node:process';
import * as acp from '@agentclientprotocol/sdk';
import { META_DESCRIPTION, META_MODEL, META_SANDBOX, META_SHELL_RUN, META_TOKENS_AFTER, META_TOKENS_BEFORE, type ModelMeta, type SandboxMeta, type ShellRunMeta } from '../../core/protocol_names.ts';
import { describeCompaction, type CompactionPhase, type CompactionRecord, type ContextHooks, type SessionContext } from '../context/session_context.ts';
import { sessionContext } from '../loop/model_call.ts';
import { checkModel } from '../providers/reachability.ts';
import { SERVER_MODEL } from '../providers/openai.ts';
import { howToConfigure } from '../providers/select.ts';
import type { Provider } from '../providers/types.ts';
import type { SessionLog, SessionStore, StoredSession } from '../sessions/store.ts';
import { TurnLease } from '../sessions/turn_lease.ts';
import type { SessionTools } from '../tools/contract.ts';
import type { MissionBinding } from '../tools/mission/binding.ts';
import type { Fleet, FiringSession } from './fleet.ts';
import { MissionRelay } from './mission_relay.ts';
import { BlobStore, type BlobLimits } from '../checkpoints/blob_store.ts';
import { SessionCheckpoints } from '../checkpoints/recorder.ts';
import { applyFiles, planRewind, type RestoreChecks, type RestoreWhat, type RewindPlan, type RewindResult } from '../checkpoints/rewind.ts';
import { canonicalRoot } from '../../core/paths.ts';
import { keptAdditionalDirs, sessionAdditionalRoots } from './additional_dirs.ts';
import type { LoadedCommands } from '../../config/commands.ts';
import type { Memory } from '../../config/memory.ts';
import { META_COMMAND_SOURCE, type CheckpointsMeta } from '../../core/protocol_names.ts';
import { AVAILABLE_COMMANDS, RESERVED_COMMANDS } from './direct.ts';
import { CONFIG_MODE, CONFIG_MODEL, configOptions, type ModelCatalog } from './config_options.ts';
import { noCheckpoints, noModelProvider, notASelectValue, turnRunning, unknownConfigOption, unknownMode, unknownModel } from './errors.ts';
import { persistenceMeta, reportSaves, type Notify } from './save_notices.ts';

export interface SessionMode {
  id: string;
  name: string;
  description?: string;
}

/** What a session's tools are built from. `client` is how they reach the ACP client. */
export interface ToolContext {
  sessionId: string;
  cwd: string;
  mode: string;
  client: acp.AgentContext;
  capabilities: acp.ClientCapabilities;
  mcpServers: acp.McpServer[];
  ledger?: unknown;
  /** the session-scoped allows restored from the store */
  allows?: unknown;
  /** what its mission tools speak for: this session as the supervisor of the units it starts */
  mission?: MissionBinding;
  /** the session's checkpoints: the tools record what they change through them */
  checkpoints?: SessionCheckpoints;
  /** the session's additional directories, checked and canonical (additional_dirs.ts): the file tools reach them too */
  extra?: readonly string[];
  /**
   * report something to the user in the session (an MCP server died, a config warning, a failed
   * save): an ACP `notice` when the client shows them, else an agent message
   */
  notice: Notify;
}

export interface AgentOptions {
  name?: string;
  version: string;
  store: SessionStore;
  /** the envelopes a session rooted at `cwd` can use (its project config counts), and the one it starts in */
  modesFor(cwd: string): { modes: SessionMode[]; current: string };
  /** null when no provider could be configured; prompts then answer with how to set one up */
  provider: Provider | null;
  providerProblem?: string;
  buildTools(ctx: ToolContext): Promise<SessionTools>;
  systemPrompt(cwd: string): string;
  /** the memory files of a session rooted at `cwd`, for /memory */
  memory?(cwd: string): { memory: Memory; names: readonly string[] };
  /** the custom commands of a session rooted at `cwd`; `reserved`: the built-in names */
  commands?(cwd: string, reserved: readonly string[]): LoadedCommands;
  /** where checkpoints are kept (`<data dir>/checkpoints`); without it nothing is checkpointed */
  checkpointsDir?: string;
  /** what one session's checkpoints may keep (config `checkpoint_session_bytes`; default: blob_store.ts) */
  checkpointLimits?: Partial<BlobLimits>;
  maxTurns: number;
  /** a session's context budget: window, usage, compaction */
  newContext(hooks: ContextHooks): SessionContext;
  log(msg: string): void;
  /** starts mission units for the sessions (/mission, mission_start); none: they cannot */
  fleet?: Fleet;
}

/** What session/new and session/load answer with besides the id. */
export interface SessionAnswer {
  modes: acp.SessionModeState;
  configOptions: acp.SessionConfigOption[] | undefined;
  _meta: Record<string, unknown>;
}

/**
 * What the user is told in one session: an ACP `notice` for a client that shows them, else an
 * agent message. Held until the client knows the session (session/new has not answered yet).
 */
export class SessionNotices {
  /** notices being sent; a turn awaits them before it answers */
  readonly inflight = new Set<Promise<void>>();
  #held: Array<Parameters<Notify>> | undefined = [];

  constructor(
    private readonly client: acp.AgentContext,
    private readonly sessionId: string,
    readonly asNotice: boolean,
  ) {}

  readonly notify: Notify = (text, n = {}) => {
    if (this.#held) {
      this.#held.push([text, n]);
      return Promise.resolve();
    }
    const [first, ...rest] = text.split('\n');
    const update: acp.SessionUpdate = this.asNotice
      ? { sessionUpdate: 'notice', severity: n.severity ?? 'warning', title: n.title ?? first, ...(n.title ? { description: text } : rest.length ? { description: rest.join('\n') } : {}) }
      : { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${n.title ? `${n.title}\n` : ''}${text}\n` } };
    const p = this.client.notify(acp.methods.client.session.update, { sessionId: this.sessionId, update }).finally(() => this.inflight.delete(p));
    this.inflight.add(p);
    return p;
  };

  /** The client knows the session now: what was held, to be sent; later notices go out at once. */
  release(): Array<Parameters<Notify>> {
    const held = this.#held ?? [];
    this.#held = undefined;
    return held;
  }

  /** Every notice sent so far has gone out (or failed). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inflight]);
  }
}

/** A compaction as ACP's compaction_update, with the token counts in _meta. */
function compactionUpdate(r: CompactionRecord, status: 'in_progress' | 'completed' | 'failed' | 'cancelled'): acp.SessionUpdate & Record<string, unknown> {
  return {
    sessionUpdate: 'compaction_update',
    compactionId: r.compactionId,
    status,
    ...(status === 'completed' ? { summary: [{ type: 'text' as const, text: r.summary ?? describeCompaction(r) }] } : {}),
    ...(status === 'failed' ? { error: r.summaryDropped ?? describeCompaction(r) } : {}),
    _meta: { [META_TOKENS_BEFORE]: r.tokensBefore, [META_TOKENS_AFTER]: r.tokensAfter, [META_DESCRIPTION]: describeCompaction(r) },
  };
}

function nowIso(): string {
  return new Date().toISOString();
}

/** The session's own model, kept with it so a load or resume asks the same one. */
const EXTRA_MODEL = 'model';
/** The person's `!line` output the model has not read yet (each run's text), kept so a resumed session still sends it. */
const EXTRA_SHELL_PENDING = 'shellPending';

export class LiveSession {
  /** the prompt turn running now, to cancel */
  turn?: AbortController;
  /** who may run a turn of this session across processes (sessions/turn_lease.ts) */
  readonly lease: TurnLease;
  /** the prompt running now, so a shutdown can wait for it to wind down */
  running?: Promise<unknown>;
  /** tool call ids continue after the replayed ones, so a reloaded session never reuses one */
  nextCall: number;
  /** the units this session fired, their rows and asks brought back here */
  relay?: MissionRelay;
  readonly context: SessionContext;
  /** the custom commands as last told to the client */
  #commands: LoadedCommands = { commands: [], problems: [], heldBack: 0 };
  #commandsSaid = '';
  #problemsSaid = new Set<string>();
  /** the model this session asks: the agent's, or the one chosen with /model (set_config_option, set_model) */
  provider: Provider | null;
  /** the session was closed (session/close, delete): later requests find no session */
  closed = false;
  /** `!line` runs recorded since the last prompt (their replay rows stand for the prompt's shell context) */
  shellRuns = 0;
  /** what the client was told about the model at open: none answers, or one is to be picked (undefined: nothing, or it answers) */
  modelSaid: 'unreachable' | 'pick' | undefined;

  constructor(
    private readonly o: AgentOptions,
    readonly stored: StoredSession,
    readonly client: acp.AgentContext,
    private readonly caps: acp.ClientCapabilities,
    readonly notices: SessionNotices,
    readonly tools: SessionTools,
    /** the session's log on disk (stored is its session) */
    readonly log: SessionLog,
    private readonly catalog: ModelCatalog,
    /** what the session's prompts changed, to go back to (absent: nothing is checkpointed) */
    readonly checkpoints?: SessionCheckpoints,
  ) {
    this.lease = new TurnLease(path.dirname(log.file), stored.sessionId);
    this.nextCall = stored.replay.filter((u) => u.sessionUpdate === 'tool_call').length;
    const own = stored.extras?.[EXTRA_MODEL];
    this.provider = typeof own === 'string' && o.provider?.withModel && own !== o.provider.model ? o.provider.withModel(own) : o.provider;
    this.context = sessionContext(o.newContext, tools, {
      onUsage: (u) => this.send({ sessionUpdate: 'usage_update', used: u.used, size: u.size }),
      onWarning: (text) => this.notice(text),
      onCompaction: (phase, r) => this.#compacted(phase, r),
    });
    if (this.provider !== o.provider) this.context.useProvider(this.provider);
  }

  send(update: acp.SessionUpdate): Promise<void> {
    return this.client.notify(acp.methods.client.session.update, { sessionId: this.stored.sessionId, update });
  }

  notice(text: string): Promise<void> {
    return this.notices.notify(text);
  }

  /** Usage and compactions reach the client as ACP updates; compactions are saved with the session. */
  async #compacted(phase: CompactionPhase, r: CompactionRecord): Promise<void> {
    if (phase === 'completed') {
      // compaction changed history entries in place: the log rewrites rather than appends
      this.log.historyRewritten();
      // and the conversation can no longer go back to before the prompts so far
      this.checkpoints?.historyRewritten();
      const saved = (this.stored.extras?.compactions as CompactionRecord[] | undefined) ?? [];
      this.log.put('compactions', [...saved, r]);
      this.stored.replay.push(compactionUpdate(r, 'completed'));
    }
    if (this.caps.session?.compaction) await this.send(compactionUpdate(r, phase === 'started' ? 'in_progress' : phase));
    else if (phase === 'completed' || phase === 'failed') await this.notice(describeCompaction(r));
  }

  /** Appends what changed to the session's log (see sessions/store.ts); failures become notices. */
  async persist(c: { durable?: boolean; endOfTurn?: boolean } = { durable: true }): Promise<void> {
    this.stored.updatedAt = nowIso();
    try {
      this.stored.allows = this.tools.saveAllows();
      // the whole ledger once, then what changed (a save must not cost the number of files read)
      const changes = this.tools.ledgerChanges();
      if (this.stored.ledger === undefined) this.stored.ledger = this.tools.saveLedger();
      else for (const [p, e] of changes) this.log.noteLedger(p, e);
    } catch (err) {
      this.o.log(`cannot serialise the ledger: ${String(err)}`);
    }
    await this.log.checkpoint(c);
    if (this.log.problem) this.o.log(`cannot save session ${this.stored.sessionId}: ${this.log.problem.message}`);
  }

  /**
   * Sends what was said before the client knew the session, and the slash commands; call as
   * session/new or session/load answers (a timer set as the handler returns fires after the SDK
   * has queued the response).
   */
  announceSoon(): void {
    setTimeout(() => void this.#announce().catch((e) => this.o.log(String(e))), 0);
  }

  /**
   * The custom commands as they are now (read again at each prompt: a file added, changed or
   * trusted counts at once); the client hears of a change, and of a file that is no command.
   */
  async refreshCommands(): Promise<LoadedCommands> {
    try {
      this.#commands = this.o.commands?.(this.stored.cwd, RESERVED_COMMANDS) ?? this.#commands;
    } catch (err) {
      this.o.log(`cannot read the custom commands: ${String(err)}`);
    }
    const list = this.availableCommands();
    const said = JSON.stringify(list);
    if (said !== this.#commandsSaid) {
      this.#commandsSaid = said;
      await this.send({ sessionUpdate: 'available_commands_update', availableCommands: list });
    }
    for (const p of this.#commands.problems) {
      if (this.#problemsSaid.has(p)) continue;
      this.#problemsSaid.add(p);
      await this.notices.notify(`A custom command was not loaded: ${p}.`, { severity: 'warning' });
    }
    return this.#commands;
  }

  /** The built-in commands, then the custom ones with where they come from (`_meta` and the description). */
  availableCommands(): acp.AvailableCommand[] {
    const custom = this.#commands.commands.map((c) => ({
      name: c.name,
      description: `${c.description} (${c.source} command)`,
      ...(c.argumentHint ? { input: { hint: c.argumentHint } } : {}),
      _meta: { [META_COMMAND_SOURCE]: c.source },
    }));
    return [...AVAILABLE_COMMANDS, ...custom];
  }

  async #announce(): Promise<void> {
    const early = this.notices.release();
    // the direct commands and the custom ones, as slash commands the client can offer
    await this.refreshCommands();
    // notices are live events; only the fallback messages belong to the replayed history
    if (early.length && !this.notices.asNotice) this.stored.replay.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${early.map(([t, n]) => (n?.title ? `${n.title}\n${t}` : t)).join('\n')}\n` } });
    for (const n of early) await this.notices.notify(...n);
    void this.#checkModel().catch((e) => this.o.log(String(e)));
  }

  /**
   * In the background as a session opens (and after a model is switched): is a model there? The
   * client hears the model's real name (read from the server when only OPENAI_BASE_URL is set) and
   * the server's models as the `model` option; when the server answered with models to pick from,
   * that one is to be picked (a notice, and `_meta[META_MODEL]` with the list); when none answers,
   * why and what to do. `modelSaid` keeps what the client was told, so a prompt's failure does not
   * print the same advice again.
   */
  async #checkModel(): Promise<void> {
    const provider = this.provider;
    if (!provider) return;
    const c = await checkModel(provider, process.env.OPENAI_API_KEY);
    // switched meanwhile: the switch checks the new one
    if (this.closed || provider !== this.provider) return;
    const was = this.modelSaid;
    this.modelSaid = c.state === 'ok' ? undefined : c.state;
    if (c.state !== 'unreachable') {
      // the server's models, listed once it answers: the client can offer them to switch to
      await this.catalog.refresh();
      if (this.closed) return;
      await this.send({ sessionUpdate: 'config_option_update', configOptions: this.configOptions() });
    }
    if (c.state === 'ok') {
      if (was) await this.send({ sessionUpdate: 'session_info_update', _meta: { [META_MODEL]: { reachable: true } satisfies ModelMeta } });
      return;
    }
    if (c.state === 'pick') {
      const shown = c.models.slice(0, 12).join(', ') + (c.models.length > 12 ? `, … (${c.models.length} in all)` : '');
      const env = provider.name === 'openai' ? ' (or OPENAI_MODEL=NAME)' : ' (or OLLAMA_MODEL=NAME)';
      await this.notices.notify(`Its models: ${shown}.\nPick one with /model (a list to choose from), or start with --model NAME${env}.`, { severity: 'warning', title: `Pick a model: ${c.why}` });
      await this.send({ sessionUpdate: 'session_info_update', _meta: { [META_MODEL]: { reachable: true, pick: c.models.slice(0, 200), problem: c.why } satisfies ModelMeta } });
      return;
    }
    // the title says what; the text under it, how to fix it (howToConfigure's first line is the title's)
    await this.notices.notify(howToConfigure(provider, c.why).split('\n').slice(2).join('\n'), { severity: 'warning', title: `No model is reachable: ${c.why}` });
    await this.send({ sessionUpdate: 'session_info_update', _meta: { [META_MODEL]: { reachable: false, problem: c.why } satisfies ModelMeta } });
  }

  /**
   * `_cxl/shell_run`: a line the person ran in their own shell, kept with the session: replayed as
   * the client showed it, and (`context`, when its output was handed to the agent) read by the
   * model with the next prompt. A session of such lines only is a session to resume: the first
   * names it.
   */
  async recordShellRun(run: ShellRunMeta, context: string | undefined): Promise<void> {
    const text = `$ ${run.command}\n${run.output}`;
    this.stored.replay.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text, _meta: { [META_SHELL_RUN]: run } } });
    this.shellRuns++;
    if (context !== undefined) this.log.put(EXTRA_SHELL_PENDING, [...this.pendingShell(), context]);
    if (!this.stored.title) {
      this.stored.title = `!${run.command.split('\n')[0]}`.replace(/\s+/g, ' ').trim().slice(0, 80);
      await this.send({ sessionUpdate: 'session_info_update', title: this.stored.title, updatedAt: new Date().toISOString() });
    }
    await this.persist();
  }

  /** The `!line` runs the model has not read yet. */
  pendingShell(): string[] {
    const v = this.stored.extras?.[EXTRA_SHELL_PENDING];
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  }

  /** A prompt arrived: the runs recorded since the last one (their count) and their pending text, taken. */
  takeShell(): { recorded: number; pending: string[] } {
    const out = { recorded: this.shellRuns, pending: this.pendingShell() };
    this.shellRuns = 0;
    if (out.pending.length) this.log.put(EXTRA_SHELL_PENDING, []);
    return out;
  }

  /** session/set_mode; a client that follows config options hears of it as `config_option_update`. */
  async setMode(modeId: string): Promise<void> {
    if (await this.#switchMode(modeId)) await this.send({ sessionUpdate: 'config_option_update', configOptions: this.configOptions() });
  }

  async #switchMode(modeId: string): Promise<boolean> {
    const { modes } = this.o.modesFor(this.stored.cwd);
    if (!modes.some((m) => m.id === modeId)) throw unknownMode(modeId, modes);
    if (this.stored.mode === modeId) return false;
    this.stored.mode = modeId;
    this.tools.setMode(modeId);
    await this.persist();
    return true;
  }

  /** session/set_config_option: `mode` (a client that follows `modes` hears of it as `current_mode_update`) or `model`. */
  async setConfigOption(configId: string, value: unknown): Promise<acp.SessionConfigOption[]> {
    const ids = this.configOptions().map((c) => c.id);
    if (!ids.includes(configId)) throw configId === CONFIG_MODEL ? noModelProvider(this.o.providerProblem) : unknownConfigOption(configId, ids);
    if (typeof value !== 'string') throw notASelectValue(configId, value);
    if (configId === CONFIG_MODE) {
      if (await this.#switchMode(value)) await this.send({ sessionUpdate: 'current_mode_update', currentModeId: value });
    } else await this.#switchModel(value);
    return this.configOptions();
  }

  /**
   * Another model of the same server, for the turns that follow; one the server does not list is
   * refused (the agent's own model, from its configuration or --model, never is). The window is
   * read again for it (a 16k model after a 32k one compacts at its own size), and the client hears
   * the usage against it and whether the model answers.
   */
  async #switchModel(model: string): Promise<void> {
    const base = this.o.provider;
    if (!base) throw noModelProvider(this.o.providerProblem);
    if (model === this.provider?.model) return;
    const own = model === base.model && base.model !== SERVER_MODEL;
    const listed = own ? this.catalog.known() : await this.catalog.refresh();
    if (!own && (!base.withModel || !listed?.includes(model))) throw unknownModel(model, listed, base.endpoint);
    this.provider = model === base.model ? base : base.withModel!(model);
    this.context.useProvider(this.provider);
    this.log.put(EXTRA_MODEL, model);
    await this.persist();
    // after the answer: the client has the new option before it hears of the window and the check
    setTimeout(() => void this.#modelSwitched().catch((e) => this.o.log(String(e))), 0);
  }

  /** The model just switched to: its window (usage against it), then whether it answers. */
  async #modelSwitched(): Promise<void> {
    const w = await this.context.window();
    const last = this.context.last;
    if (!this.closed && last) await this.send({ sessionUpdate: 'usage_update', used: last.used, size: w.tokens });
    await this.#checkModel();
  }

  /** session/set_model (unstable, for clients that follow the older `models` field): as `model` through set_config_option, and config-option clients hear of it. */
  async setModel(model: string): Promise<void> {
    const was = this.provider?.model;
    await this.#switchModel(model);
    if (was !== this.provider?.model) await this.send({ sessionUpdate: 'config_option_update', configOptions: this.configOptions() });
  }

  configOptions(): acp.SessionConfigOption[] {
    return configOptions(this.o.modesFor(this.stored.cwd).modes, this.stored.mode, this.provider?.model, this.catalog.known(), this.provider?.model === SERVER_MODEL);
  }

  /** The modes, the config options, the sandbox and whether the session will resume: a session that could not be saved works, but the answer says so. */
  answer(): SessionAnswer {
    const sandbox = this.tools.sandbox?.();
    return {
      modes: modeState(this.o.modesFor(this.stored.cwd).modes, this.stored.mode),
      configOptions: this.configOptions(),
      _meta: { ...(sandbox ? { [META_SANDBOX]: sandbox satisfies SandboxMeta } : {}), ...persistenceMeta(this.log) },
    };
  }

  cancel(): void {
    this.turn?.abort();
  }

  /** The prompts to go back to, newest last: what each changed, and whether its conversation can still be rewound. */
  checkpointList(): CheckpointsMeta {
    const prompts = (this.checkpoints?.prompts() ?? []).map((p) => ({
      n: p.n,
      at: new Date(p.at).toISOString(),
      text: p.text,
      conversation: p.history !== null,
      files: Object.entries(p.files).map(([path, f]) => ({ path, change: f.before === null && !f.lost ? ('created' as const) : f.after === null ? ('deleted' as const) : ('modified' as const), ...(f.lost ? { lost: f.lost } : {}) })),
      ...(p.notes.length ? { notes: p.notes } : {}),
    }));
    return { prompts };
  }

  /** A restore is a write: decided by the session's envelope as it is now. */
  #restoreChecks(): RestoreChecks {
    return { envelope: this.tools.envelope() };
  }

  /** What going back to before prompt `n` would do (the files' diffs, what is kept and why), without doing it. */
  async rewindPlan(n: number, restore: RestoreWhat, o: { diffs?: boolean } = {}): Promise<RewindPlan> {
    if (!this.checkpoints) throw noCheckpoints();
    if (this.turn) throw turnRunning();
    try {
      return await planRewind(this.checkpoints, n, restore, this.#restoreChecks(), o);
    } catch (err) {
      throw acp.RequestError.invalidParams({ n }, (err as Error).message);
    }
  }

  /**
   * Goes back to before prompt `n`: the files (those changed by someone else since only when named
   * in `overwrite`), the conversation, or both. The records of that prompt and later ones go.
   */
  async rewind(n: number, restore: RestoreWhat, overwrite: readonly string[]): Promise<RewindPlan & RewindResult> {
    // the person saw the diffs in the preview: going back needs none
    const plan = await this.rewindPlan(n, restore, { diffs: false });
    const cps = this.checkpoints!;
    const at = cps.prompts().find((p) => p.n === n)!;
    const result: RewindResult = restore === 'conversation' ? { restored: [], skipped: [] } : await applyFiles(cps, plan, new Set(overwrite), this.#restoreChecks());
    // the model has not seen what is there now: a write needs a fresh read
    if (result.restored.length) this.tools.forgetReads(result.restored.map((rel) => `${cps.root}/${rel}`));
    if (plan.conversation && !plan.conversation.cannot && at.history !== null) {
      this.stored.history = this.stored.history.slice(0, at.history);
      this.stored.replay = this.stored.replay.slice(0, at.replay);
      // what the model read in the prompts that are gone, it no longer knows
      const ledger = this.tools.saveLedger() as { entries?: Record<string, { at?: number }> } | undefined;
      this.tools.forgetReads(Object.entries(ledger?.entries ?? {}).filter(([, e]) => (e.at ?? 0) >= at.at).map(([p]) => p));
    }
    cps.dropFrom(n);
    await this.persist({ durable: true, endOfTurn: true });
    return { ...plan, ...result };
  }

  /** Saved as it stands (a call left unanswered is marked cancelled), and its log closed; kept, used or not, for a later process to load. */
  async close(): Promise<void> {
    this.relay?.close();
    this.closed = true;
    await this.persist({ durable: true, endOfTurn: true });
    await this.log.close({ endOfTurn: true });
  }
}

function modeState(modes: SessionMode[], current: string): acp.SessionModeState {
  return { currentModeId: current, availableModes: modes.map((m) => ({ id: m.id, name: m.name, ...(m.description ? { description: m.description } : {}) })) };
}


/** A session's checkpoints, kept under the data dir and saved with the session (`extras`). */
function checkpointsOf(o: AgentOptions, stored: StoredSession, notify: Notify, extra: readonly string[]): SessionCheckpoints | undefined {
  if (!o.checkpointsDir) return undefined;
  let root: string;
  try {
    root = canonicalRoot(stored.cwd);
  } catch {
    return undefined; // no such directory: the tools refuse the session anyway
  }
  return new SessionCheckpoints({
    root,
    ...(extra.length ? { extra } : {}),
    store: new BlobStore(o.checkpointsDir, stored.sessionId, o.checkpointLimits),
    saved: stored.extras,
    // a copy each time: the log writes a key whose value is a new object
    save: (key, value) => ((stored.extras ??= {})[key] = value === undefined ? undefined : structuredClone(value)),
    // a session/update notice the UI shows at once: a full disk or the cap, said when it happens
    notice: (text) => void notify(text, { severity: 'warning', title: 'A change was not checkpointed' }),
  });
}

/**
 * A session's parts put together: notices (held until the client knows the session), its tools,
 * its log (started once the tools are built: a session refused there leaves nothing on disk),
 * saves that fail reported as notices.
 */
export async function openSession(o: AgentOptions, client: acp.AgentContext, caps: acp.ClientCapabilities, stored: StoredSession, mcpServers: acp.McpServer[], makeLog: () => Promise<SessionLog>, catalog: ModelCatalog): Promise<LiveSession> {
  // ACP notices only for a client that shows them; otherwise an agent message says it
  const notices = new SessionNotices(client, stored.sessionId, !!caps.session?.notices);
  if (stored.damagedLines?.length) {
    const file = `${o.store.dir}/${stored.sessionId}.jsonl`;
    const [aside] = stored.damagedLines.filter((l) => l.startsWith('the log as it was'));
    const lines = stored.damagedLines.filter((l) => l !== aside);
    void notices.notify(`Some lines of this session's log were damaged and skipped (${file}: ${lines.slice(0, 5).join('; ')}${lines.length > 5 ? `; and ${lines.length - 5} more` : ''}). The rest of the session is here; what those lines held (a message, a tool result) is missing from it. ${aside ? `${aside[0].toUpperCase()}${aside.slice(1)}.` : 'The log is rewritten without them.'}`, { severity: 'warning', title: 'Damaged lines of the session log were skipped' });
  }
  // its mission tools start units from here: bound to this session, relayed back to it
  const holder: { live?: LiveSession } = {};
  const firing = (): FiringSession => ({ sessionId: stored.sessionId, cwd: stored.cwd, envelope: stored.mode, envelopes: o.modesFor(stored.cwd).modes.map((m) => m.id) });
  const mission = o.fleet?.binding(stored.sessionId, firing, (m) => holder.live?.relay?.watch(m, true));
  // checked again on every open: a directory gone or turned into a link since refuses the session
  const extra = keptAdditionalDirs(stored).length ? sessionAdditionalRoots(stored, canonicalRoot(stored.cwd)) : [];
  const checkpoints = checkpointsOf(o, stored, notices.notify, extra);
  const tools = await o.buildTools({ sessionId: stored.sessionId, cwd: stored.cwd, mode: stored.mode, client, capabilities: caps, mcpServers, ledger: stored.ledger, allows: stored.allows, notice: notices.notify, ...(mission ? { mission } : {}), ...(checkpoints ? { checkpoints } : {}), ...(extra.length ? { extra } : {}) });
  let log: SessionLog;
  try {
    log = await makeLog();
  } catch (err) {
    await tools.close();
    throw err;
  }
  const live = new LiveSession(o, stored, client, caps, notices, tools, log, catalog, checkpoints);
  holder.live = live;
  if (o.fleet) {
    live.relay = new MissionRelay(
      {
        sessionId: stored.sessionId,
        cwd: stored.cwd,
        client,
        // kept for the replay too: a session loaded again shows its units' rows
        send: (u) => (stored.replay.push(u), live.send(u)),
        log: o.log,
      },
      o.fleet.stores,
    );
    live.relay.resume();
  }
  reportSaves(log, notices.notify);
  if (log.problem) log.onProblem?.(log.problem);
  return live;
}
