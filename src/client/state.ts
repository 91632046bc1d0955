// The client's state: everything the screen shows, built from the agent's session/update
// notifications, the requests it makes, and the agent process's fate. The UI subscribes and
// renders; it never speaks the protocol itself. State only: what answers the agent (a permission
// the user decided) is the client's (permission_answers.ts, acp_client.ts).
import type {
  AvailableCommand,
  ContentBlock,
  PermissionOption,
  PlanEntry,
  SessionConfigOption,
  SessionInfo,
  SessionModeState,
  SessionUpdate,
  ToolCallUpdate,
} from '@agentclientprotocol/sdk';
import { META_MISSION, META_MODEL, META_SHELL_CONTEXT, META_SHELL_RUN, META_TOKENS_AFTER, META_TOKENS_BEFORE, META_TURN_ENDED, type MissionMeta, type ShellRunMeta } from '../core/protocol_names.ts';
import type { AgentExit } from './connection/agent_process.ts';
import { modelStateOf } from './models/models.ts';
import { type ToolCallView } from './session/tool_call.ts';
import { closeUnfinished, finishedPrefix, placeCall } from './session/turn_model.ts';
import { contextOf } from './shell/user_shell.ts';
import type { FileIndexView } from './composer/file_index.ts';
import { ConfigStore, type ConfigSlice } from './config_options/state.ts';
import { ElicitationStore, type ElicitationSlice, type PendingElicitation } from './elicitation/state.ts';
import { LoginStore, type LoginSlice } from './login/state.ts';
import { ModelStore, type ModelChoices, type ModelSlice } from './models/state.ts';
import type { PermissionSlice } from './permissions/state.ts';
import { RewindStore, type RewindSlice, type RewindView } from './rewind/state.ts';
import type { ShellSlice } from './shell/state.ts';
import { TrustStore, type TrustSlice } from './trust/state.ts';
import type { StoreCell } from './session/store_cell.ts';
import type { HistoryItem, LiveItem, PendingPermission, SandboxView, ShellRunView, TerminalView, TextKind } from './session/views.ts';

export type { FileIndexView, ModelChoices, PendingElicitation, RewindView, HistoryItem, LiveItem, PendingPermission, SandboxView, ShellRunView, TerminalView, TextKind };

export type AgentStatus = 'starting' | 'ready' | 'exited';

export interface AgentInfo {
  /** What the user asked for: `cxl acp` or the --agent command line. */
  label: string;
  /** The built-in agent (`cxl acp`), which understands `!cmd` and `/tool`. */
  builtin: boolean;
  name?: string;
  version?: string;
  status: AgentStatus;
  exitCode?: number | null;
  signal?: string | null;
  stderrTail: string[];
  error?: string;
}

/** Context-window use of the session, from the agent's latest `usage_update`. */
export interface UsageView {
  used: number;
  size: number;
}

/** What the agent said it can do (initialize). */
export interface AgentCapabilities {
  loadSession: boolean;
  /** session/resume: the session reopened without its history replayed */
  resumeSession: boolean;
  /** session/close: the client tells the agent it leaves a session */
  closeSession: boolean;
  listSessions: boolean;
  embeddedContext: boolean;
}

/** Sessions offered to resume (the /resume picker, `cxl --resume`); `startup`: no session is open yet. */
export interface SessionChoices {
  sessions: SessionInfo[];
  startup: boolean;
}

