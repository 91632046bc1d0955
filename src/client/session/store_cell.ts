// What a feature's part of the store is given of it: the state read, a patch applied (every change
// goes through the one store, so the screen hears it) and a fresh key for what it adds. The store
// hands each feature room's part (`store.rewind`, `store.login`, …) this, so a feature's setters
// live in its room, not as members of the store.

export interface StoreCell<S> {
  getState(): S;
  set(patch: Partial<S>): void;
  /** a key no other item of the store has, `prefix` first */
  key(prefix: string): string;
}
