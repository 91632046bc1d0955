// The one sanitiser for text cxl prints that came from a model, a file or a command. A terminal
// interprets escape sequences rather than showing them: an OSC 52 in a model's answer writes the
// clipboard, `\r` and `\e[2K` rewrite what a log line says ran. Bidi controls and zero-width
// characters make text read differently from what it is (Trojan Source). So: escape sequences
// and C0/C1 controls are removed (tabs become spaces, newlines stay), and bidi and zero-width
// characters are shown as visible marks (`⟨U+202E⟩`). What a person is asked to approve is
// shown, never cleaned: there every control character becomes a mark too (`showControls`).

// eslint-disable-next-line no-control-regex
const ESCAPES = /\u001B\[[0-?]*[ -/]*[@-~]|\u001B\][^\u0007\u001B]*(?:\u0007|\u001B\\)?|\u001B[PX^_][^\u001B]*(?:\u001B\\)?|\u001B[ -/]*[0-~]|\u009B[0-?]*[ -/]*[@-~]|\u009D[^\u0007\u009C]*[\u0007\u009C]?/g;
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
// eslint-disable-next-line no-control-regex
const ANY_CONTROL = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F]/;
/** Bidi embeddings, overrides, isolates and marks; zero-width spaces and joiners; BOM; word joiner. */
const INVISIBLE = /[\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
const ANY_INVISIBLE = /[\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/;

/** Escape sequences and control characters removed; tabs as four spaces; newlines kept. */
export function stripControls(text: string): string {
  if (!ANY_CONTROL.test(text)) return text;
  return text.replace(/\t/g, '    ').replace(ESCAPES, '').replace(CONTROLS, '');
}

/** Bidi and zero-width characters as visible marks: `⟨U+202E⟩`. */
export function markInvisible(text: string): string {
  // every span of every frame passes here: most text has nothing to mark
  if (!ANY_INVISIBLE.test(text)) return text;
  return text.replace(INVISIBLE, (c) => `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`);
}

/** Text as it may reach a terminal: controls and escapes removed, invisible characters marked. */
export function forTerminal(text: string): string {
  return markInvisible(stripControls(text));
}

// eslint-disable-next-line no-control-regex
const SHOWN_CONTROLS = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F]/g;

/**
 * Text a person is asked to approve (a command line as it will run): nothing removed, every
 * control character but the newline and every invisible character shown as a mark, so what is
 * read is what runs (`rm -rf build⟨U+000D⟩⟨U+001B⟩[2K…`, not a line the terminal rewrote).
 */
export function showControls(text: string): string {
  return markInvisible(text.replace(SHOWN_CONTROLS, (c) => `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`));
}
