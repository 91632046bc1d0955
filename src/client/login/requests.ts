// Logging in (`authenticate`): the methods the agent offered on initialize, the picker offered
// when a session or a prompt answers "auth required" or on /login, and the method picked. A
// terminal method is the person's to run; the others are asked of the agent.
import * as acp from '@agentclientprotocol/sdk';
import { errorDetail, errorText } from '../connection/request_errors.ts';
import type { SessionLink } from '../session/link.ts';
import type { AuthMethodView, AuthOffer } from './auth.ts';
import type { LoginShelf } from './state.ts';

/** The controller's slice: the login picker (a method picked, or closed) and /login, which opens it. */
export interface LoginControls {
  /** The login picker: the person picked a method. */
  authenticate(methodId: string): void | Promise<void>;
  /** The login picker was closed without a pick. */
  dismiss(): void;
  /** /login: the login picker again. */
  login(): void;
}

export class LoginRequests implements LoginControls {
  /** the agent's login methods, from its initialize answer */
  methods: AuthMethodView[] = [];

  constructor(
    private readonly link: SessionLink,
    private readonly store: LoginShelf,
  ) {}

  /** The agent offers a way to log in. */
  get offered(): boolean {
    return this.methods.length > 0;
  }

  /** The login picker, for `reason`; `then`: what a login leads to (a new session, or the prompt again). */
  offer(reason: string, then: AuthOffer['then']): void {
    this.store.login.set({ methods: this.methods, reason, then });
  }

  /** /login: the login picker again. */
  login(): void {
    if (!this.offered) return this.store.notice('info', `${this.link.agentName} offers no login methods.`);
    this.offer('chosen with /login', this.link.sessionId === undefined ? 'new_session' : 'continue');
  }

  /** The login picker: the user picked a method. */
  async authenticate(methodId: string): Promise<void> {
    const { conn } = this.link;
    const offer = this.store.getState().auth;
    const m = offer?.methods.find((x) => x.id === methodId);
    if (!conn || !offer || !m || offer.busy || this.link.exited) return;
    this.store.login.set({ ...offer, busy: m.id, note: undefined });
    if (m.kind !== 'terminal') {
      // A terminal method is the user's to run (the protocol keeps it out of authenticate).
      try {
        await conn.agent.request(acp.methods.agent.authenticate, { methodId: m.id });
      } catch (err) {
        const fix = m.kind === 'env_var' && m.setVars.length < m.vars.length ? ` Set ${m.vars.filter((v) => !m.setVars.includes(v)).join(' or ')} in the environment and start cxl again.` : '';
        const why = [errorText(err), ...errorDetail(err)].join(' · ').replace(/\.+$/, '');
        this.store.login.set({ ...offer, busy: undefined, note: `${m.name} did not work: ${why}.${fix}` });
        return;
      }
    }
    if (offer.then === 'continue') {
      this.store.login.set(undefined);
      this.store.notice('info', `Logged in to ${this.link.agentName} (${m.name}). Send your prompt again.`);
      return;
    }
    if (await this.link.openSession()) {
      this.store.notice('info', `Logged in to ${this.link.agentName} (${m.name}); the session is open.`);
      return;
    }
    const again = this.store.getState().auth;
    if (again) this.store.login.set({ ...again, busy: undefined, note: m.kind === 'terminal' ? `Still no session: run \`${m.command}\` in a terminal first, then pick it again.` : `Still no session after ${m.name}; see the message above.` });
  }

  /** The login picker was closed without a pick. */
  dismiss(): void {
    if (!this.store.getState().auth) return;
    this.store.login.set(undefined);
    if (this.link.sessionId === undefined) this.store.notice('info', 'No session yet: /login shows the login methods again; Ctrl+D quits.');
  }
}
