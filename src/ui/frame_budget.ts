// The screen hears of store changes at most once a frame. A model streaming a chunk per token
// (50–200 a second) and a replay (thousands of updates in a few reads) each changed the store,
// and each change was a React render of the whole screen (~12 ms of CPU): the UI fell behind a
// fast model and froze on a long replay. Changes that arrive together (one read) are drawn
// together, one frame later at most, and a replay is drawn once it is all in.
import { setImmediate, clearImmediate } from 'node:timers';

/** Ink's own frame (its default of 30 frames a second): a render between two of its writes is never seen. */
export const FRAME_MS = 34;

/** While a replay is read the screen waits for its end, but is never left longer than this without a frame. */
export const HOLD_MS = 1000;

export interface FrameBudget {
  /** Milliseconds between two frames. */
  frameMs: number;
  /** True while changes should wait for more (a replay being read); they still get a frame every HOLD_MS. */
  holding?: () => boolean;
  now?: () => number;
}

type Subscribe = (onChange: () => void) => () => void;

/**
 * `subscribe`, with the listener called once for all changes made in the same turn of the event
 * loop, and no sooner than `frameMs` after the last call: the first change after a quiet spell is
 * drawn at once (a keystroke's echo, a single update), a burst at the frame rate.
 */
export function framed(subscribe: Subscribe, budget: FrameBudget): Subscribe {
  const now = budget.now ?? (() => performance.now());
  return (onChange) => {
    let last = -Infinity;
    let immediate: ReturnType<typeof setImmediate> | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const fire = () => {
      immediate = undefined;
      timer = undefined;
      const t = now();
      if (budget.holding?.() && t - last < HOLD_MS) {
        timer = setTimeout(fire, Math.max(1, Math.min(HOLD_MS - (t - last), 50)));
        return;
      }
      last = t;
      onChange();
    };
    const off = subscribe(() => {
      if (immediate !== undefined || timer !== undefined) return;
      const wait = last + budget.frameMs - now();
      // after this turn of the loop at the earliest: the rest of the read joins this frame
      if (wait <= 0) immediate = setImmediate(fire);
      else timer = setTimeout(fire, wait);
    });
    return () => {
      off();
      if (immediate !== undefined) clearImmediate(immediate);
      clearTimeout(timer);
    };
  };
}
