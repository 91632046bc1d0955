// Terminal modes the UI turns on while it runs and must turn off however it ends: bracketed paste
// (the terminal marks pasted text, so a newline in it never sends the prompt), focus reporting
// (the terminal says when it gains and loses the focus, so a notification goes out only when the
// person is elsewhere), and the title (saved on the terminal's title stack, restored at the end).
// Left on after a crash, every later paste into the user's shell would arrive wrapped in
// `[200~ … [201~`, and every focus change would print `[I` / `[O`.
import { onProcessEnd } from '../core/platform/runtime.ts';

export const BRACKETED_PASTE_ON = '\u001B[?2004h';
export const BRACKETED_PASTE_OFF = '\u001B[?2004l';
export const FOCUS_REPORTING_ON = '\u001B[?1004h';
export const FOCUS_REPORTING_OFF = '\u001B[?1004l';
/** xterm's title stack (XTWINOPS 22/23): the title before cxl comes back when it ends. */
export const TITLE_SAVE = '\u001B[22;0t';
export const TITLE_RESTORE = '\u001B[23;0t';

export interface ModeWriter {
  write(s: string): unknown;
}

export interface TerminalModes {
  /** report focus changes (for notifications) */
  focus?: boolean;
  /** the title will be set: save the current one */
  title?: boolean;
}

/**
 * Turn the modes on and return the function that turns them off. It also runs on process exit
 * (a thrown error, process.exit from anywhere), where a TTY or pipe write is still synchronous.
 */
export function enableTerminalModes(out: ModeWriter, modes: TerminalModes = {}): () => void {
  out.write(`${BRACKETED_PASTE_ON}${modes.focus ? FOCUS_REPORTING_ON : ''}${modes.title ? TITLE_SAVE : ''}`);
  let restored = false;
  let off = () => {};
  const restore = () => {
    if (restored) return;
    restored = true;
    off();
    try {
      out.write(`${BRACKETED_PASTE_OFF}${modes.focus ? FOCUS_REPORTING_OFF : ''}${modes.title ? TITLE_RESTORE : ''}`);
    } catch {
      /* the terminal is gone */
    }
  };
  off = onProcessEnd(restore);
  return restore;
}
