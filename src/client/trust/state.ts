// The trust prompt's slice of the store as the trust requests use it.
import type { Notices } from '../session/link.ts';
import type { StoreCell } from '../session/store_cell.ts';
import type { TrustOffer } from './trust_offer.ts';

/** The fields the trust prompt adds to the store's state. */
export interface TrustSlice {
  /** This folder's own configuration is held back until trusted: the offer, shown until answered (or dismissed). */
  trust?: TrustOffer;
}

/** The trust prompt's part of the store (`store.trust`). */
export class TrustStore {
  constructor(private readonly cell: StoreCell<TrustSlice>) {}

  /** The trust prompt: offered (or dismissed), or gone once trusted (undefined). */
  set(trust: TrustOffer | undefined): void {
    this.cell.set({ trust });
  }
}

/** What of the store the trust requests use. */
export interface TrustShelf extends Notices {
  getState(): TrustSlice;
  readonly trust: TrustStore;
}
