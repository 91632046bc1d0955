// What a feature's requests see of the client: the connection, the session open now, and the few
// things every feature asks of the client (refuse while busy, open or close a session). AcpClient
// is the one implementation; a feature room takes this, never the client, so features stand beside
// each other instead of on the hub.
import type { ClientConnection } from '@agentclientprotocol/sdk';

export interface SessionLink {
  /** the agent's side of the connection, once start() has one */
  readonly conn: ClientConnection | undefined;
  readonly sessionId: string | undefined;
  /** the agent has exited */
  readonly exited: boolean;
  /** the agent as the person named it */
  readonly agentName: string;
  /** Refuse, saying why, what would replace the session while a turn runs or the agent is gone. */
  busy(what: string): boolean;
  /** Something of this session is with the agent now: it is kept (and resumable), not deleted on leaving. */
  markUsed(): void;
  /** A line for the agent log (Ctrl+L). */
  note(line: string): void;
  /** session/load (or resume) into the screen; whether it worked (a failure is shown). */
  loadSession(id: string): Promise<boolean>;
  /** session/new; whether a session is open (a failure is shown). */
  openSession(): Promise<boolean>;
  /** Leave a session: closed with the agent, or deleted if it was never used. */
  closeSession(id: string): Promise<void>;
}

/** What every feature says to the person through the store: a notice, or a block of lines. */
export interface Notices {
  notice(level: 'info' | 'warn' | 'error', text: string, detail?: string[]): void;
  info(title: string, lines: string[]): void;
}