/** The store's state: the session's own fields, and each feature's slice as its room declares it. */
export interface ClientState extends PermissionSlice, ElicitationSlice, ConfigSlice, ModelSlice, LoginSlice, TrustSlice, ShellSlice, RewindSlice {
  agent: AgentInfo;
  sessionId?: string;
  cwd: string;
  model?: string;
  envelope?: string;
  mode?: string;
  title?: string;
  /** Finished items, append-only: the screen prints each once (Ink <Static>). */
  history: HistoryItem[];
  /** The unfinished tail of the conversation, re-rendered every frame. */
  live: LiveItem[];
  /** Tool calls of the latest turn, in order (the tool list). */
  turnCalls: string[];
  toolCalls: Record<string, ToolCallView>;
  terminals: Record<string, TerminalView>;
  plan: PlanEntry[];
  running: boolean;
  /** when the running turn began (Date.now()), for the time it has taken */
  runningSince?: number;
  commands: AvailableCommand[];
  /** Prompts typed while a turn runs, sent when it ends. */
  queued: string[];
  usage?: UsageView;
  sandbox?: SandboxView;
  capabilities: AgentCapabilities;
  sessionChoices?: SessionChoices;
  files?: FileIndexView;
  /** Bumped when the conversation is replaced (/clear, a resumed session): the screen starts over. */
  epoch: number;
  /** Replaying a resumed session's history (session/load). */
  loading?: string;
  /** Ctrl+C was pressed and the agent has not ended the turn yet. */
  cancelling: boolean;
  /** When Ctrl+C was pressed (Date.now()), while cancelling. */
  cancelSince?: number;
  /** The agent has let the cancel wait long enough that the screen says so: Ctrl+C again stops waiting. */
  cancelStale?: boolean;
  /** MCP servers of the person's configuration that could not be passed to the agent (the status line says so). */
  mcpSkipped: string[];
  /** Why there is no session (session/new failed): prompts are not sent. */
  sessionError?: string;
  /** The request the agent has not answered in time (`initialize`, `session/new`), while we still wait. */
  stalled?: string;
  /** The agent's stderr, its last lines (the agent log pane). */
  agentLog: string[];
}

export interface StoreOptions {
  label: string;
  builtin?: boolean;
  cwd: string;
  model?: string;
  envelope?: string;
  /** How long after a turn ends late text may still join the last message before it is printed. */
  settleMs?: number;
}

type Listener = () => void;

export function contentText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'resource_link':
      return `[${block.title ?? block.name}](${block.uri})`;
    case 'resource':
      return 'text' in block.resource ? block.resource.text : `[${block.resource.uri}]`;
    case 'image':
      return `[image ${block.mimeType}]`;
    case 'audio':
      return `[audio ${block.mimeType}]`;
    default:
      return '';
  }
}

/** The marker a turn that did not simply finish leaves: what the user did and what the agent answered. */
function cancelledMarker(stopReason: string, userCancelled: boolean): string | undefined {
  if (stopReason === 'abandoned') return 'cancelled: stopped waiting for the agent, which had not ended the turn (the session stays open)';
  if (stopReason === 'cancelled') return 'cancelled';
  if (!userCancelled) return undefined;
  if (stopReason === 'error') return 'cancelled (the agent answered with an error)';
  return `cancelled (the agent answered ${stopReason.replace(/_/g, ' ')})`;
}

/**
 * A replayed prompt's block as the person wrote it: a file in the session root linked or embedded
 * by a mention is `@path` again (a decoded path, never a percent-encoded link).
 */
export function userText(block: ContentBlock, cwd: string): string {
  const uri = block.type === 'resource_link' ? block.uri : block.type === 'resource' ? block.resource.uri : undefined;
  if (uri === undefined || !uri.startsWith('file:')) return contentText(block);
  let p: string;
  try {
    p = decodeURIComponent(new URL(uri).pathname);
  } catch {
    return contentText(block);
  }
  const root = cwd.endsWith('/') ? cwd : `${cwd}/`;
  if (!p.startsWith(root)) return contentText(block);
  const rel = p.slice(root.length);
  return ` ${/\s|"/.test(rel) ? `@"${rel}"` : `@${rel}`}`;
}

