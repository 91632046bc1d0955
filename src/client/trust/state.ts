// The trust prompt's slice of the store as the trust requests use it.
import type { Notices } from '../session/link.ts';
import type { TrustOffer } from './trust_offer.ts';

/** The fields the trust prompt adds to the store's state. */
export interface TrustSlice {
  /** This folder's own configuration is held back until trusted: the offer, shown until answered (or dismissed). */
  trust?: TrustOffer;
}

/** What of the store the trust requests use. */
export interface TrustShelf extends Notices {
  getState(): TrustSlice;
  setTrust(trust: TrustOffer | undefined): void;
}
