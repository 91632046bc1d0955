// The one sanitiser for text cxl prints that came from a model, a file or a command. A terminal
// interprets escape sequences rather than showing them: an OSC 52 in a model's answer writes the
// clipboard, `\r` and `\e[2K` rewrite what a log line says ran. Bidi controls, zero-width and tag
// characters make text read differently from what it is (Trojan Source, text smuggled past a
// reader). So: escape sequences and C0/C1 controls are removed (tabs become spaces, newlines stay),
// and every other hidden character (hidden_text.ts, the one rule) is shown as a visible mark
// (`⟨U+202E⟩`). What a person is asked to approve is shown, never cleaned: there every control
// character becomes a mark too (`showControls`).
import { markHidden } from './hidden_text.ts';

// eslint-disable-next-line no-control-regex
const ESCAPES = /\u001B\[[0-?]*[ -/]*[@-~]|\u001B\][^\u0007\u001B]*(?:\u0007|\u001B\\)?|\u001B[PX^_][^\u001B]*(?:\u001B\\)?|\u001B[ -/]*[0-~]|\u009B[0-?]*[ -/]*[@-~]|\u009D[^\u0007\u009C]*[\u0007\u009C]?/g;
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
// eslint-disable-next-line no-control-regex
const ANY_CONTROL = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F]/;

/** Escape sequences and control characters removed; tabs as four spaces; newlines kept. */
export function stripControls(text: string): string {
  if (!ANY_CONTROL.test(text)) return text;
  return text.replace(/\t/g, '    ').replace(ESCAPES, '').replace(CONTROLS, '');
}

/** Text as it may reach a terminal: controls and escapes removed, every other hidden character marked. */
export function forTerminal(text: string): string {
  // every span of every frame passes here: most text has nothing to remove or mark
  return markHidden(stripControls(text), '\n');
}

/**
 * Text a person is asked to approve (a command line as it will run): nothing removed, every
 * control character but the newline and every other hidden character shown as a mark, so what
 * is read is what runs (`rm -rf build⟨U+000D⟩⟨U+001B⟩[2K…`, not a line the terminal rewrote).
 */
export function showControls(text: string): string {
  return markHidden(text, '\n');
}

/**
 * A line of a file as a diff shows it, approvals' diffs among them: tabs as four spaces (the
 * columns stay), every other control and hidden character marked, never removed.
 */
export function showLine(text: string): string {
  return markHidden(text.includes('\t') ? text.replace(/\t/g, '    ') : text, '\n');
}
