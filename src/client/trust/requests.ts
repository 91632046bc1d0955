// Trust in the folder's own configuration, held back until the person trusts it: the prompt at
// start, closed or trusted, and /trust to ask again. Trusting records it (config's trust store)
// and opens a new session, which applies the configuration.
import type { SessionLink } from '../session/link.ts';
import type { TrustShelf } from './state.ts';
import { acceptTrust } from './trust_offer.ts';

const NOTHING = 'Nothing to trust: this folder has no configuration of its own held back.';

/** The controller's slice: the trust prompt: trust this folder's own configuration (then a new session applies it), close it, open it again (/trust). */
export interface TrustControls {
  /** Trust the folder as shown: recorded, then a new session, which applies its configuration. */
  trust(): void | Promise<void>;
  /** The trust prompt was closed without trusting: the folder's configuration stays held back. */
  dismiss(): void;
  /** /trust: the prompt again. */
  offer(): void;
}

export class TrustRequests implements TrustControls {
  constructor(
    private readonly link: SessionLink,
    private readonly store: TrustShelf,
    /** the environment the trust record is read and written in (HOME decides where ~/.contenox is) */
    private readonly env: Record<string, string | undefined>,
  ) {}

  /** Trust the folder as shown: recorded, then a new session, which applies its configuration. */
  async trust(): Promise<void> {
    const offer = this.store.getState().trust;
    if (!offer) return void this.store.notice('info', NOTHING);
    try {
      const aside = await acceptTrust(offer, this.env);
      if (aside) this.store.notice('warn', aside);
    } catch (err) {
      this.store.notice('error', `Not trusted: ${(err as Error).message}`);
      return;
    }
    this.store.trust.set(undefined);
    this.store.notice('info', `Trusted ${offer.dir}: its configuration (${offer.files.join(', ')}) applies from this new session on; if it changes, cxl asks again.`);
    // the session left is closed with the agent, as on /clear
    const left = this.link.sessionId;
    void (left === undefined ? Promise.resolve() : this.link.closeSession(left)).then(() => this.link.openSession());
  }

  /** The trust prompt was closed without trusting: the folder's configuration stays held back. */
  dismiss(): void {
    const offer = this.store.getState().trust;
    if (!offer || offer.dismissed) return;
    this.store.trust.set({ ...offer, dismissed: true });
    this.store.notice('info', 'This folder\'s own configuration is not applied. /trust asks again; `cxl trust` in a shell does the same.');
  }

  /** /trust: the prompt again. */
  offer(): void {
    const offer = this.store.getState().trust;
    if (!offer) return void this.store.notice('info', NOTHING);
    this.store.trust.set({ ...offer, dismissed: false });
  }
}
