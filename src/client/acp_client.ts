// The ACP client: spawns the agent, speaks the protocol, serves fs/* and terminal/* from this
// machine, routes permission requests to the user, and turns every notification into store
// state. Tolerant of real agents: updates before session/new answers, or for a session not yet
// known, are buffered; updates after a turn's answer are applied; updates of a kind the SDK does
// not know go to the agent log; a cancel the agent never completes can be stopped waiting for;
// a dying agent is reported, with what it wrote on stdout that was not ACP.
import process from 'node:process';
import * as acp from '@agentclientprotocol/sdk';
import pkg from '../../package.json' with { type: 'json' };
import { META_HOST, META_SANDBOX, META_SHELL_RUN, META_TRUST_PROMPT, OPTION_READ_ALLOW, OPTION_READ_REFUSE, type HostMeta } from '../core/protocol_names.ts';
import { AgentProcess } from './connection/agent_process.ts';
import type { AgentEnd } from './connection/remote_agent.ts';
import { authMethodsOf } from './login/auth.ts';
import { LoginRequests } from './login/requests.ts';
import type { TrustOffer } from './trust/trust_offer.ts';
import { TrustRequests } from './trust/requests.ts';
import { joinCommandLine } from './connection/command_line.ts';
import { ConfigRequests } from './config_options/requests.ts';
import { FileIndex } from './composer/file_index.ts';
import { ElicitationAnswers, type ElicitationControls } from './elicitation/elicitation_answers.ts';
import { ELICITATION_CAPS, elicit } from './elicitation/requests.ts';
import { FsHost } from './hosts/fs_host.ts';
import { forwardMcp, type ConfiguredMcpServer } from './session/mcp_forward.ts';
import { modelStateOf } from './models/models.ts';
import { ModelRequests } from './models/requests.ts';
import { errorDetail, errorText, isAuthRequired } from './connection/request_errors.ts';
import { PermissionAnswers, type PermissionControls } from './permissions/permission_answers.ts';
import { requestPermission } from './permissions/requests.ts';
import { newestSession, pickerOrder, sandboxOf } from './session/session_meta.ts';
import { forkFor, type ForkControls } from './fork/requests.ts';
import { RewindRequests } from './rewind/requests.ts';
import { ClientLink } from './client_link.ts';
import { PromptTurn } from './prompt_turn.ts';
import { ClientStore, type SandboxView } from './state.ts';
import { noiseExplained, StdoutNoise } from './connection/stdout_noise.ts';
import { TerminalHost } from './hosts/terminal_host.ts';
import { AgentKeepsRuns, HANDED_ONLY, ShellRequests } from './shell/requests.ts';
import { UserShell } from './shell/user_shell.ts';
import { updateGuard, type UnknownUpdate } from './connection/update_guard.ts';

export interface ClientOptions {
  argv: string[];
  /** How the status line names the agent until it introduces itself. */
  label: string;
  builtin?: boolean;
  cwd: string;
  model?: string;
  envelope?: string;
  env?: Record<string, string | undefined>;
  settleMs?: number;
  /** Resume instead of starting fresh: the newest session here, a given one, or a picker. */
  resume?: ResumeRequest;
  /** The sandbox of this client's own terminal host, shown when the agent reports none. */
  sandbox?: SandboxView;
  /** The agent, already spawned (the UI starts it before this module has loaded); else `argv` is spawned by start(). */
  process?: AgentEnd;
  /** How long `initialize`, then `session/new`, may go unanswered before the user is told (the client keeps waiting). */
  initTimeoutMs?: number;
  sessionTimeoutMs?: number;
  /** The person's own MCP servers, passed to an agent that is not the built-in one (which reads them itself). */
  mcpServers?: ConfiguredMcpServer[];
  /** How long a cancelled turn may stay unended before the screen says so and offers to stop waiting. */
  cancelNoticeMs?: number;
  /** This folder's own configuration is held back (the built-in agent): offered at start (trust_offer.ts). */
  trust?: TrustOffer;
}

