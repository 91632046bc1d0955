// The ACP client: spawns the agent, speaks the protocol, serves fs/* and terminal/* from this
// machine, routes permission requests to the user, and turns every notification into store
// state. Tolerant of real agents: updates before session/new answers, or for a session not yet
// known, are buffered; updates after a turn's answer are applied; a dying agent is reported.
import * as acp from '@agentclientprotocol/sdk';
import pkg from '../../package.json' with { type: 'json' };
import { AgentProcess } from './agent_process.ts';
import { FileIndex } from './file_index.ts';
import { FsHost } from './fs_host.ts';
import { promptBlocks } from './mentions.ts';
import { modelOf, newestSession, sandboxOf } from './session_meta.ts';
import { ClientStore, type SandboxView } from './state.ts';
import { TerminalHost } from './terminal_host.ts';

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
}

export type ResumeRequest = { kind: 'continue' } | { kind: 'id'; id: string } | { kind: 'pick' };

/** Pages of session/list read for a picker (a page is the agent's choice of size). */
const MAX_LIST_PAGES = 10;

/** Updates kept per unknown session, and unknown sessions kept: a flood cannot grow memory. */
const MAX_BUFFERED = 1000;
const MAX_BUFFERED_SESSIONS = 16;

export class AcpClient {
  readonly store: ClientStore;
  readonly fsHost: FsHost;
  readonly terminals: TerminalHost;
  /** The workspace's files, for @-mention completion. */
  readonly files: FileIndex;
  #proc: AgentProcess | undefined;
  #conn: acp.ClientConnection | undefined;
  #sessionId: string | undefined;
  #buffered = new Map<string, acp.SessionUpdate[]>();
  #quit!: () => void;
  /** Resolves when the user quits. */
  readonly quitRequested = new Promise<void>((r) => (this.#quit = r));
  #exited = false;
  #authMethods: string[] = [];

  constructor(readonly opts: ClientOptions) {
    this.store = new ClientStore({ label: opts.label, builtin: opts.builtin, cwd: opts.cwd, model: opts.model, envelope: opts.envelope, settleMs: opts.settleMs });
    this.fsHost = new FsHost(opts.cwd, (rel) => this.#askRead(rel));
    this.terminals = new TerminalHost(this.fsHost.root, (v) => this.store.updateTerminal(v));
    this.files = new FileIndex(this.fsHost.root, (v) => this.store.setFiles(v));
  }

  /** The @ list opened: list the workspace's files (again, when the listing is old). */
  refreshFiles(): void {
    void this.files.refresh();
  }

  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /**
   * The sandbox the session's commands run in, for the status line (SEAMS §3): what the agent
   * reported on session/new, else this client's own terminal host's (when it runs the commands).
   */
  sandboxState(): SandboxView {
    return this.store.getState().sandbox ?? this.terminals.sandboxState();
  }

  /** A read-approve file (.env, keys): the user decides, as for any other approval. */
  async #askRead(rel: string): Promise<boolean> {
    const out = await this.store.requestPermission(
      this.#sessionId ?? '',
      { toolCallId: `client-read-${rel}-${Date.now()}`, title: `The agent wants to read ${rel}`, kind: 'read', status: 'pending', locations: [{ path: rel }] },
      [
        { optionId: 'allow', name: 'Allow this read', kind: 'allow_once' },
        { optionId: 'reject', name: 'Refuse', kind: 'reject_once' },
      ],
    );
    return out.outcome === 'selected' && out.optionId === 'allow';
  }

  #onUpdate(n: acp.SessionNotification): void {
    if (this.#sessionId !== undefined && n.sessionId === this.#sessionId) {
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

  #app(): acp.ClientApp {
    const store = this.store;
    return acp
      .client({ name: 'cxl' })
      .onNotification(acp.methods.client.session.update, ({ params }) => this.#onUpdate(params))
      .onRequest(acp.methods.client.session.requestPermission, async ({ params, signal }) => {
        const outcome = store.requestPermission(params.sessionId, params.toolCall, params.options);
        // The agent may withdraw the request ($/cancel_request): drop it from the queue.
        const onAbort = () => {
          const p = store.getState().permissions.find((x) => x.call.id === params.toolCall.toolCallId);
          if (p) store.answerPermission(p.key, { outcome: 'cancelled' });
        };
        signal.addEventListener('abort', onAbort, { once: true });
        try {
          return { outcome: await outcome };
        } finally {
          signal.removeEventListener('abort', onAbort);
        }
      })
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
      });
  }

  /** Spawn the agent, initialize, open a session. Failures become store state, not throws. */
  async start(): Promise<void> {
    const proc = new AgentProcess(this.opts.argv, { cwd: this.fsHost.root, env: this.opts.env, onStderr: (l) => this.store.setStderrTail(l) });
    this.#proc = proc;
    void proc.exited.then((exit) => {
      this.#exited = true;
      this.terminals.dispose();
      this.store.agentExited({ ...exit, stderrTail: proc.stderrTail() });
    });
    const { input, output } = proc.streams();
    const conn = this.#app().connect(acp.ndJsonStream(output, input));
    this.#conn = conn;
    try {
      const init = await conn.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        // the agent learns which sandbox our terminals run in (it decides what may run unasked)
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true, _meta: { 'cxl/sandbox': this.terminals.sandboxState() } },
        clientInfo: { name: 'cxl', version: pkg.version },
      });
      this.store.agentReady({ name: init.agentInfo?.title ?? init.agentInfo?.name, version: init.agentInfo?.version ?? undefined });
      this.#authMethods = (init.authMethods ?? []).map((m) => m.name);
      const caps = init.agentCapabilities;
      this.store.setCapabilities({
        loadSession: caps?.loadSession === true,
        listSessions: caps?.sessionCapabilities?.list != null,
        embeddedContext: caps?.promptCapabilities?.embeddedContext === true,
      });
      if (this.opts.sandbox) this.store.setSandbox(this.opts.sandbox);
      if (this.opts.resume) await this.#resumeAtStart(this.opts.resume);
      else await this.#newSession();
    } catch (err) {
      if (proc) await Promise.race([proc.exited, new Promise((r) => setTimeout(r, 300))]);
      if (!this.#exited) this.store.notice('error', `The agent did not start a session: ${errorText(err)}${this.#authHint(err)}`);
    }
  }

  /** session/new, in the envelope and with the model asked for; then what was typed meanwhile is sent. */
  async #newSession(): Promise<void> {
    const conn = this.#conn!;
    const res = await conn.agent.request(acp.methods.agent.session.new, { cwd: this.fsHost.root, mcpServers: [] });
    this.#sessionId = res.sessionId;
    let mode = res.modes?.currentModeId;
    if (this.opts.envelope && res.modes?.availableModes.some((m) => m.id === this.opts.envelope) && mode !== this.opts.envelope) {
      await conn.agent.request(acp.methods.agent.session.setMode, { sessionId: res.sessionId, modeId: this.opts.envelope });
      mode = this.opts.envelope;
    }
    let model = this.opts.model;
    const modelOpt = res.configOptions?.find((o) => o.category === 'model');
    if (modelOpt && 'currentValue' in modelOpt && typeof modelOpt.currentValue === 'string') {
      if (this.opts.model && modelOpt.currentValue !== this.opts.model) {
        try {
          await conn.agent.request(acp.methods.agent.session.setConfigOption, { sessionId: res.sessionId, configId: modelOpt.id, value: this.opts.model });
        } catch (err) {
          // the session is open: keep it on the agent's model and say so
          model = modelOf(res.configOptions) ?? modelOpt.currentValue;
          this.store.notice('warn', `The agent did not switch to model ${this.opts.model} (${errorText(err)}); the session uses ${model}.`);
        }
      } else model = modelOf(res.configOptions) ?? modelOpt.currentValue;
    }
    this.store.setModes(res.modes?.availableModes ?? [], mode ?? undefined);
    this.#sessionMeta(res._meta);
    this.store.sessionStarted(res.sessionId, { model, mode: mode ?? undefined });
    for (const u of this.#buffered.get(res.sessionId) ?? []) this.store.applyUpdate(u);
    this.#buffered.delete(res.sessionId);
    this.#drain();
  }

  /** The sandbox the agent reports wins over the client's own terminal host's. */
  #sessionMeta(meta: Record<string, unknown> | null | undefined): void {
    this.store.setSandbox(sandboxOf(meta) ?? this.opts.sandbox ?? this.terminals.sandboxState());
  }

  async #resumeAtStart(how: ResumeRequest): Promise<void> {
    const st = this.store.getState();
    if (!st.capabilities.loadSession) {
      this.store.notice('warn', `${st.agent.name ?? st.agent.label} cannot resume sessions (it does not offer session/load), so this is a new session.`);
      return this.#newSession();
    }
    if (how.kind === 'id') {
      if (await this.loadSession(how.id)) return;
      return this.#newSession();
    }
    const sessions = await this.#listAll();
    if (sessions === undefined) return this.#newSession();
    if (how.kind === 'pick') {
      if (sessions.length === 0) {
        this.store.notice('info', `No earlier session in ${this.fsHost.root}; this is a new one.`);
        return this.#newSession();
      }
      // The picker's answer opens a session (loadSession) or a new one (newSession).
      this.store.offerSessions({ sessions, startup: true });
      return;
    }
    const newest = newestSession(sessions);
    if (!newest) {
      this.store.notice('info', `No earlier session in ${this.fsHost.root} to continue; this is a new one.`);
      return this.#newSession();
    }
    if (!(await this.loadSession(newest.sessionId))) await this.#newSession();
  }

  /** A session resumed at startup: an --envelope given with it wins over the mode it was left in. */
  async #askedMode(): Promise<void> {
    const st = this.store.getState();
    const want = this.opts.envelope;
    if (want && st.mode !== want && st.modes.some((m) => m.id === want)) await this.setMode(want);
  }

  /** session/list for this root, every page up to a bound; undefined (with a notice) when it fails. */
  async #listAll(): Promise<acp.SessionInfo[] | undefined> {
    const conn = this.#conn;
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
    if (this.#busy('resume a session')) return;
    if (!this.store.getState().capabilities.loadSession) {
      this.store.notice('warn', 'This agent cannot resume sessions (it does not offer session/load).');
      return;
    }
    const sessions = await this.#listAll();
    if (sessions === undefined) return;
    const others = sessions.filter((x) => x.sessionId !== this.#sessionId);
    if (others.length === 0) {
      this.store.notice('info', `No other session in ${this.fsHost.root} to resume.`);
      return;
    }
    this.store.offerSessions({ sessions: others, startup: false });
  }

  /** The picker closed without a choice: at startup that means a new session. */
  dismissSessions(): void {
    const startup = this.store.getState().sessionChoices?.startup;
    this.store.offerSessions(undefined);
    if (startup && this.#sessionId === undefined) void this.#newSession().catch((err) => this.store.notice('error', `The agent did not start a session: ${errorText(err)}`));
  }

  /**
   * session/load: the screen starts over and the agent replays the session's history into it.
   * Returns whether it worked; on failure the reason is shown.
   */
  async loadSession(id: string): Promise<boolean> {
    const conn = this.#conn;
    if (!conn || this.#busy('resume a session')) return false;
    this.store.offerSessions(undefined);
    const previous = this.#sessionId;
    const atStartup = previous === undefined;
    this.store.resetConversation(id);
    // The replay comes as session/update for this id before the answer: route it to the screen.
    this.#sessionId = id;
    try {
      const res = await conn.agent.request(acp.methods.agent.session.load, { sessionId: id, cwd: this.fsHost.root, mcpServers: [] });
      this.store.replayDone();
      this.store.setModes(res.modes?.availableModes ?? [], res.modes?.currentModeId ?? undefined);
      this.#sessionMeta(res._meta);
      this.store.sessionStarted(id, { model: modelOf(res.configOptions) ?? this.store.getState().model, mode: res.modes?.currentModeId ?? undefined });
      if (atStartup) await this.#askedMode();
      this.#drain();
      return true;
    } catch (err) {
      this.#sessionId = previous;
      this.store.replayDone();
      this.store.notice('error', `Could not resume session ${id}: ${errorText(err)}.${previous ? '' : ' Starting a new one.'}`);
      if (previous) this.store.sessionStarted(previous);
      return false;
    }
  }

  /** /clear: a new session; the old one stays with the agent (resumable). */
  async newSession(): Promise<void> {
    if (!this.#conn || this.#busy('start a new session')) return;
    this.store.offerSessions(undefined);
    this.store.resetConversation();
    this.#sessionId = undefined;
    try {
      await this.#newSession();
    } catch (err) {
      this.store.notice('error', `The agent did not start a new session: ${errorText(err)}`);
    }
  }

  /** Shift+Tab, /mode: session/set_mode; the status line follows once the agent accepts. */
  async setMode(modeId: string): Promise<void> {
    const conn = this.#conn;
    const sessionId = this.#sessionId;
    if (!conn || !sessionId || this.#exited) return;
    try {
      await conn.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId });
      if (this.#sessionId === sessionId) this.store.setMode(modeId);
    } catch (err) {
      this.store.notice('error', `The agent did not switch to mode ${modeId}: ${errorText(err)}`);
    }
  }

  /** Refuse what would replace the session while a turn or the agent is not in a state for it. */
  #busy(what: string): boolean {
    const st = this.store.getState();
    if (st.agent.status === 'exited') {
      this.store.notice('error', `The agent is not running, so it cannot ${what}. Quit with Ctrl+D and start cxl again.`);
      return true;
    }
    if (st.running || st.loading) {
      this.store.notice('warn', `A turn is running: cancel it with Ctrl+C first, then ${what}.`);
      return true;
    }
    return false;
  }

  /** The composer sent text: a prompt now, or queued behind the running turn. */
  send(text: string): void {
    const st = this.store.getState();
    if (st.agent.status === 'exited') {
      this.store.notice('error', 'The agent is not running, so nothing was sent. Quit with Ctrl+D and start cxl again.');
      return;
    }
    if (st.running || this.#sessionId === undefined) {
      this.store.queuePrompt(text);
      return;
    }
    void this.#prompt(text);
  }

  #drain(): void {
    const next = this.store.getState().running ? undefined : this.store.takeQueued();
    if (next !== undefined) void this.#prompt(next);
  }

  async #prompt(text: string): Promise<void> {
    const conn = this.#conn;
    const sessionId = this.#sessionId;
    if (!conn || !sessionId) return;
    this.store.beginTurn(text);
    try {
      const prompt = promptBlocks(text, { root: this.fsHost.root, embed: this.store.getState().capabilities.embeddedContext });
      const res = await conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt });
      this.store.endTurn(res.stopReason);
    } catch (err) {
      // A closed connection usually means the agent died: let its exit report say so.
      if (this.#proc) await Promise.race([this.#proc.exited, new Promise((r) => setTimeout(r, 300))]);
      this.store.endTurn('cancelled');
      if (!this.#exited) this.store.notice('error', `The turn failed: ${errorText(err)}${this.#authHint(err)}`);
    }
    this.#drain();
  }

  /** -32000: the agent wants a login this UI cannot do for it; say what it offers. */
  #authHint(err: unknown): string {
    if (!(err instanceof acp.RequestError) || err.code !== -32000) return '';
    const how = this.#authMethods.length ? ` (it offers: ${this.#authMethods.join(', ')})` : '';
    return `. Log in with the agent's own command or set its API key${how}, then start cxl again.`;
  }

  /** Ctrl+C: every pending approval answered `cancelled`, then session/cancel. */
  cancel(): void {
    this.store.cancelTurn();
    const conn = this.#conn;
    if (conn && this.#sessionId && !this.#exited) void conn.agent.notify(acp.methods.agent.session.cancel, { sessionId: this.#sessionId }).catch(() => {});
  }

  quit(): void {
    this.#quit();
  }

  /** Stop the agent (TERM, then KILL after `graceMs`) and every terminal. */
  async close(graceMs = 1500): Promise<void> {
    this.terminals.dispose();
    this.files.dispose();
    this.store.dispose();
    const proc = this.#proc;
    if (!proc) return;
    try {
      proc.child.stdin?.end();
    } catch {
      /* already gone */
    }
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    await proc.exited;
    clearTimeout(timer);
  }
}

export function errorText(err: unknown): string {
  if (err instanceof acp.RequestError) return `${err.message} (${err.code})`;
  return err instanceof Error ? err.message : String(err);
}

