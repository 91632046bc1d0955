// Printing history again: Ink's <Static> prints each item once and cannot re-flow it, so after a
// width change (once it settles) or when the conversation is replaced (/clear, a resumed session)
// the screen is cleared and <Static> remounted under a new key, which prints all of it again.
import { useStdout } from 'ink';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';

/** Clear the screen and its scrollback, cursor home: history is printed again after it. */
export const CLEAR_SCREEN = '\u001B[2J\u001B[3J\u001B[H';
/** Width changes are followed this long after the last one (a drag sends many). */
export const REFLOW_DELAY_MS = 150;

/**
 * History is printed once through <Static>, so it cannot re-flow by itself: when the width has
 * changed (and settled), or the conversation was replaced (`epoch`), clear the screen and print
 * history again. The clear goes through Ink, which redraws the live region after it. Returns
 * the key for <Static>, which changes each time.
 */
export function useReprint(columns: number, hasHistory: boolean, epoch: number): string {
  const { write } = useStdout();
  const [printed, setPrinted] = useState({ columns, n: 0 });
  const seenEpoch = useRef(epoch);
  // Whether this screen has printed history since the last clear: a session resumed at startup
  // must not wipe the shell's scrollback above cxl. Taken as the epoch changes, before this
  // render's history counts: the first frame of a new conversation may already hold some (the
  // screen draws at most once a frame, and a replay is drawn once it is in).
  const printedHistory = useRef(false);
  const clearFor = useRef({ epoch, clear: false });
  if (clearFor.current.epoch !== epoch) {
    clearFor.current = { epoch, clear: printedHistory.current };
    printedHistory.current = false;
  }
  if (hasHistory) printedHistory.current = true;
  useEffect(() => {
    if (columns === printed.columns) return;
    const t = setTimeout(() => {
      if (hasHistory) write(CLEAR_SCREEN);
      setPrinted((p) => ({ columns, n: hasHistory ? p.n + 1 : p.n }));
    }, REFLOW_DELAY_MS);
    return () => clearTimeout(t);
  }, [columns, printed.columns, hasHistory, write]);
  useLayoutEffect(() => {
    if (epoch === seenEpoch.current) return;
    seenEpoch.current = epoch;
    if (!clearFor.current.clear) return;
    write(CLEAR_SCREEN);
    // Ink printed this render's history before the clear (it writes as the render commits, before
    // layout effects): print it again after it
    if (hasHistory) setPrinted((p) => ({ ...p, n: p.n + 1 }));
  }, [epoch, write, hasHistory]);
  return `${epoch}:${printed.n}`;
}