const ANSWER_TIMEOUT_MS = 30_000;
/** How long quitting or /clear waits for the agent to close the session. */
const CLOSE_WAIT_MS = 1000;

export type ResumeRequest = { kind: 'continue' } | { kind: 'id'; id: string } | { kind: 'pick' };

/** Pages of session/list read for a picker (a page is the agent's choice of size). */
const MAX_LIST_PAGES = 10;

/** Updates kept per unknown session, and unknown sessions kept: a flood cannot grow memory. */
const MAX_BUFFERED = 1000;
const MAX_BUFFERED_SESSIONS = 16;

/** The client: the protocol's handlers, the session's start, load and close, the prompt turn; each feature's slice is its room's own object (`client.rewind`, `client.models`, …). */
export class AcpClient {
  readonly store: ClientStore;
  readonly fsHost: FsHost;
  readonly terminals: TerminalHost;
  /** The workspace's files, for @-mention completion. */
  readonly files: FileIndex;
  /** The person's own shell (`!line`), which the screen runs whatever the agent. */
  readonly userShell: UserShell;
  /** Permission requests waiting for the user; the screen answers them through `permissions`. */
  readonly #permissions: PermissionAnswers;
  /** Forms the agent asked for; the screen answers them through `elicitation`. */
  readonly #forms: ElicitationAnswers;
  #buffered = new Map<string, acp.SessionUpdate[]>();
  #quit!: () => void;
  /** Resolves when the user quits. */
  readonly quitRequested = new Promise<void>((r) => (this.#quit = r));
  #mcpCaps: acp.McpCapabilities | undefined;
  /** Resolves once the agent's exit is on screen. */
  #exitReported: Promise<void> | undefined;
  #mcpSaid = false;
  /** the agent offers session/delete: a session this client made and never used is deleted when it leaves it */
  #canDelete = false;
  /** /fork (client/fork/): session/fork's requests, or the object saying the agent does not offer it */
  get fork(): ForkControls {
    return this.#fork;
  }

  /** What the features' requests see of this client. */
  readonly #link: ClientLink;
  /** the prompt turn: send, the queue, Ctrl+C and a turn stopped waiting for */
  readonly #turns: PromptTurn;
  /** /rewind, /undo, Esc Esc: the way back (client/rewind/) */
  readonly rewind: RewindRequests;
  /** /model, --model: the session's models (client/models/) */
  readonly models: ModelRequests;
  /** Shift+Tab, /mode, /config: the session's modes and config options (client/config_options/) */
  readonly config: ConfigRequests;
  /** /login and the login picker: `authenticate` (client/login/) */
  readonly login: LoginRequests;
  /** /trust and the trust prompt (client/trust/) */
  readonly trust: TrustRequests;
  /** `!line`: the person's own shell, kept with the session by an agent that keeps runs (client/shell/) */
  readonly shell: ShellRequests;
  /** session/fork's requests, or the object saying the agent does not offer it (chosen on initialize) */
  #fork: ForkControls;
  readonly #stdoutNoise = new StdoutNoise((line) => this.#link.proc?.note(`the agent wrote on stdout, not ACP: ${line}`));

  /** the environment the trust record and the agent see (HOME decides where ~/.contenox is) */
  readonly #env: Record<string, string | undefined>;
  constructor(readonly opts: ClientOptions) {
    // Another agent's model is what its session says, not what was asked for.
    this.store = new ClientStore({ label: opts.label, builtin: opts.builtin, cwd: opts.cwd, model: opts.builtin ? opts.model : undefined, envelope: opts.envelope, settleMs: opts.settleMs });
    this.#link = new ClientLink(this.store, () => ({ loadSession: (id) => this.loadSession(id), openSession: () => this.#newSession(), closeSession: (id) => this.#closeSession(id) }));
    this.fsHost = new FsHost(opts.cwd, (rel) => this.#askRead(rel));
    this.terminals = new TerminalHost(this.fsHost.root, (v) => this.store.updateTerminal(v));
    this.files = new FileIndex(this.fsHost.root, (v) => this.store.setFiles(v));
    this.userShell = new UserShell(this.fsHost.root, { env: opts.env ?? process.env });
    this.#permissions = new PermissionAnswers(this.store);
    this.#forms = new ElicitationAnswers(this.store);
    this.#env = opts.env ?? process.env;
    this.rewind = new RewindRequests(this.#link, this.store);
    this.models = new ModelRequests(this.#link, this.store, opts.builtin === true);
    this.config = new ConfigRequests(this.#link, this.store);
    this.login = new LoginRequests(this.#link, this.store);
    this.trust = new TrustRequests(this.#link, this.store, this.#env);
    this.shell = new ShellRequests(this.userShell, this.store);
    this.#fork = forkFor(false, this.#link, this.store, this.fsHost.root);
    this.#turns = new PromptTurn(this.#link, this.store, { root: this.fsHost.root, login: this.login, waiting: [this.#permissions, this.#forms], userShell: this.userShell, cancelNoticeMs: opts.cancelNoticeMs });
    if (opts.trust) {
      // what trusting would change; why it is held back and what to do is the trust prompt's, once
      this.store.info(`What trusting ${opts.trust.dir} would change`, opts.trust.preview);
      this.store.trust.set(opts.trust);
    }
  }

  /** The form's keys: the person sent, declined or cancelled the form queued under `key` (client/elicitation/). */
  get elicitation(): ElicitationControls {
    return this.#forms;
  }

  /** The approval's keys answer the permission request queued under `key` (client/permissions/). */
  get permissions(): PermissionControls {
    return this.#permissions;
  }

  /** The @ list opened: list the workspace's files (again, when the listing is old). */
  refreshFiles(): void {
    void this.files.refresh();
  }

  get sessionId(): string | undefined {
    return this.#link.sessionId;
  }

  /**
   * The sandbox the session's commands run in, for the status line: what the agent
   * reported on session/new, else this client's own terminal host's (when it runs the commands).
   */
  sandboxState(): SandboxView {
    return this.store.getState().sandbox ?? this.terminals.sandboxState();
  }

  /** A read-approve file (.env, keys): the user decides, as for any other approval. */
  async #askRead(rel: string): Promise<boolean> {
    const out = await this.#permissions.ask(
      this.#link.sessionId ?? '',
      { toolCallId: `client-read-${rel}-${Date.now()}`, title: `The agent wants to read ${rel}`, kind: 'read', status: 'pending', locations: [{ path: rel }] },
      [
        { optionId: OPTION_READ_ALLOW, name: 'Allow this read', kind: 'allow_once' },
        { optionId: OPTION_READ_REFUSE, name: 'Refuse', kind: 'reject_once' },
      ],
    );
    return out.outcome === 'selected' && out.optionId === OPTION_READ_ALLOW;
  }

  #onUpdate(n: acp.SessionNotification): void {
    if (this.#link.sessionId !== undefined && n.sessionId === this.#link.sessionId) {
      // between an abandoned turn and the next prompt, a turn's output is the abandoned turn's
      if (this.#turns.takeLate(n)) return;
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

  /** An update the SDK would not parse: kept in the agent log, and said once per kind in the conversation. */
  #onUnknownUpdate(u: UnknownUpdate): void {
    this.#link.proc?.note(`an update of a kind this client does not know (${u.kind}) for session ${u.sessionId}: ${JSON.stringify(u.raw).slice(0, 2000)}`);
    if (u.sessionId !== this.#link.sessionId || this.#link.unknownKinds.has(u.kind)) return;
    this.#link.unknownKinds.add(u.kind);
    this.store.notice('info', `${this.#link.agentName} sent an update this client does not show (${u.kind}); it is in the agent log (Ctrl+L).`);
  }

  /**
   * What the SDK reports on the console (a message it could not parse, an update it dropped):
   * into the agent log, never onto the terminal the screen draws on. A dropped session/update is
   * also said once in the conversation.
   */
  sdkLog(level: string, args: unknown[]): void {
    const text = args.map((a) => (typeof a === 'string' ? a : safeJson(a))).join(' ');
    this.#link.proc?.note(`${level}: ${text}`);
    const about = args[1] as { method?: unknown } | undefined;
    if (args[0] === 'Error handling notification' && about?.method === 'session/update' && this.#link.sessionId !== undefined && !this.#link.unknownKinds.has('(unreadable)')) {
      this.#link.unknownKinds.add('(unreadable)');
      this.store.notice('info', `${this.#link.agentName} sent an update this client could not read; it was dropped and the error is in the agent log (Ctrl+L).`);
    }
  }

  #app(): acp.ClientApp {
    return acp
      .client({ name: 'cxl' })
      .onNotification(acp.methods.client.session.update, ({ params }) => this.#onUpdate(params))
      .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) => requestPermission(params, signal, this.#permissions))
      .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => ({ content: await this.fsHost.readTextFile(params.path, params.line, params.limit) }))
      .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
        await this.fsHost.writeTextFile(params.path, params.content);
        return {};
      })
      .onRequest(acp.methods.client.terminal.create, ({ params }) => ({ terminalId: this.terminals.create(params) }))
      .onRequest(acp.methods.client.terminal.output, ({ params }) => this.terminals.output(params.terminalId))
      .onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => await this.terminals.waitForExit(params.terminalId))
      .onRequest(acp.methods.client.terminal.kill, ({ params }) => {
        this.terminals.kill(params.terminalId);
        return {};
      })
      .onRequest(acp.methods.client.terminal.release, ({ params }) => {
        this.terminals.release(params.terminalId);
        return {};
      })
      .onRequest(acp.methods.client.elicitation.create, ({ params, signal }) => elicit(params, signal, this.#forms, this.#link, this.store))
      // completes a URL elicitation, which this client does not offer: noted, nothing to close
      .onNotification(acp.methods.client.elicitation.complete, ({ params }) => this.#link.proc?.note(`elicitation/complete ${params.elicitationId} (no URL elicitation is open here)`));
  }

  #sent!: () => void;
  /** Settled once start() has written `initialize` (or given up before): the UI loads its screen after that, not before. */
  readonly initializeSent = new Promise<void>((resolve) => (this.#sent = resolve));

  /** Spawn the agent, initialize, open a session. Failures become store state, not throws. */
  async start(): Promise<void> {
    try {
      await this.#start();
    } finally {
      this.#sent();
    }
  }

  async #start(): Promise<void> {
    const hooks = { onStderr: (l: string[]) => this.store.setStderrTail(l), onLog: (l: string[]) => this.store.setAgentLog(l) };
    const proc = this.opts.process ?? new AgentProcess(this.opts.argv, { cwd: this.fsHost.root, env: this.opts.env, ...hooks });
    proc.listen(hooks);
    this.#link.proc = proc;
    this.#exitReported = proc.exited.then(async (exit) => {
      this.#link.exited = true;
      // nothing an agent started through us outlives it, however it ended (crash, kill, exit)
      this.terminals.dispose();
      this.#permissions.cancelAll();
      this.#forms.cancelAll();
      // what it wrote last is still being read: the report names any of it that was not ACP
      await Promise.race([this.#link.conn?.closed, new Promise((r) => setTimeout(r, 200))]);
      this.store.agentExited({ ...exit, stderrTail: proc.stderrTail(), stdoutNoise: noiseExplained(this.#stdoutNoise.lines) });
    });
    const { input, output } = proc.streams();
    const stream = acp.ndJsonStream(output, this.#stdoutNoise.watch(input));
    const conn = this.#app().connect({ writable: stream.writable, readable: stream.readable.pipeThrough(updateGuard((u) => this.#onUnknownUpdate(u))) });
    this.#link.conn = conn;
    let init: acp.InitializeResponse;
    // the agent learns which sandbox our terminals run in (it decides what may run unasked); the
    // probe starts a sandbox, so it runs while the caller goes on (the UI loads its screen)
    const sandbox = await this.terminals.sandboxStateAsync();
    try {
      const asked: Promise<acp.InitializeResponse> = conn.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        // the trust prompt is this client's: the built-in agent need not say the folder is untrusted as well
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true, session: { notices: {}, compaction: {} }, ...ELICITATION_CAPS, _meta: { [META_SANDBOX]: sandbox, ...(this.opts.builtin ? { [META_TRUST_PROMPT]: true } : {}) } },
        clientInfo: { name: 'cxl', version: pkg.version },
      });
      this.#sent();
      init = await this.#waitFor('initialize', asked, this.opts.initTimeoutMs ?? ANSWER_TIMEOUT_MS);
    } catch (err) {
      return this.#failed('The agent did not initialize', err);
    }
    this.#link.initName = init.agentInfo?.title ?? init.agentInfo?.name ?? undefined;
    this.login.methods = authMethodsOf(init.authMethods ?? [], this.opts.argv, this.opts.env ?? process.env);
    const caps = init.agentCapabilities;
    this.#mcpCaps = caps?.mcpCapabilities ?? undefined;
    // an agent that keeps `!line` runs with the session (cxl's) is handed each; another gets them with the next prompt only
    this.shell.keeping = caps?._meta?.[META_SHELL_RUN] === true ? new AgentKeepsRuns(this.#link) : HANDED_ONLY;
    // a standing host serves no file reads, edits or commands: said once here, not per call
    const host = caps?._meta?.[META_HOST] as HostMeta | undefined;
    if (host && typeof host.workspace === 'string') {
      this.store.notice('info', `Attached to a standing host for ${host.workspace}: ${host.shape}. To read, edit or run commands, run cxl on that machine.`);
    }
    // A new session is asked for before the store hears of the agent: each store change draws a
    // frame at once (15-25 ms at start), and the request would wait behind it. Its answer is still
    // handled after the store has heard (`told`), as if asked after.
    let tell = () => {};
    const told = new Promise<void>((r) => (tell = r));
    const opening = this.opts.resume ? undefined : this.#newSession(told);
    if (opening) {
      opening.catch(() => {}); // awaited below, where a failure is reported
      await new Promise((r) => setTimeout(r, 0));
    }
    this.store.agentReady({ name: this.#link.initName, version: init.agentInfo?.version ?? undefined });
    this.#canDelete = (caps?.sessionCapabilities as Record<string, unknown> | undefined)?.delete != null;
    this.store.setCapabilities({
      loadSession: caps?.loadSession === true,
      resumeSession: caps?.sessionCapabilities?.resume != null,
      closeSession: caps?.sessionCapabilities?.close != null,
      listSessions: caps?.sessionCapabilities?.list != null,
      embeddedContext: caps?.promptCapabilities?.embeddedContext === true,
    });
    // session/fork is unstable in ACP (cxl's agent offers it): the choice is the fork room's object, not a capability the store keeps
    const forks = (caps?.sessionCapabilities as Record<string, unknown> | undefined)?.fork != null && caps?.loadSession === true;
    this.#fork = forkFor(forks, this.#link, this.store, this.fsHost.root);
    if (this.opts.sandbox) this.store.setSandbox(this.opts.sandbox);
    // not in this turn: what reacts to the agent being ready runs before the session's outcome
    setTimeout(tell, 0);
    try {
      if (this.opts.resume) await this.#resumeAtStart(this.opts.resume);
      else await opening;
    } catch (err) {
      await this.#failed('The agent did not start a session', err);
    }
  }

  /**
   * Tell the user when the agent leaves `what` unanswered for too long, naming the command; go on
   * waiting (npx may still be fetching the agent), so nothing typed meanwhile is lost.
   */
  async #waitFor<T>(what: string, p: Promise<T>, ms: number): Promise<T> {
    const timer = setTimeout(() => {
      if (this.#link.exited) return;
      this.store.setStalled(what);
      this.store.notice(
        'warn',
        `${this.#link.agentName} has not answered ${what} after ${Math.round(ms / 1000)} s. Still waiting; the agent command is: ${joinCommandLine(this.opts.argv)}. Its stderr is in the agent log (Ctrl+L); if it is stuck, quit with Ctrl+D and check the command.`,
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
  async #failed(what: string, err: unknown): Promise<void> {
    // A closed connection usually means the agent died: let its exit report say so.
    if (this.#link.proc) await Promise.race([this.#link.proc.exited, new Promise((r) => setTimeout(r, 300))]);
    if (this.#link.exited) return;
    this.store.sessionFailed(`${what}: ${errorText(err)}.`, errorDetail(err));
  }

  /**
   * session/new, in the envelope and with the model asked for; then what was typed meanwhile is
   * sent. Returns whether a session is open; a failure is shown (with a login picker when the agent
   * wants a login), never thrown. `told`: settled once the store has heard of the agent (at
   * start); the answer is handled after it, whenever it comes.
   */
  async #newSession(told?: Promise<void>): Promise<boolean> {
    const conn = this.#link.conn;
    if (!conn) return false;
    let res: acp.NewSessionResponse;
    try {
      const answer = conn.agent.request(acp.methods.agent.session.new, { cwd: this.fsHost.root, mcpServers: this.#mcpServers() });
      const handled = told ? answer.then((r) => told.then(() => r), (err: unknown) => told.then(() => Promise.reject(err))) : answer;
      res = await this.#waitFor('session/new', handled, this.opts.sessionTimeoutMs ?? ANSWER_TIMEOUT_MS);
    } catch (err) {
      if (isAuthRequired(err) && this.login.offered && !this.#link.exited) {
        this.store.sessionFailed(`${this.#link.agentName} needs a login before it starts a session: ${errorText(err)}. Pick a login method below (/login shows them again).`, errorDetail(err));
        this.login.offer(errorText(err), 'new_session');
      } else if (isAuthRequired(err) && !this.#link.exited) {
        this.store.sessionFailed(`${this.#link.agentName} needs a login before it starts a session and offers no login method: ${errorText(err)}. Log in with the agent's own command or set its API key, then start cxl again.`, errorDetail(err));
      } else await this.#failed('The agent did not start a session', err);
      return false;
    }
    this.#link.sessionId = res.sessionId;
    this.#link.used = false;
    this.#link.unknownKinds.clear();
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
      if (models) await this.models.switchTo(this.opts.model);
      else this.store.notice('warn', `${this.#link.agentName} does not say which models it offers, so --model ${this.opts.model} was not passed; it uses its own default.`);
    }
    this.#turns.drain();
    return true;
  }

  /**
   * The person's MCP servers for another agent's session (none for the built-in agent, which
   * reads the same configuration). What cannot be passed shows in the status line, and is said
   * once.
   */
  #mcpServers(): acp.McpServer[] {
    if (this.opts.builtin || !this.opts.mcpServers?.length) return [];
    const { servers, skipped } = forwardMcp(this.opts.mcpServers, this.#mcpCaps);
    this.store.setMcpSkipped(skipped);
    if (skipped.length && !this.#mcpSaid) {
      this.#mcpSaid = true;
      this.store.notice('warn', `Not passed to ${this.#link.agentName}: MCP server${skipped.length > 1 ? 's' : ''} ${skipped.join('; ')}. The others were passed.`);
    }
    return servers;
  }

  /** The sandbox the agent reports wins over the client's own terminal host's. */
  #sessionMeta(meta: Record<string, unknown> | null | undefined): void {
    this.store.setSandbox(sandboxOf(meta) ?? this.opts.sandbox ?? this.terminals.sandboxState());
  }

  async #resumeAtStart(how: ResumeRequest): Promise<void> {
    const st = this.store.getState();
    if (!st.capabilities.loadSession && !st.capabilities.resumeSession) {
      this.store.notice('warn', `${st.agent.name ?? st.agent.label} cannot resume sessions (it offers neither session/load nor session/resume), so this is a new session.`);
      return void (await this.#newSession());
    }
    if (how.kind === 'id') {
      if (await this.loadSession(how.id)) return;
      return void (await this.#newSession());
    }
    const sessions = await this.#listAll();
    if (sessions === undefined) return void (await this.#newSession());
    if (how.kind === 'pick') {
      if (sessions.length === 0) {
        this.store.notice('info', `No earlier session in ${this.fsHost.root}; this is a new one.`);
        return void (await this.#newSession());
      }
      // The picker's answer opens a session (loadSession) or a new one (newSession).
      this.store.offerSessions({ sessions: pickerOrder(sessions), startup: true });
      return;
    }
    const newest = newestSession(sessions);
    if (!newest) {
      this.store.notice('info', `No earlier session in ${this.fsHost.root} to continue; this is a new one.`);
      return void (await this.#newSession());
    }
    if (!(await this.loadSession(newest.sessionId))) await this.#newSession();
  }

  /** A session opened or resumed at startup: an --envelope given wins over the mode it starts in. */
  async #askedMode(): Promise<void> {
    const st = this.store.getState();
    const want = this.opts.envelope;
    if (want && st.mode !== want && st.modes.some((m) => m.id === want)) await this.config.setMode(want);
  }

  /** session/list for this root, every page up to a bound; undefined (with a notice) when it fails. */
  async #listAll(): Promise<acp.SessionInfo[] | undefined> {
    const conn = this.#link.conn;
    if (!conn) return undefined;
    if (!this.store.getState().capabilities.listSessions) {
      this.store.notice('warn', 'This agent does not list its sessions (no session/list); resume one by id: `/resume ID` or `cxl --resume ID`.');
      return undefined;
    }
    const out: acp.SessionInfo[] = [];
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const res = await conn.agent.request(acp.methods.agent.session.list, { cwd: this.fsHost.root, ...(cursor ? { cursor } : {}) });
        out.push(...res.sessions.filter((x) => x.cwd === this.fsHost.root || x.cwd === this.opts.cwd));
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
    if (this.#link.busy('resume a session')) return;
    const caps = this.store.getState().capabilities;
    if (!caps.loadSession && !caps.resumeSession) {
      this.store.notice('warn', 'This agent cannot resume sessions (it offers neither session/load nor session/resume).');
      return;
    }
    const sessions = await this.#listAll();
    if (sessions === undefined) return;
    const others = sessions.filter((x) => x.sessionId !== this.#link.sessionId);
    if (others.length === 0) {
      this.store.notice('info', `No other session in ${this.fsHost.root} to resume.`);
      return;
    }
    this.store.offerSessions({ sessions: pickerOrder(others), startup: false });
  }

  /** The picker closed without a choice: at startup that means a new session. */
  dismissSessions(): void {
    const startup = this.store.getState().sessionChoices?.startup;
    this.store.offerSessions(undefined);
    if (startup && this.#link.sessionId === undefined) void this.#newSession();
  }

  /**
   * session/load: the screen starts over and the agent replays the session's history into it;
   * session/resume for an agent that can resume but not load (the history is not shown again).
   * The session left is closed with the agent. Returns whether it worked; on failure the reason
   * is shown.
   */
  async loadSession(id: string): Promise<boolean> {
    const conn = this.#link.conn;
    if (!conn || this.#link.busy('resume a session')) return false;
    this.store.offerSessions(undefined);
    const previous = this.#link.sessionId;
    const atStartup = previous === undefined;
    const replays = this.store.getState().capabilities.loadSession;
    this.#permissions.cancelAll();
    this.#forms.cancelAll();
    if (previous !== undefined && previous !== id) await this.#closeSession(previous);
    this.store.resetConversation(id);
    // The replay comes as session/update for this id before the answer: route it to the screen.
    this.#link.sessionId = id;
    this.#link.unknownKinds.clear();
    try {
      const mcpServers = this.#mcpServers();
      const res = replays
        ? await conn.agent.request(acp.methods.agent.session.load, { sessionId: id, cwd: this.fsHost.root, mcpServers })
        : await conn.agent.request(acp.methods.agent.session.resume, { sessionId: id, cwd: this.fsHost.root, mcpServers });
      this.store.replayDone();
      this.store.setSessionConfig(res.configOptions, res.modes);
      this.#sessionMeta(res._meta);
      this.store.sessionStarted(id);
      const models = modelStateOf(res.configOptions, (res as { models?: unknown }).models);
      if (models) this.store.models.update(models);
      this.#link.used = true;
      if (!replays) this.store.notice('info', `Resumed session ${id}. ${this.#link.agentName} resumes without replaying it, so its earlier conversation is not shown here; the agent still has it.`);
      if (atStartup) await this.#askedMode();
      if (atStartup && this.opts.model) await this.models.flag(this.opts.model);
      this.#turns.drain();
      return true;
    } catch (err) {
      this.#link.sessionId = previous;
      this.store.replayDone();
      this.store.notice('error', `Could not resume session ${id}: ${errorText(err)}.${previous ? '' : ' Starting a new one.'}`);
      if (previous) this.store.sessionStarted(previous);
      return false;
    }
  }

  /** /clear: a new session; the old one is closed with the agent (it stays resumable), or deleted if it was never used. */
  async newSession(): Promise<void> {
    if (!this.#link.conn || this.#link.busy('start a new session')) return;
    this.store.offerSessions(undefined);
    this.#permissions.cancelAll();
    this.#forms.cancelAll();
    const old = this.#link.sessionId;
    const unused = !this.#link.used;
    this.store.resetConversation();
    this.#link.sessionId = undefined;
    if (old !== undefined) await this.#closeSession(old, unused);
    await this.#newSession();
  }

  /**
   * session/close for a session this client leaves, when the agent offers it (its turns stop, its
   * MCP servers end); bounded, since the client goes on either way.
   */
  async #closeSession(sessionId: string, unused = sessionId === this.#link.sessionId && !this.#link.used): Promise<void> {
    const conn = this.#link.conn;
    // a session this client made and never used is nobody's: an agent that keeps every session it
    // handed out (cxl's does) would list it among the others at every start
    const discard = unused && this.#canDelete;
    if (!conn || this.#link.exited || (!discard && !this.store.getState().capabilities.closeSession)) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const method = discard ? acp.methods.agent.session.delete : acp.methods.agent.session.close;
    const request = conn.agent.request(method, { sessionId }).then(
      () => undefined,
      (err: unknown) => this.#link.proc?.note(`${method} ${sessionId}: ${errorText(err)}`),
    );
    await Promise.race([request, new Promise<void>((r) => (timer = setTimeout(r, CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
  }

  /**
   * Whether the session can be resumed once this client leaves it: the agent loads sessions, and
   * this one has something in it (one left unused is deleted as this client leaves it).
   */
  get resumable(): boolean {
    return this.#link.sessionId !== undefined && this.#link.used && this.store.getState().capabilities.loadSession;
  }

  /** The composer sent text: a prompt now, or queued behind the running turn (prompt_turn.ts). */
  send(text: string): void {
    this.#turns.send(text);
  }

  /** Ctrl+C: the turn cancelled; pressed again, the client stops waiting for it (prompt_turn.ts). */
  cancel(): void {
    this.#turns.cancel();
  }

  quit(): void {
    this.#quit();
  }

  /** Close the session with the agent (when it offers that), then stop it (TERM, then KILL after `graceMs`) and every terminal. */
  async close(graceMs = 1500): Promise<void> {
    this.userShell.kill();
    this.#turns.dispose();
    if (this.#link.sessionId !== undefined) await this.#closeSession(this.#link.sessionId);
    this.terminals.dispose();
    this.files.dispose();
    this.store.dispose();
    const proc = this.#link.proc;
    if (!proc) return;
    proc.endStdin();
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    await proc.exited;
    clearTimeout(timer);
    await this.#exitReported;
  }
}

/** A value the SDK logs, as one line of text (an object that cannot be serialised says so). */
function safeJson(v: unknown): string {
  if (v instanceof Error) return v.stack ?? v.message;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

export { errorText } from './connection/request_errors.ts';
