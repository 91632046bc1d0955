// The login picker's slice of the store as the login requests use it.
import type { Notices } from '../session/link.ts';
import type { StoreCell } from '../session/store_cell.ts';
import type { AuthOffer } from './auth.ts';

/** The fields the login adds to the store's state. */
export interface LoginSlice {
  /** The login picker, while the agent wants a login. */
  auth?: AuthOffer;
}

/** The login's part of the store (`store.login`). */
export class LoginStore {
  constructor(private readonly cell: StoreCell<LoginSlice>) {}

  /** The login picker: offered, or closed (undefined). */
  set(auth: AuthOffer | undefined): void {
    this.cell.set({ auth });
  }
}

/** What of the store the login requests use. */
export interface LoginShelf extends Notices {
  getState(): LoginSlice;
  readonly login: LoginStore;
}
