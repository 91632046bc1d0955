// Terminal modes the UI turns on while it runs and must turn off however it ends: bracketed paste
// (the terminal marks pasted text, so a newline in it never sends the prompt). Left on after a
// crash, every later paste into the user's shell would arrive wrapped in `[200~ … [201~`.
import { onProcessEnd } from '../core/platform/runtime.ts';

export const BRACKETED_PASTE_ON = '\u001B[?2004h';
export const BRACKETED_PASTE_OFF = '\u001B[?2004l';

export interface ModeWriter {
  write(s: string): unknown;
}

/**
 * Turn the modes on and return the function that turns them off. It also runs on process exit
 * (a thrown error, process.exit from anywhere), where a TTY or pipe write is still synchronous.
 */
export function enableTerminalModes(out: ModeWriter): () => void {
  out.write(BRACKETED_PASTE_ON);
  let restored = false;
  let off = () => {};
  const restore = () => {
    if (restored) return;
    restored = true;
    off();
    try {
      out.write(BRACKETED_PASTE_OFF);
    } catch {
      /* the terminal is gone */
    }
  };
  off = onProcessEnd(restore);
  return restore;
}
