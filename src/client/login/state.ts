// The login picker's slice of the store as the login requests use it.
import type { Notices } from '../session/link.ts';
import type { AuthOffer } from './auth.ts';

/** The fields the login adds to the store's state. */
export interface LoginSlice {
  /** The login picker, while the agent wants a login. */
  auth?: AuthOffer;
}

/** What of the store the login requests use. */
export interface LoginShelf extends Notices {
  getState(): LoginSlice;
  setAuth(auth: AuthOffer | undefined): void;
}
