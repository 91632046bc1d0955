// What every part of the client shares of the agent and the session open now: the agent's process,
// the connection, the session's id, whether the agent has exited, whether the session was used.
// AcpClient holds one; the session's start, load and close and the prompt turn read and set it,
// and the feature rooms see it as a SessionLink (read only, with the few things they ask of it).
import type * as acp from '@agentclientprotocol/sdk';
import type { AgentEnd } from './connection/remote_agent.ts';
import type { SessionLink } from './session/link.ts';
import type { ClientStore } from './state.ts';

/** What opens, loads and closes a session (the client's lifecycle), handed to the features through the link. */
export type SessionOpening = Pick<SessionLink, 'loadSession' | 'openSession' | 'closeSession'>;

export class ClientLink implements SessionLink {
  proc: AgentEnd | undefined;
  conn: acp.ClientConnection | undefined;
  sessionId: string | undefined;
  exited = false;
  /** Something of this session is with the agent: a prompt sent, a `!line` kept, a model chosen, or it was resumed. */
  used = false;
  /** the agent's name from its initialize answer (the store hears of it a little later) */
  initName: string | undefined;
  /** Update kinds not understood in this session, each shown once. */
  readonly unknownKinds = new Set<string>();

  constructor(
    private readonly store: ClientStore,
    private readonly opening: () => SessionOpening,
  ) {}

  /** The agent as the user named it. */
  get agentName(): string {
    const a = this.store.getState().agent;
    return this.initName ?? a.name ?? a.label;
  }

  /** Refuse what would replace the session while a turn or the agent is not in a state for it. */
  busy(what: string): boolean {
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

  /**
   * After a request failed: whether the agent has exited, given up to 300 ms to say so. A closed
   * connection usually means the agent died, and its exit report says it better than the error.
   */
  async agentGone(): Promise<boolean> {
    if (this.proc) await Promise.race([this.proc.exited, new Promise((r) => setTimeout(r, 300))]);
    return this.exited;
  }

  markUsed(): void {
    this.used = true;
  }

  note(line: string): void {
    this.proc?.note(line);
  }

  loadSession(id: string): Promise<boolean> {
    return this.opening().loadSession(id);
  }

  openSession(): Promise<boolean> {
    return this.opening().openSession();
  }

  closeSession(id: string): Promise<void> {
    return this.opening().closeSession(id);
  }
}