/** A replayed `!line` (`_meta["cxl/shellRun"]`), when it is one. */
function shellRunOf(v: unknown): Omit<ShellRunView, 'key' | 'done'> | undefined {
  const r = v as Partial<ShellRunMeta> | undefined;
  if (!r || typeof r !== 'object' || typeof r.command !== 'string' || !r.sandbox || typeof r.sandbox.state !== 'string') return undefined;
  return {
    command: r.command,
    output: typeof r.output === 'string' ? r.output : '',
    truncated: r.truncated === true,
    ...(r.exitCode !== undefined ? { exitCode: r.exitCode } : {}),
    ...(r.signal !== undefined ? { signal: r.signal } : {}),
    sandbox: { state: r.sandbox.state as ShellRunView['sandbox']['state'], ...(typeof r.sandbox.reason === 'string' ? { reason: r.sandbox.reason } : {}) } as ShellRunView['sandbox'],
    handed: r.handed === true,
    ...(typeof r.failed === 'string' ? { failed: r.failed } : {}),
  };
}

export class ClientStore {
  private state: ClientState;
  private listeners = new Set<Listener>();
  private seq = 0;
  private settleTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly settleMs: number;
  /** compaction_summary_chunk text by compaction id, until its compaction_update ends it */
  private readonly compactions = new Map<string, string>();

  constructor(opts: StoreOptions) {
    this.settleMs = opts.settleMs ?? 150;
    this.state = {
      agent: { label: opts.label, builtin: opts.builtin ?? false, status: 'starting', stderrTail: [] },
      cwd: opts.cwd,
      model: opts.model,
      envelope: opts.envelope,
      history: [],
      live: [],
      turnCalls: [],
      toolCalls: {},
      terminals: {},
      plan: [],
      permissions: [],
      elicitations: [],
      running: false,
      commands: [],
      queued: [],
      modes: [],
      configOptions: [],
      mcpSkipped: [],
      capabilities: { loadSession: false, resumeSession: false, closeSession: false, listSessions: false, embeddedContext: false },
      epoch: 0,
      cancelling: false,
      agentLog: [],
      shellContext: [],
    };
  }

  getState = (): ClientState => this.state;

