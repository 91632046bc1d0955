// The session's start, load and close: session/new (with what was typed meanwhile sent after),
// --resume at start and /resume's picker over session/list, session/load or resume, /clear, and
// session/close or session/delete for a session the client leaves. The updates that come before a
// session's answer are kept for it. AcpClient connects and initializes, then hands the session here.
import * as acp from '@agentclientprotocol/sdk';
import type { ClientLink } from './client_link.ts';
import { joinCommandLine } from './connection/command_line.ts';
import { errorDetail, errorText, isAuthRequired } from './connection/request_errors.ts';
import type { ConfigRequests } from './config_options/requests.ts';
import type { LoginRequests } from './login/requests.ts';
import { modelStateOf } from './models/models.ts';
import type { ModelRequests } from './models/requests.ts';
import type { PromptTurn } from './prompt_turn.ts';
import { forwardMcp, type ConfiguredMcpServer } from './session/mcp_forward.ts';
import { newestSession, pickerOrder, sandboxOf } from './session/session_meta.ts';
import type { ClientStore, SandboxView } from './state.ts';

export const ANSWER_TIMEOUT_MS = 30_000;
/** How long quitting or /clear waits for the agent to close the session. */
const CLOSE_WAIT_MS = 1000;

export type ResumeRequest = { kind: 'continue' } | { kind: 'id'; id: string } | { kind: 'pick' };

/** Pages of session/list read for a picker (a page is the agent's choice of size). */
const MAX_LIST_PAGES = 10;

/** Updates kept per unknown session, and unknown sessions kept: a flood cannot grow memory. */
const MAX_BUFFERED = 1000;
const MAX_BUFFERED_SESSIONS = 16;

/** What of the client's options the session's start and load read (ClientOptions has them). */
export interface SessionOptions {
  argv: string[];
  cwd: string;
  builtin?: boolean;
  model?: string;
  envelope?: string;
  sandbox?: SandboxView;
  sessionTimeoutMs?: number;
  mcpServers?: ConfiguredMcpServer[];
}

export interface SessionParts {
  /** the workspace's root, the session's cwd */
  root: string;
  /** the session's additional directories (`cxl --add-dir`), checked and canonical */
  extra: readonly string[];
  /** the client's own terminal host's sandbox, when the agent reports none */
  sandboxState(): SandboxView;
  /** the answers the agent waits for (permissions, forms): every one is cancelled when the session is left */
  waiting: { cancelAll(): void }[];
  login: LoginRequests;
  models: ModelRequests;
  config: ConfigRequests;
}

export class SessionLifecycle {
  readonly #buffered = new Map<string, acp.SessionUpdate[]>();
  /** the agent's MCP capabilities (initialize), which decide the servers forwarded */
  mcpCaps: acp.McpCapabilities | undefined;
  #mcpSaid = false;
  /** the agent offers session/delete: a session this client made and never used is deleted when it leaves it */
  canDelete = false;
  /** the agent takes additionalDirectories (initialize's sessionCapabilities) */
  takesExtraDirs = false;
  #extraSaid = false;

  constructor(
    private readonly link: ClientLink,
    private readonly store: ClientStore,
    private readonly opts: SessionOptions,
    private readonly parts: SessionParts,
    private readonly turns: PromptTurn,
  ) {}

