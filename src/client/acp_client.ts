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
import { ConfigRequests } from './config_options/requests.ts';
import { FileIndex } from './composer/file_index.ts';
import { ElicitationAnswers, type ElicitationControls } from './elicitation/elicitation_answers.ts';
import { ELICITATION_CAPS, elicit } from './elicitation/requests.ts';
import { FsHost } from './hosts/fs_host.ts';
import type { ConfiguredMcpServer } from './session/mcp_forward.ts';
import { ModelRequests } from './models/requests.ts';
import { PermissionAnswers, type PermissionControls } from './permissions/permission_answers.ts';
import { requestPermission } from './permissions/requests.ts';
import { forkFor, type ForkControls } from './fork/requests.ts';
import { RewindRequests } from './rewind/requests.ts';
import { ClientLink } from './client_link.ts';
import { PromptTurn } from './prompt_turn.ts';
import { ANSWER_TIMEOUT_MS, SessionLifecycle, type ResumeRequest } from './session_lifecycle.ts';
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
  /** more directories the agent's tools may reach (`cxl --add-dir`), absolute; the fs host checks each as the agent does */
  additionalDirectories?: readonly string[];
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

export type { ResumeRequest } from './session_lifecycle.ts';

/** The client: the protocol's handlers, connecting and initialize; the session's start, load and close (session_lifecycle.ts) and the prompt turn (prompt_turn.ts) are its parts; each feature's slice is its room's own object (`client.rewind`, `client.models`, …). */
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
  #quit!: () => void;
  /** Resolves when the user quits. */
  readonly quitRequested = new Promise<void>((r) => (this.#quit = r));
  /** Resolves once the agent's exit is on screen. */
  #exitReported: Promise<void> | undefined;
  /** /fork (client/fork/): session/fork's requests, or the object saying the agent does not offer it */
  get fork(): ForkControls {
    return this.#fork;
  }

  /** What the features' requests see of this client. */
  readonly #link: ClientLink;
  /** the prompt turn: send, the queue, Ctrl+C and a turn stopped waiting for */
  readonly #turns: PromptTurn;
  /** the session's start, load and close */
  readonly #sessions: SessionLifecycle;
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
    this.#link = new ClientLink(this.store, () => ({ loadSession: (id) => this.#sessions.loadSession(id), openSession: () => this.#sessions.open(), closeSession: (id) => this.#sessions.close(id) }));
    this.fsHost = new FsHost(opts.cwd, (rel) => this.#askRead(rel), opts.additionalDirectories);
    this.terminals = new TerminalHost(this.fsHost.root, (v) => this.store.updateTerminal(v), { extra: this.fsHost.extra });
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
    this.#fork = forkFor(false, this.#link, this.store, () => this.#sessions.where());
    this.#turns = new PromptTurn(this.#link, this.store, { root: this.fsHost.root, login: this.login, waiting: [this.#permissions, this.#forms], userShell: this.userShell, cancelNoticeMs: opts.cancelNoticeMs });
    this.#sessions = new SessionLifecycle(this.#link, this.store, opts, { root: this.fsHost.root, extra: this.fsHost.extra, sandboxState: () => this.terminals.sandboxState(), waiting: [this.#permissions, this.#forms], login: this.login, models: this.models, config: this.config }, this.#turns);
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
      .onNotification(acp.methods.client.session.update, ({ params }) => this.#sessions.update(params))
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
      init = await this.#sessions.waitFor('initialize', asked, this.opts.initTimeoutMs ?? ANSWER_TIMEOUT_MS);
    } catch (err) {
      return this.#sessions.failed('The agent did not initialize', err);
    }
    this.#link.initName = init.agentInfo?.title ?? init.agentInfo?.name ?? undefined;
    this.login.methods = authMethodsOf(init.authMethods ?? [], this.opts.argv, this.opts.env ?? process.env);
    const caps = init.agentCapabilities;
    this.#sessions.mcpCaps = caps?.mcpCapabilities ?? undefined;
    this.#sessions.takesExtraDirs = caps?.sessionCapabilities?.additionalDirectories != null;
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
    const opening = this.opts.resume ? undefined : this.#sessions.open(told);
    if (opening) {
      opening.catch(() => {}); // awaited below, where a failure is reported
      await new Promise((r) => setTimeout(r, 0));
    }
    this.store.agentReady({ name: this.#link.initName, version: init.agentInfo?.version ?? undefined });
    this.#sessions.canDelete = (caps?.sessionCapabilities as Record<string, unknown> | undefined)?.delete != null;
    this.store.setCapabilities({
      loadSession: caps?.loadSession === true,
      resumeSession: caps?.sessionCapabilities?.resume != null,
      closeSession: caps?.sessionCapabilities?.close != null,
      listSessions: caps?.sessionCapabilities?.list != null,
      embeddedContext: caps?.promptCapabilities?.embeddedContext === true,
    });
    // session/fork is unstable in ACP (cxl's agent offers it): the choice is the fork room's object, not a capability the store keeps
    const forks = (caps?.sessionCapabilities as Record<string, unknown> | undefined)?.fork != null && caps?.loadSession === true;
    this.#fork = forkFor(forks, this.#link, this.store, () => this.#sessions.where());
    if (this.opts.sandbox) this.store.setSandbox(this.opts.sandbox);
    // not in this turn: what reacts to the agent being ready runs before the session's outcome
    setTimeout(tell, 0);
    try {
      if (this.opts.resume) await this.#sessions.resumeAtStart(this.opts.resume);
      else await opening;
    } catch (err) {
      await this.#sessions.failed('The agent did not start a session', err);
    }
  }

  /** /resume: the picker over this root's sessions (session_lifecycle.ts). */
  listSessions(): Promise<void> {
    return this.#sessions.listSessions();
  }

  /** The picker closed without a choice: at startup that means a new session. */
  dismissSessions(): void {
    this.#sessions.dismissSessions();
  }

  /** session/load (or resume) into the screen; whether it worked (a failure is shown). */
  loadSession(id: string): Promise<boolean> {
    return this.#sessions.loadSession(id);
  }

  /** /clear: a new session; the old one is closed with the agent, or deleted if it was never used. */
  newSession(): Promise<void> {
    return this.#sessions.clear();
  }

  /** Whether the session can be resumed once this client leaves it (session_lifecycle.ts). */
  get resumable(): boolean {
    return this.#sessions.resumable;
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
    if (this.#link.sessionId !== undefined) await this.#sessions.close(this.#link.sessionId);
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
