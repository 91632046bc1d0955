// /fork: a new session with this one's history (session/fork, unstable in ACP; cxl's agent offers
// it), shown in place of it; the one forked from stays as it was. An agent that does not offer it
// gets `NoFork`, one object that says so, chosen once when the agent has said what it can do.
import { errorText } from '../connection/request_errors.ts';
import type { Notices, SessionLink } from '../session/link.ts';

/** The controller's slice (`controller.fork`): /fork, a new session with this one's history. */
export interface ForkControls {
  fork(): Promise<void>;
}

/** Whether there is a session to fork now; says why not. */
function forkable(link: SessionLink, store: Notices): boolean {
  if (!link.conn || !link.sessionId) {
    store.notice('warn', 'There is no session yet to fork.');
    return false;
  }
  return !link.busy('fork the session');
}

export class Fork implements ForkControls {
  constructor(
    private readonly link: SessionLink,
    private readonly store: Notices,
    /** where the fork is made: the session root, and the additional directories the agent takes */
    private readonly where: () => { cwd: string; additionalDirectories?: string[] },
  ) {}

  async fork(): Promise<void> {
    const { conn, sessionId } = this.link;
    if (!forkable(this.link, this.store) || !conn || !sessionId) return;
    let forked: string;
    try {
      forked = (await conn.agent.request<{ sessionId: string }>('session/fork', { sessionId, ...this.where(), mcpServers: [] })).sessionId;
    } catch (err) {
      return this.store.notice('error', `${this.link.agentName} did not fork the session: ${errorText(err)}.`);
    }
    if (await this.link.loadSession(forked)) this.store.notice('info', `Forked: this is a new session (${forked.slice(0, 8)}) with the earlier one's history. The earlier one (${sessionId.slice(0, 8)}) is as it was: /resume goes back to it.`);
  }
}

/** The agent does not offer session/fork (or has not said yet): /fork says so. */
export class NoFork implements ForkControls {
  constructor(
    private readonly link: SessionLink,
    private readonly store: Notices,
  ) {}

  fork(): Promise<void> {
    if (forkable(this.link, this.store)) this.store.notice('warn', `${this.link.agentName} cannot fork sessions (it does not offer session/fork).`);
    return Promise.resolve();
  }
}

/** The fork requests for an agent that does or does not offer session/fork. */
export function forkFor(offered: boolean, link: SessionLink, store: Notices, where: () => { cwd: string; additionalDirectories?: string[] }): ForkControls {
  return offered ? new Fork(link, store, where) : new NoFork(link, store);
}