  /** A session/update: to the screen for the session open now, else kept for a session not yet known (its session/new answer may come after). */
  update(n: acp.SessionNotification): void {
    if (this.link.sessionId !== undefined && n.sessionId === this.link.sessionId) {
      // between an abandoned turn and the next prompt, a turn's output is the abandoned turn's
      if (this.turns.takeLate(n)) return;
      this.store.applyUpdate(n.update);
      return;
    }
    let list = this.#buffered.get(n.sessionId);
    if (!list) {
      if (this.#buffered.size >= MAX_BUFFERED_SESSIONS) return;
      list = [];
      this.#buffered.set(n.sessionId, list);
    }
    if (list.length < MAX_BUFFERED) list.push(n.update);
  }

  /**
   * Tell the user when the agent leaves `what` unanswered for too long, naming the command; go on
   * waiting (npx may still be fetching the agent), so nothing typed meanwhile is lost.
   */
  async waitFor<T>(what: string, p: Promise<T>, ms: number): Promise<T> {
    const timer = setTimeout(() => {
      if (this.link.exited) return;
      this.store.setStalled(what);
      this.store.notice(
        'warn',
        `${this.link.agentName} has not answered ${what} after ${Math.round(ms / 1000)} s. Still waiting; the agent command is: ${joinCommandLine(this.opts.argv)}. Its stderr is in the agent log (Ctrl+L); if it is stuck, quit with Ctrl+D and check the command.`,
      );
    }, ms);
    try {
      return await p;
    } finally {
      clearTimeout(timer);
      if (this.store.getState().stalled === what) this.store.setStalled(undefined);
    }
  }

  /** A request of the start failed: say so with the agent's details, unless its exit says it all. */
  async failed(what: string, err: unknown): Promise<void> {
    if (await this.link.agentGone()) return;
    this.store.sessionFailed(`${what}: ${errorText(err)}.`, errorDetail(err));
  }

  /**
   * session/new, in the envelope and with the model asked for; then what was typed meanwhile is
   * sent. Returns whether a session is open; a failure is shown (with a login picker when the agent
   * wants a login), never thrown. `told`: settled once the store has heard of the agent (at
   * start); the answer is handled after it, whenever it comes.
   */
  async open(told?: Promise<void>): Promise<boolean> {
    const conn = this.link.conn;
    if (!conn) return false;
    let res: acp.NewSessionResponse;
    try {
      const answer = conn.agent.request(acp.methods.agent.session.new, { ...this.where(), mcpServers: this.#mcpServers() });
      const handled = told ? answer.then((r) => told.then(() => r), (err: unknown) => told.then(() => Promise.reject(err))) : answer;
      res = await this.waitFor('session/new', handled, this.opts.sessionTimeoutMs ?? ANSWER_TIMEOUT_MS);
    } catch (err) {
      if (isAuthRequired(err) && this.parts.login.offered && !this.link.exited) {
        this.store.sessionFailed(`${this.link.agentName} needs a login before it starts a session: ${errorText(err)}. Pick a login method below (/login shows them again).`, errorDetail(err));
        this.parts.login.offer(errorText(err), 'new_session');
      } else if (isAuthRequired(err) && !this.link.exited) {
        this.store.sessionFailed(`${this.link.agentName} needs a login before it starts a session and offers no login method: ${errorText(err)}. Log in with the agent's own command or set its API key, then start cxl again.`, errorDetail(err));
      } else await this.failed('The agent did not start a session', err);
      return false;
    }
    this.link.sessionId = res.sessionId;
    this.link.used = false;
    this.link.unknownKinds.clear();
    this.store.login.set(undefined);
    this.store.sessionRecovered();
    this.store.setSessionConfig(res.configOptions, res.modes);
    this.#sessionMeta(res._meta);
    this.store.sessionStarted(res.sessionId);
    const models = modelStateOf(res.configOptions, (res as { models?: unknown }).models);
    this.store.models.update(models);
    await this.#askedMode();
    for (const u of this.#buffered.get(res.sessionId) ?? []) this.store.applyUpdate(u);
    this.#buffered.delete(res.sessionId);
    if (this.opts.model && !this.opts.builtin) {
      // The built-in agent got --model on its command line; another agent only through the session.
      if (models) await this.parts.models.switchTo(this.opts.model);
      else this.store.notice('warn', `${this.link.agentName} does not say which models it offers, so --model ${this.opts.model} was not passed; it uses its own default.`);
    }
    this.turns.drain();
    return true;
  }

  /**
   * The person's MCP servers for another agent's session (none for the built-in agent, which
   * reads the same configuration). What cannot be passed shows in the status line, and is said
   * once.
   */
  #mcpServers(): acp.McpServer[] {
    if (this.opts.builtin || !this.opts.mcpServers?.length) return [];
    const { servers, skipped } = forwardMcp(this.opts.mcpServers, this.mcpCaps);
    this.store.setMcpSkipped(skipped);
    if (skipped.length && !this.#mcpSaid) {
      this.#mcpSaid = true;
      this.store.notice('warn', `Not passed to ${this.link.agentName}: MCP server${skipped.length > 1 ? 's' : ''} ${skipped.join('; ')}. The others were passed.`);
    }
    return servers;
  }

  /**
   * Where a session is opened (new, load, resume, fork): its root, and the additional directories
   * when the agent takes them; said once either way, since the person asked for them.
   */
  where(): { cwd: string; additionalDirectories?: string[] } {
    const { root, extra } = this.parts;
    if (!extra.length) return { cwd: root };
    if (!this.#extraSaid) {
      this.#extraSaid = true;
      if (this.takesExtraDirs) this.store.notice('info', `The agent's tools also reach ${extra.join(', ')} (--add-dir).`);
      else this.store.notice('warn', `${this.link.agentName} does not take additional directories (it does not offer sessionCapabilities.additionalDirectories): its tools reach only ${root}, not ${extra.join(', ')}.`);
    }
    return this.takesExtraDirs ? { cwd: root, additionalDirectories: [...extra] } : { cwd: root };
  }

  /** The sandbox the agent reports wins over the client's own terminal host's. */
  #sessionMeta(meta: Record<string, unknown> | null | undefined): void {
    this.store.setSandbox(sandboxOf(meta) ?? this.opts.sandbox ?? this.parts.sandboxState());
  }

  async resumeAtStart(how: ResumeRequest): Promise<void> {
    const st = this.store.getState();
    if (!st.capabilities.loadSession && !st.capabilities.resumeSession) {
      this.store.notice('warn', `${st.agent.name ?? st.agent.label} cannot resume sessions (it offers neither session/load nor session/resume), so this is a new session.`);
      return void (await this.open());
    }
    if (how.kind === 'id') {
      if (await this.loadSession(how.id)) return;
      return void (await this.open());
    }
    const sessions = await this.#listAll();
    if (sessions === undefined) return void (await this.open());
    if (how.kind === 'pick') {
      if (sessions.length === 0) {
        this.store.notice('info', `No earlier session in ${this.parts.root}; this is a new one.`);
        return void (await this.open());
      }
      // The picker's answer opens a session (loadSession) or a new one (newSession).
      this.store.offerSessions({ sessions: pickerOrder(sessions), startup: true });
      return;
    }
    const newest = newestSession(sessions);
    if (!newest) {
      this.store.notice('info', `No earlier session in ${this.parts.root} to continue; this is a new one.`);
      return void (await this.open());
    }
    if (!(await this.loadSession(newest.sessionId))) await this.open();
  }

  /** A session opened or resumed at startup: an --envelope given wins over the mode it starts in. */
  async #askedMode(): Promise<void> {
    const st = this.store.getState();
    const want = this.opts.envelope;
    if (want && st.mode !== want && st.modes.some((m) => m.id === want)) await this.parts.config.setMode(want);
  }

  /** session/list for this root, every page up to a bound; undefined (with a notice) when it fails. */
  async #listAll(): Promise<acp.SessionInfo[] | undefined> {
    const conn = this.link.conn;
    if (!conn) return undefined;
    if (!this.store.getState().capabilities.listSessions) {
      this.store.notice('warn', 'This agent does not list its sessions (no session/list); resume one by id: `/resume ID` or `cxl --resume ID`.');
      return undefined;
    }
    const out: acp.SessionInfo[] = [];
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const res = await conn.agent.request(acp.methods.agent.session.list, { cwd: this.parts.root, ...(cursor ? { cursor } : {}) });
        out.push(...res.sessions.filter((x) => x.cwd === this.parts.root || x.cwd === this.opts.cwd));
        if (!res.nextCursor) break;
        cursor = res.nextCursor;
      }
    } catch (err) {
      this.store.notice('error', `The agent could not list its sessions: ${errorText(err)}`);
      return undefined;
    }
    return out;
  }

  /** /resume: the picker over this root's sessions. */
  async listSessions(): Promise<void> {
    if (this.link.busy('resume a session')) return;
    const caps = this.store.getState().capabilities;
    if (!caps.loadSession && !caps.resumeSession) {
      this.store.notice('warn', 'This agent cannot resume sessions (it offers neither session/load nor session/resume).');
      return;
    }
    const sessions = await this.#listAll();
    if (sessions === undefined) return;
    const others = sessions.filter((x) => x.sessionId !== this.link.sessionId);
    if (others.length === 0) {
      this.store.notice('info', `No other session in ${this.parts.root} to resume.`);
      return;
    }
    this.store.offerSessions({ sessions: pickerOrder(others), startup: false });
  }

  /** The picker closed without a choice: at startup that means a new session. */
  dismissSessions(): void {
    const startup = this.store.getState().sessionChoices?.startup;
    this.store.offerSessions(undefined);
    if (startup && this.link.sessionId === undefined) void this.open();
  }

  /**
   * session/load: the screen starts over and the agent replays the session's history into it;
   * session/resume for an agent that can resume but not load (the history is not shown again).
   * The session left is closed with the agent. Returns whether it worked; on failure the reason
   * is shown.
   */
  async loadSession(id: string): Promise<boolean> {
    const conn = this.link.conn;
    if (!conn || this.link.busy('resume a session')) return false;
    this.store.offerSessions(undefined);
    const previous = this.link.sessionId;
    const atStartup = previous === undefined;
    const replays = this.store.getState().capabilities.loadSession;
    for (const w of this.parts.waiting) w.cancelAll();
    if (previous !== undefined && previous !== id) await this.close(previous);
    this.store.resetConversation(id);
    // The replay comes as session/update for this id before the answer: route it to the screen.
    this.link.sessionId = id;
    this.link.unknownKinds.clear();
    try {
      const mcpServers = this.#mcpServers();
      const res = replays
        ? await conn.agent.request(acp.methods.agent.session.load, { sessionId: id, ...this.where(), mcpServers })
        : await conn.agent.request(acp.methods.agent.session.resume, { sessionId: id, ...this.where(), mcpServers });
      this.store.replayDone();
      this.store.setSessionConfig(res.configOptions, res.modes);
      this.#sessionMeta(res._meta);
      this.store.sessionStarted(id);
      const models = modelStateOf(res.configOptions, (res as { models?: unknown }).models);
      if (models) this.store.models.update(models);
      this.link.used = true;
      if (!replays) this.store.notice('info', `Resumed session ${id}. ${this.link.agentName} resumes without replaying it, so its earlier conversation is not shown here; the agent still has it.`);
      if (atStartup) await this.#askedMode();
      if (atStartup && this.opts.model) await this.parts.models.flag(this.opts.model);
      this.turns.drain();
      return true;
    } catch (err) {
      this.link.sessionId = previous;
      this.store.replayDone();
      this.store.notice('error', `Could not resume session ${id}: ${errorText(err)}.${previous ? '' : ' Starting a new one.'}`);
      if (previous) this.store.sessionStarted(previous);
      return false;
    }
  }

  /** /clear: a new session; the old one is closed with the agent (it stays resumable), or deleted if it was never used. */
  async clear(): Promise<void> {
    if (!this.link.conn || this.link.busy('start a new session')) return;
    this.store.offerSessions(undefined);
    for (const w of this.parts.waiting) w.cancelAll();
    const old = this.link.sessionId;
    const unused = !this.link.used;
    this.store.resetConversation();
    this.link.sessionId = undefined;
    if (old !== undefined) await this.close(old, unused);
    await this.open();
  }

  /**
   * session/close for a session this client leaves, when the agent offers it (its turns stop, its
   * MCP servers end); bounded, since the client goes on either way.
   */
  async close(sessionId: string, unused = sessionId === this.link.sessionId && !this.link.used): Promise<void> {
    const conn = this.link.conn;
    // a session this client made and never used is nobody's: an agent that keeps every session it
    // handed out (cxl's does) would list it among the others at every start
    const discard = unused && this.canDelete;
    if (!conn || this.link.exited || (!discard && !this.store.getState().capabilities.closeSession)) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const method = discard ? acp.methods.agent.session.delete : acp.methods.agent.session.close;
    const request = conn.agent.request(method, { sessionId }).then(
      () => undefined,
      (err: unknown) => this.link.proc?.note(`${method} ${sessionId}: ${errorText(err)}`),
    );
    await Promise.race([request, new Promise<void>((r) => (timer = setTimeout(r, CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
  }

  /**
   * Whether the session can be resumed once this client leaves it: the agent loads sessions, and
   * this one has something in it (one left unused is deleted as this client leaves it).
   */
  get resumable(): boolean {
    return this.link.sessionId !== undefined && this.link.used && this.store.getState().capabilities.loadSession;
  }
}
