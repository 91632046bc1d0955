// The login picker's slice of the store as the login requests use it.
import type { Notices } from '../session/link.ts';
import type { AuthOffer } from './auth.ts';

/** What of the store the login requests use. */
export interface LoginShelf extends Notices {
  getState(): { auth?: AuthOffer };
  setAuth(auth: AuthOffer | undefined): void;
}
