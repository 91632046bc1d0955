// A part of the screen loaded after the start, not with it (marked, highlight.js's grammars):
// until it is in, what needs it is drawn plain, and whoever draws hears when it comes to draw
// again.

export interface LateModule<T> {
  /** Start loading (once); resolves when it is in. */
  load(): Promise<void>;
  /** It, once in. */
  get(): T | undefined;
  ready(): boolean;
  /** Called once it is in; returns the unsubscribe. */
  onReady(fn: () => void): () => void;
}

export function lateModule<T>(loader: () => Promise<T>): LateModule<T> {
  let value: T | undefined;
  let loading: Promise<void> | undefined;
  const listeners = new Set<() => void>();
  return {
    load: () =>
      (loading ??= loader().then((v) => {
        value = v;
        for (const l of listeners) l();
      })),
    get: () => value,
    ready: () => value !== undefined,
    onReady: (fn) => {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}
