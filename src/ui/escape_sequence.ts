// Where one escape sequence in the terminal's input ends. Keys send CSI (`ESC [1;5D`), SS3
// (`ESC OA`) or ESC and a character (Alt); the terminal itself sends reports: answers to its
// queries that came late (the background colour, OSC 11; device attributes, `ESC [?64;1c`),
// focus changes, and strings (OSC `ESC ] … BEL`, DCS `ESC P … ESC \`, APC, PM, SOS) that are no key
// at all. Ink splits its input without knowing strings (`ESC ]` becomes Alt+] and the rest typed
// text) and hands a sequence cut between two reads over in pieces, so the input decoder joins the
// pieces again and asks here where each sequence ends.

const ESC = '\u001B';
const BEL = '\u0007';
// ST in its 8-bit form, as a terminal writing UTF-8 may send it
const ST8 = '\u009C';

/**
 * `key`: a sequence a key may send (the key parser names it, or finds no key in it: a CSI report
 * such as `ESC [?64;1c` or a cursor position); `string`: a whole OSC, DCS, APC, PM or SOS string;
 * `broken`: a sequence cut short by a byte that cannot go on with it (dropped).
 */
export type SequenceKind = 'key' | 'string' | 'broken';

/** The end of the sequence at `at`, or `pending` when the input ends before it does. */
export type Scan = { end: number; kind: SequenceKind } | 'pending';

// the introducers of the strings a terminal sends, after ESC
const STRING_START = new Set([']', 'P', '_', '^', 'X']);

/** The part of a sequence held for more input that is a key by itself (Esc, Alt+[, Alt+]). */
// eslint-disable-next-line no-control-regex
const BARE = /^\u001B(?:\u001B[[O]?|[[O\]P_^X])?$/;

export function isBare(held: string): boolean {
  return BARE.test(held);
}

/** Past this length a held string is kept as its start and its last character. */
const HELD_MAX = 1024;

/**
 * What of a held sequence is kept for the rest of it: a string's middle (an OSC 52 answer may be
 * megabytes, in many reads) decides nothing, since it holds no terminator and no control
 * character; its start and its last character (an ESC that may yet make ST) do. Kept whole, it
 * would be copied and scanned again at every read.
 */
export function shortened(held: string): string {
  if (held.length <= HELD_MAX || !STRING_START.has(held[1] ?? '')) return held;
  return held.slice(0, 3) + held.slice(-1);
}

const isParam = (c: number) => c >= 0x20 && c <= 0x3f;
const isFinal = (c: number) => c >= 0x40 && c <= 0x7e;

/** CSI after `ESC [` (or `ESC ESC [`) at `from`: parameters and intermediates, then a final byte. */
function csi(s: string, from: number): Scan {
  for (let j = from; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (isParam(c)) continue;
    // the Linux console's F1-F5: ESC [[A
    if (c === 0x5b && j === from) continue;
    if (isFinal(c)) return { end: j + 1, kind: 'key' };
    // ESC [ and a control character: Alt+[ then that key; with parameters, a sequence cut short
    return j === from ? { end: from, kind: 'key' } : { end: j, kind: 'broken' };
  }
  return 'pending';
}

/** SS3 after `ESC O` at `from`: one final byte. */
function ss3(s: string, from: number): Scan {
  if (from >= s.length) return 'pending';
  return isFinal(s.charCodeAt(from)) ? { end: from + 1, kind: 'key' } : { end: from, kind: 'key' };
}

/**
 * A string after its introducer at `from`, to BEL or ST (`ESC \`). A control character in it (a
 * key: no report holds one) or an ESC that does not make ST ends it there, dropped: a report cut
 * short leaves no text behind, and the key after it still acts. With nothing in it, the
 * introducer was Alt and a key (Alt+], Alt+Shift+P).
 */
function string(s: string, from: number): Scan {
  for (let j = from; j < s.length; j++) {
    const ch = s[j];
    if (ch === BEL || ch === ST8) return { end: j + 1, kind: 'string' };
    if (ch === ESC) {
      if (j + 1 >= s.length) return 'pending';
      if (s[j + 1] === '\\') return { end: j + 2, kind: 'string' };
    }
    if (ch === ESC || s.charCodeAt(j) < 0x20) return j === from ? { end: from, kind: 'key' } : { end: j, kind: 'broken' };
  }
  return 'pending';
}

/** The escape sequence starting at `at` (where `s` has an ESC), as far as `s` goes. */
export function scanEscape(s: string, at: number): Scan {
  const next = s[at + 1];
  if (next === undefined) return 'pending';
  if (next === '[') return csi(s, at + 2);
  if (next === 'O') return ss3(s, at + 2);
  if (STRING_START.has(next)) return string(s, at + 2);
  if (next === ESC) {
    // ESC ESC: Esc, or Alt with a key that sends a sequence (rxvt's Alt+←: ESC ESC [D)
    const third = s[at + 2];
    if (third === undefined) return 'pending';
    if (third === '[') return csi(s, at + 3);
    if (third === 'O') return ss3(s, at + 3);
    return { end: at + 2, kind: 'key' };
  }
  // ESC and one character (a whole code point): Alt held with that key
  const cp = s.codePointAt(at + 1) ?? 0;
  return { end: at + (cp > 0xffff ? 3 : 2), kind: 'key' };
}
