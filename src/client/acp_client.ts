// The ACP client: spawns the agent, speaks the protocol, serves fs/* and terminal/* from this
// machine, routes permission requests to the user, and turns every notification into store
// state. Tolerant of real agents: updates before session/new answers, or for a session not yet
// known, are buffered; updates after a turn's answer are applied; a dying agent is reported.
import * as acp from '@agentclientprotocol/sdk';
import pkg from '../../package.json' with { type: 'json' };
import { AgentProcess } from './agent_process.ts';
import { FsHost } from './fs_host.ts';
import { ClientStore } from './state.ts';
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
}

/** Updates kept per unknown session, and unknown sessions kept: a flood cannot grow memory. */
const MAX_BUFFERED = 1000;
const MAX_BUFFERED_SESSIONS = 16;

export class AcpClient {
  readonly store: ClientStore;
  readonly fsHost: FsHost;
  readonly terminals: TerminalHost;
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
  }

  get sessionId(): string | undefined {
    return this.#sessionId;
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
      // nothing an agent started through us outlives it, however it ended (crash, kill, exit)
      this.terminals.dispose();
      this.store.agentExited({ ...exit, stderrTail: proc.stderrTail() });
    });
    const { input, output } = proc.streams();
    const conn = this.#app().connect(acp.ndJsonStream(output, input));
    this.#conn = conn;
    try {
      const init = await conn.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
        clientInfo: { name: 'cxl', version: pkg.version },
      });
      this.store.agentReady({ name: init.agentInfo?.title ?? init.agentInfo?.name, version: init.agentInfo?.version ?? undefined });
      this.#authMethods = (init.authMethods ?? []).map((m) => m.name);
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
          await conn.agent.request(acp.methods.agent.session.setConfigOption, { sessionId: res.sessionId, configId: modelOpt.id, value: this.opts.model });
        } else model = modelOpt.currentValue;
      }
      this.store.sessionStarted(res.sessionId, { model, mode: mode ?? undefined });
      for (const u of this.#buffered.get(res.sessionId) ?? []) this.store.applyUpdate(u);
      this.#buffered.delete(res.sessionId);
      this.#drain();
    } catch (err) {
      if (proc) await Promise.race([proc.exited, new Promise((r) => setTimeout(r, 300))]);
      if (!this.#exited) this.store.notice('error', `The agent did not start a session: ${errorText(err)}${this.#authHint(err)}`);
    }
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
      const res = await conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
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
