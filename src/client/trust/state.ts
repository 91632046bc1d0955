// The trust prompt's slice of the store as the trust requests use it.
import type { Notices } from '../session/link.ts';
import type { TrustOffer } from './trust_offer.ts';

/** What of the store the trust requests use. */
export interface TrustShelf extends Notices {
  getState(): { trust?: TrustOffer };
  setTrust(trust: TrustOffer | undefined): void;
}