  /** What each feature's part of the store is given: this store's state, read and patched. */
  readonly #cell: StoreCell<ClientState> = { getState: () => this.state, set: (patch) => this.set(patch), key: (prefix) => this.key(prefix) };
  /** Each feature's part of the store, declared in its room's state.ts. */
  readonly rewind = new RewindStore(this.#cell);
  readonly login = new LoginStore(this.#cell);
  readonly trust = new TrustStore(this.#cell);
  readonly models = new ModelStore(this.#cell);
  readonly elicitation = new ElicitationStore(this.#cell);
  readonly config = new ConfigStore(this.#cell);

  subscribe = (fn: Listener): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  private key(prefix: string): string {
    return `${prefix}${++this.seq}`;
  }

  private set(patch: Partial<ClientState>): void {
    this.state = { ...this.state, ...patch };
    for (const l of this.listeners) l();
  }

  // ---- agent and session -------------------------------------------------------------------

  agentReady(info: { name?: string; version?: string }): void {
    this.set({ agent: { ...this.state.agent, ...info, status: 'ready' } });
  }

  sessionStarted(sessionId: string, info: { model?: string; mode?: string } = {}): void {
    this.set({ sessionId, model: info.model ?? this.state.model, mode: info.mode ?? this.state.mode });
  }

  setCapabilities(capabilities: AgentCapabilities): void {
    this.set({ capabilities });
  }

  /**
   * What a session/new, load or resume answered about its configuration: the config options (the
   * source of truth when there are any: modes from the `mode` option, models from `model`), the
   * `modes` field as the fallback.
   */
  setSessionConfig(configOptions: SessionConfigOption[] | null | undefined, modes: SessionModeState | null | undefined): void {
    this.config.setSession(configOptions, modes);
    const models = modelStateOf(configOptions, undefined);
    if (models) this.models.update(models);
  }

  /** The full set of config options, as config_option_update and set_config_option's answer give it, with what they say of the model. */
  setConfigOptions(configOptions: SessionConfigOption[]): void {
    this.config.setOptions(configOptions);
    const models = modelStateOf(configOptions);
    if (models) return this.models.update(models);
    const model = configOptions.find((o) => o.category === 'model');
    if (model && 'currentValue' in model && typeof model.currentValue === 'string') this.set({ model: model.currentValue });
  }

  setMcpSkipped(skipped: string[]): void {
    this.set({ mcpSkipped: skipped });
  }

  setModel(model: string | undefined): void {
    this.set({ model });
  }

  setSandbox(sandbox: SandboxView | undefined): void {
    this.set({ sandbox });
  }

  offerSessions(choices: SessionChoices | undefined): void {
    this.set({ sessionChoices: choices });
  }

  setFiles(files: FileIndexView): void {
    this.set({ files });
  }

  /**
   * The conversation on screen is replaced (a new session, or one being resumed whose history
   * the agent replays next): everything of the old one is dropped and the screen starts over.
   */
  resetConversation(loading?: string): void {
    clearTimeout(this.settleTimer);
    this.set({
      sessionId: undefined,
      title: undefined,
      history: [],
      live: [],
      turnCalls: [],
      toolCalls: {},
      terminals: {},
      plan: [],
      running: false,
      commands: [],
      usage: undefined,
      loading,
      cancelling: false,
      cancelSince: undefined,
      cancelStale: undefined,
      epoch: this.state.epoch + 1,
    });
    this.compactions.clear();
  }

  /** session/load answered: the replayed history is printed and the next turn starts clean. */
  replayDone(): void {
    this.flush(true);
    this.commitPlan();
    this.set({ loading: undefined, turnCalls: [], plan: [] });
  }

  /** The plan of a turn that is over stays in history, as a summary row. */
  private commitPlan(): void {
    const entries = this.state.plan;
    if (entries.length === 0) return;
    this.flush(true);
    this.set({ plan: [], history: [...this.state.history, { kind: 'plan', key: this.key('l'), entries }] });
  }

  /** Something for the user to read in the scrollback (the /help text). */
  info(title: string, lines: string[]): void {
    this.flush(true);
    this.pushHistory({ kind: 'info', key: this.key('i'), title, lines });
  }

  setStderrTail(lines: string[]): void {
    this.set({ agent: { ...this.state.agent, stderrTail: lines } });
  }

  setAgentLog(lines: string[]): void {
    this.set({ agentLog: lines });
  }

  /** `what` has gone unanswered for too long (undefined: answered after all). */
  setStalled(what: string | undefined): void {
    this.set({ stalled: what });
  }

  /**
   * No session could be opened: say why (with the agent's details), and that what was typed
   * meanwhile was not sent.
   */
  sessionFailed(text: string, detail: string[] = []): void {
    const queued = this.state.queued;
    this.set({ sessionError: text, queued: [] });
    this.notice('error', text, detail.length ? detail : undefined);
    if (queued.length) this.notice('warn', `Not sent (there is no session): ${queued.map((q) => `“${q.split('\n')[0]}”`).join(', ')}. ↑ in the composer recalls them.`);
  }

  /** A session is open after all (after a login): prompts go out again. */
  sessionRecovered(): void {
    this.set({ sessionError: undefined });
  }

  /** The agent process ended (or could not start): its unfinished calls are closed and the exit is reported. */
  agentExited(exit: AgentExit & { stderrTail: string[]; stdoutNoise?: string }): void {
    const toolCalls = closeUnfinished(this.state, this.state.turnCalls, 'cancelled');
    const how = exit.missing
      ? `the agent could not start: ${exit.missing} was not found (is it installed, and on PATH?)`
      : exit.error
        ? `the agent could not start: ${exit.error}`
        : exit.signal
          ? `the agent was killed by ${exit.signal}`
          : `the agent exited with code ${exit.code}`;
    const noise = exit.stdoutNoise ? ` ${exit.stdoutNoise}` : '';
    const agent: AgentInfo = { ...this.state.agent, status: 'exited', exitCode: exit.code, signal: exit.signal, stderrTail: exit.stderrTail, error: exit.error };
    this.set({ agent, toolCalls, running: false, cancelling: false });
    this.flush(true);
    this.pushHistory({
      kind: 'notice',
      key: this.key('n'),
      level: 'error',
      text: `${how}.${noise} ${exit.stderrTail.length ? 'Its last stderr lines are below; quit' : 'Quit'} with Ctrl+D and start cxl again.`,
      detail: exit.stderrTail,
    });
  }

  /** A mission unit's row: printed once, between what the turn had said and what it says next. */
  private missionRow(meta: MissionMeta): void {
    this.flush(true);
    this.pushHistory({ kind: 'mission', key: this.key('m'), meta });
  }

  notice(level: 'info' | 'warn' | 'error', text: string, detail?: string[]): void {
    this.flush(true);
    this.pushHistory({ kind: 'notice', key: this.key('n'), level, text, detail });
  }

  private pushHistory(item: HistoryItem): void {
    this.set({ history: [...this.state.history, item] });
  }

  // ---- turns --------------------------------------------------------------------------------

  /** How the composer showed a prompt about to be sent (its long pastes collapsed), by its text. */
  private readonly shownAs = new Map<string, string>();

  noteShown(text: string, shown: string): void {
    if (this.shownAs.size > 100) this.shownAs.clear();
    this.shownAs.set(text, shown);
  }

  /** The user sent a prompt: what is left of the previous turn goes to history. */
  beginTurn(text: string): void {
    clearTimeout(this.settleTimer);
    this.closeTurn();
    this.commitPlan();
    const shown = this.shownAs.get(text);
    this.shownAs.delete(text);
    this.set({
      running: true,
      runningSince: Date.now(),
      turnCalls: [],
      plan: [],
      history: [...this.state.history, { kind: 'user', key: this.key('u'), text, ...(shown !== undefined ? { shown } : {}) }],
    });
  }

  /**
   * The agent answered the prompt (`error`: the request failed, the caller says why; `abandoned`:
   * the user stopped waiting for a cancel the agent did not complete). A turn the user cancelled
   * always ends with the `cancelled` marker, whatever the agent answered, and says what that was.
   */
  endTurn(stopReason: string): void {
    const userCancelled = this.state.cancelling;
    this.set({ running: false, runningSince: undefined, cancelling: false, cancelSince: undefined, cancelStale: undefined });
    if (userCancelled || stopReason === 'cancelled' || stopReason === 'error' || stopReason === 'abandoned') {
      this.set({ toolCalls: closeUnfinished(this.state, this.state.turnCalls, 'cancelled') });
      this.flush(true);
      this.commitPlan();
      const text = cancelledMarker(stopReason, userCancelled);
      if (text) this.pushHistory({ kind: 'marker', key: this.key('m'), text });
    } else if (stopReason !== 'end_turn') this.notice('warn', `the turn ended: ${stopReason.replace(/_/g, ' ')}`);
    this.flushCompactions();
    this.flush(false);
    this.scheduleSettle();
  }

  /** The agent has not ended a cancelled turn for a while: the screen says so, and how to stop waiting. */
  cancelOverdue(seconds: number): void {
    if (!this.state.cancelling || this.state.cancelStale) return;
    this.set({ cancelStale: true });
    this.notice('warn', `${this.state.agent.name ?? this.state.agent.label} has not ended the turn ${seconds} s after Ctrl+C. Press Ctrl+C again to stop waiting for it; the session stays open.`);
  }

  /**
   * The turn is over for the screen (settled, or the next prompt was sent): what the agent left
   * unfinished is closed as left pending, and everything of the turn goes to history in order.
   */
  private closeTurn(): void {
    if (this.state.running) return this.flush(true);
    const toolCalls = closeUnfinished(this.state, this.state.turnCalls, 'left_pending');
    if (toolCalls !== this.state.toolCalls) this.set({ toolCalls });
    this.flush(true);
    this.commitPlan();
  }

  queuePrompt(text: string): void {
    this.set({ queued: [...this.state.queued, text] });
  }

  /** Every prompt still queued, taken back (a cancelled turn: the person edits them rather than have them sent). */
  takeAllQueued(): string[] {
    const all = this.state.queued;
    if (all.length) this.set({ queued: [] });
    return all;
  }

  takeQueued(): string | undefined {
    const [first, ...rest] = this.state.queued;
    if (first !== undefined) this.set({ queued: rest });
    return first;
  }

  private scheduleSettle(): void {
    clearTimeout(this.settleTimer);
    if (this.state.running) return;
    this.settleTimer = setTimeout(() => this.closeTurn(), this.settleMs);
  }

  /** The user pressed Ctrl+C: unfinished calls are closed and the turn shows `cancelling…` until it ends. */
  cancelTurn(): void {
    const cancelling = this.state.running;
    this.set({ toolCalls: closeUnfinished(this.state, this.state.turnCalls, 'cancelled'), cancelling, cancelSince: cancelling ? (this.state.cancelSince ?? Date.now()) : undefined });
    this.flush(false);
  }

  /**
   * Move the finished prefix of the live items to history. A text item is finished when
   * something follows it, or (`settled`) when the turn is over.
   */
  private flush(settled: boolean): void {
    const { moved, count } = finishedPrefix(this.state, settled, (id) => this.terminalsOf(id));
    if (count === 0) return;
    this.set({ live: this.state.live.slice(count), history: [...this.state.history, ...moved] });
  }

  terminalsOf(callId: string): TerminalView[] {
    const call = this.state.toolCalls[callId];
    if (!call) return [];
    return call.content.flatMap((c) => (c.type === 'terminal' && this.state.terminals[c.terminalId] ? [this.state.terminals[c.terminalId]] : []));
  }

  // ---- session/update -------------------------------------------------------------------------

  applyUpdate(update: SessionUpdate): void {
    switch (update.sessionUpdate) {
      case 'agent_message_chunk': {
        // a row about a unit this session fired, drawn as such (its text is for other clients)
        const mission = update._meta?.[META_MISSION] as MissionMeta | undefined;
        if (mission && typeof mission === 'object' && typeof mission.missionId === 'string') return this.missionRow(mission);
        return this.appendText('agent', contentText(update.content));
      }
      case 'agent_thought_chunk':
        return this.appendText('thought', contentText(update.content));
      case 'user_message_chunk': {
        // a resumed session's `!line`, as the screen showed it when it ran
        const run = update.content.type === 'text' ? shellRunOf(update.content._meta?.[META_SHELL_RUN]) : undefined;
        if (run) {
          this.flush(true);
          return this.pushHistory({ kind: 'shell', key: this.key('s'), run: { ...run, key: this.key('sh'), done: true } });
        }
        // a resumed session's shell output, as it was sent with its prompt (sessions kept before each run was)
        if (update.content.type === 'text' && update.content._meta?.[META_SHELL_CONTEXT] !== undefined) {
          this.flush(true);
          return this.pushHistory({ kind: 'shell', key: this.key('s'), sent: update.content.text });
        }
        const text = userText(update.content, this.state.cwd);
        // a mention the prompt's text already has is not said twice
        const last = this.state.live.at(-1);
        if (update.content.type !== 'text' && last?.kind === 'user' && last.text.includes(text.trim())) return;
        return this.appendText('user', text);
      }
      case 'tool_call':
        return this.upsertCall(update, true);
      case 'tool_call_update':
        return this.upsertCall(update, false);
      case 'plan':
        return this.set({ plan: update.entries });
      case 'available_commands_update':
        return this.set({ commands: update.availableCommands });
      case 'current_mode_update':
        return this.config.setMode(update.currentModeId);
      case 'session_info_update':
        if (typeof update.title === 'string') this.set({ title: update.title });
        // cxl acp says when no model answers (and the status line says so until one does)
        if (update._meta?.[META_MODEL] && typeof update._meta[META_MODEL] === 'object') {
          const m = update._meta[META_MODEL] as { reachable?: boolean; problem?: string; pick?: unknown };
          const pick = m.reachable !== false && Array.isArray(m.pick) ? m.pick.filter((x): x is string => typeof x === 'string') : [];
          this.set({ modelProblem: m.reachable === false ? (m.problem ?? 'no model answers') : undefined, modelPick: pick.length ? pick : undefined });
        }
        // cxl acp's replay marks where a turn was cancelled
        if (update._meta?.[META_TURN_ENDED] === 'cancelled') {
          this.set({ toolCalls: closeUnfinished(this.state, this.state.turnCalls, 'cancelled') });
          this.flush(true);
          this.commitPlan();
          this.pushHistory({ kind: 'marker', key: this.key('m'), text: 'cancelled' });
        }
        return;
      case 'config_option_update':
        return this.setConfigOptions(update.configOptions);
      case 'usage_update':
        // a request was answered: a model is there after all
        if (Number.isFinite(update.used) && Number.isFinite(update.size) && update.size > 0) this.set({ usage: { used: update.used, size: update.size }, modelProblem: undefined });
        return;
      case 'compaction_update':
        return this.compaction(update);
      case 'compaction_summary_chunk':
        return this.summaryChunk(update.compactionId, contentText(update.content));
      case 'notice':
        return this.notice(update.severity === 'error' ? 'error' : update.severity === 'warning' ? 'warn' : 'info', update.title, update.description ? update.description.split(/\r?\n/) : undefined);
      default:
        return;
    }
  }

  /**
   * The agent compacted the conversation (cxl acp puts the token counts in `_meta`). Its summary
   * is the update's own, else what compaction_summary_chunk updates streamed for it.
   */
  private compaction(u: { compactionId: string; status: string; error?: string | null; summary?: ContentBlock[] | null; _meta?: Record<string, unknown> | null }): void {
    if (u.status === 'in_progress') return;
    const streamed = this.compactions.get(u.compactionId) ?? '';
    this.compactions.delete(u.compactionId);
    const before = u._meta?.[META_TOKENS_BEFORE];
    const after = u._meta?.[META_TOKENS_AFTER];
    const counts = typeof before === 'number' && typeof after === 'number' ? `: ${before.toLocaleString('en-US')} → ${after.toLocaleString('en-US')} tokens` : '';
    const summary = (u.summary ? u.summary.map(contentText).join('') : streamed).trim();
    if (u.status === 'completed') this.notice('info', `The conversation was compacted${counts}.`, summary ? summary.split('\n').slice(0, 12) : undefined);
    else this.notice('warn', `Compaction ${u.status}${u.error ? `: ${u.error}` : ''}.`);
  }

  /** compaction_summary_chunk: a piece of a summary being written, shown when its compaction ends (or the turn does). */
  private summaryChunk(compactionId: string, text: string): void {
    this.compactions.set(compactionId, (this.compactions.get(compactionId) ?? '') + text);
  }

  /** Summaries whose compaction never said it ended are shown as they stand when the turn ends. */
  private flushCompactions(): void {
    for (const [, text] of this.compactions) if (text.trim()) this.notice('info', 'The agent is compacting the conversation; its summary so far:', text.trim().split('\n').slice(0, 12));
    this.compactions.clear();
  }

  private appendText(kind: TextKind, text: string): void {
    if (text === '') return;
    // a replayed prompt starts the next turn: the plan of the one before stays in history
    if (kind === 'user' && this.state.loading && this.state.live.at(-1)?.kind !== 'user') this.commitPlan();
    const live = this.state.live;
    const last = live[live.length - 1];
    if (last && last.kind === kind) {
      this.set({ live: [...live.slice(0, -1), { ...last, text: last.text + text }] });
    } else {
      this.set({ live: [...live, { kind, key: this.key('t'), text }] });
      this.flush(false);
    }
    this.scheduleSettle();
  }

  private upsertCall(update: ToolCallUpdate, announce: boolean): void {
    const id = update.toolCallId;
    const placed = placeCall(this.state, update, announce);
    const call = placed.call;
    const patch: Partial<ClientState> = { toolCalls: { ...this.state.toolCalls, [id]: call } };
    if (placed.kind === 'late') {
      // Already printed: the update is a row of its own against that call, never a second copy.
      if (placed.visible) patch.history = [...this.state.history, { kind: 'tool', key: this.key('c'), call, terminals: this.terminalsOf(id), late: true }];
      return this.set(patch);
    }
    if (!this.state.turnCalls.includes(id)) patch.turnCalls = [...this.state.turnCalls, id];
    if (placed.isNew) patch.live = [...this.state.live, { kind: 'tool', key: this.key('c'), id }];
    const permissions = this.state.permissions.map((p) => (p.call.id === id ? { ...p, call } : p));
    if (permissions.some((p, i) => p !== this.state.permissions[i])) patch.permissions = permissions;
    this.set(patch);
    this.flush(false);
  }

  // ---- terminals (served by the client) ------------------------------------------------------

  updateTerminal(view: TerminalView): void {
    this.set({ terminals: { ...this.state.terminals, [view.id]: view } });
    if (view.done) this.flush(false);
  }

  // ---- permissions ----------------------------------------------------------------------------

  /**
   * session/request_permission: the call is shown with its options until `removePermission`.
   * Returns the key it is queued under; the client waits for the answer (permission_answers.ts).
   */
  addPermission(sessionId: string, toolCall: ToolCallUpdate, options: PermissionOption[]): string {
    // Asking about a call already done with (an id reused): a new call to show live.
    const placed = placeCall(this.state, toolCall, true);
    const call = { ...placed.call, asked: true };
    const key = this.key('p');
    const patch: Partial<ClientState> = {
      toolCalls: { ...this.state.toolCalls, [call.id]: call },
      permissions: [...this.state.permissions, { key, sessionId, call, options, ...(toolCall._meta ? { meta: toolCall._meta } : {}) }],
    };
    if (!this.state.turnCalls.includes(call.id)) patch.turnCalls = [...this.state.turnCalls, call.id];
    if (placed.kind === 'live' && placed.isNew) patch.live = [...this.state.live, { kind: 'tool', key: this.key('c'), id: call.id }];
    this.set(patch);
    return key;
  }

  /** The permission was answered (or withdrawn): its call shows as a call again. */
  removePermission(key: string): void {
    this.set({ permissions: this.state.permissions.filter((p) => p.key !== key) });
    this.flush(false);
  }

  /** Ctrl+O: print a call's whole output into the scrollback. */
  showFullOutput(callId: string, title: string, text: string): void {
    this.pushHistory({ kind: 'output', key: this.key('o'), title, text });
  }

  // ---- the person's own shell ------------------------------------------------------------------

  /** A `!line` run changed (output came, or it ended): shown live, then kept in history, its output for the next prompt. */
  shellUpdate(run: ShellRunView): void {
    if (!run.done) return this.set({ shell: run });
    this.flush(true);
    const shellContext = run.handed ? [...this.state.shellContext, contextOf(run)] : this.state.shellContext;
    this.set({ shell: undefined, shellContext, history: [...this.state.history, { kind: 'shell', key: this.key('s'), run }] });
  }

  /** The shell output owed to the agent, taken for the prompt being sent. */
  takeShellContext(): string[] {
    const runs = this.state.shellContext;
    if (runs.length) this.set({ shellContext: [] });
    return runs;
  }

  /** Print what the ended turn left in the live region now, without waiting for late text. */
  settle(): void {
    clearTimeout(this.settleTimer);
    this.closeTurn();
  }

  dispose(): void {
    clearTimeout(this.settleTimer);
  }
}
