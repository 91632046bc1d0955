// The one answer to "does this text hide something": a character that shows as nothing, or that
// changes how the text around it displays, so what a person reads is not what is there. Asked by
// the shell's lexer and the argv form's check (refused), jq_query's filter (refused), the argv
// display (escaped), approvals and everything else printed to a terminal (marked `⟨U+202E⟩`).
//
// Hidden:
// - every control character (C0, DEL, C1) but those a caller lets through (newline, tab);
// - format characters (\p{Cf}): bidi embeddings, overrides, isolates and marks (U+202A-202E,
//   U+2066-2069, U+200E/200F, U+061C), zero-width space and joiners (U+200B-200D), word joiner
//   and invisible operators (U+2060-2064), the BOM (U+FEFF), the soft hyphen, interlinear
//   annotation (U+FFF9-FFFB), U+180E, tag characters (U+E0001, U+E0020-E007F);
// - line and paragraph separators (U+2028/2029);
// - every Default_Ignorable_Code_Point: Unicode's own list of what renders as nothing when a font
//   has no glyph for it (variation selectors, the combining grapheme joiner U+034F, the Hangul
//   fillers U+115F/1160/3164/FFA0, the unassigned tag block up to U+E0FFF, ...);
// - private use (it shows whatever a font puts there, often nothing), lone surrogates, and code
//   points unassigned in the Unicode version the runtime knows.
//
// Not hidden, inside an emoji and nowhere else (what emoji are made of, and they show):
// - a ZWJ between two pictographs (👨‍👩‍👧), a skin tone or VS-16 after the first allowed;
// - one VS-15 or VS-16 right after an emoji character that is not ASCII (❤️), or after 0-9, #
//   or * when U+20E3 follows (the keycap 1️⃣);
// - the tag letters of the three subdivision flags Unicode recommends (England, Scotland, Wales).
// A variation selector after plain text, a second one, or tag characters spelling anything else
// are hidden: data rides on exactly those (text in tag characters, bytes in variation selectors
// after an emoji). A ZWJ or ZWNJ in Persian or an Indic script is marked too: the cost of a mark
// there, against a character that hides text anywhere else.

/** The rule, for one code point: what is hidden unless an emoji is made of it. */
const CANDIDATE = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}\p{Cn}\p{Default_Ignorable_Code_Point}]$/u;
const PICTOGRAPH = /^\p{Extended_Pictographic}$/u;
const EMOJI = /^\p{Emoji}$/u;

const ZWJ = 0x200d;
const VS15 = 0xfe0e;
const VS16 = 0xfe0f;
const KEYCAP = 0x20e3;
const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;
const tagged = (s: string) => [...s].map((c) => String.fromCodePoint(0xe0000 + c.codePointAt(0)!)).join('') + String.fromCodePoint(CANCEL_TAG);
/** The tag runs after 🏴 that make the RGI subdivision flags: England, Scotland, Wales. */
const FLAG_TAGS = ['gbeng', 'gbsct', 'gbwls'].map(tagged);

/** A hidden character: where it is (a string index) and what it is. */
export interface HiddenChar {
  offset: number;
  codePoint: number;
}

const isTagLetter = (cp: number) => cp >= 0xe0020 && cp <= 0xe007e;
const isSkinTone = (cp: number) => cp >= 0x1f3fb && cp <= 0x1f3ff;

/** The code point that ends just before string index `i`, and where it starts. */
function before(text: string, i: number): { cp: number; at: number } | undefined {
  if (i <= 0) return undefined;
  const lo = text.charCodeAt(i - 1);
  if (lo >= 0xdc00 && lo <= 0xdfff && i >= 2) {
    const hi = text.charCodeAt(i - 2);
    if (hi >= 0xd800 && hi <= 0xdbff) return { cp: text.codePointAt(i - 2)!, at: i - 2 };
  }
  return { cp: lo, at: i - 1 };
}

/** Whether the candidate `cp` at `i` is part of an emoji as Unicode spells one. */
function inEmoji(text: string, i: number, cp: number): boolean {
  const width = cp > 0xffff ? 2 : 1;
  if (cp === ZWJ) {
    let prev = before(text, i);
    if (prev && (prev.cp === VS16 || isSkinTone(prev.cp))) prev = before(text, prev.at);
    const next = text.codePointAt(i + 1);
    return prev !== undefined && next !== undefined && PICTOGRAPH.test(String.fromCodePoint(prev.cp)) && PICTOGRAPH.test(String.fromCodePoint(next));
  }
  if (cp === VS15 || cp === VS16) {
    const prev = before(text, i);
    if (!prev) return false;
    if (prev.cp < 0x80) return /[0-9#*]/.test(String.fromCharCode(prev.cp)) && text.codePointAt(i + width) === KEYCAP;
    return EMOJI.test(String.fromCodePoint(prev.cp));
  }
  if (isTagLetter(cp) || cp === CANCEL_TAG) {
    // back to the start of this run of tag letters: 🏴 must be right before it
    let start = i;
    for (let p = before(text, start); p && isTagLetter(p.cp); p = before(text, start)) start = p.at;
    const base = before(text, start);
    if (!base || base.cp !== BLACK_FLAG) return false;
    return FLAG_TAGS.some((seq) => text.startsWith(seq, start) && i < start + seq.length);
  }
  return false;
}

// Every span of every frame is asked (terminal_text.ts): the rule's answer for each code point of
// the BMP and of the emoji plane is kept once asked (0 not yet, 1 shown, 2 a candidate), so a
// line costs a table lookup a character, not a walk of the Unicode property tables.
const BMP = new Uint8Array(0x10000);
const PLANE1 = new Uint8Array(0x10000);

function isCandidate(cp: number): boolean {
  const table = cp < 0x10000 ? BMP : cp < 0x20000 ? PLANE1 : undefined;
  if (!table) return CANDIDATE.test(String.fromCodePoint(cp));
  const k = cp & 0xffff;
  if (table[k] === 0) table[k] = CANDIDATE.test(String.fromCodePoint(cp)) ? 2 : 1;
  return table[k] === 2;
}

/** The string index of the first candidate in `text` at or after `from`, or -1. */
function nextCandidate(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f) continue;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const lo = text.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        if (isCandidate(((c - 0xd800) << 10) + (lo - 0xdc00) + 0x10000)) return i;
        i++;
        continue;
      }
    }
    if (isCandidate(c)) return i;
  }
  return -1;
}

/** The hidden character at `i` (a candidate), unless the caller allows it or an emoji is made of it. */
function hiddenAt(text: string, i: number, allow: string): HiddenChar | undefined {
  const cp = text.codePointAt(i)!;
  if (allow && allow.includes(String.fromCodePoint(cp))) return undefined;
  return inEmoji(text, i, cp) ? undefined : { offset: i, codePoint: cp };
}

/** Every hidden character of `text`, in order; `allow` lists characters let through (e.g. "\n\t"). */
export function findHidden(text: string, allow = ''): HiddenChar[] {
  const out: HiddenChar[] = [];
  for (let i = nextCandidate(text, 0); i >= 0; i = nextCandidate(text, i + (text.codePointAt(i)! > 0xffff ? 2 : 1))) {
    const h = hiddenAt(text, i, allow);
    if (h) out.push(h);
  }
  return out;
}

/** The first hidden character of `text`, or undefined; `allow` as for findHidden. */
export function firstHidden(text: string, allow = ''): HiddenChar | undefined {
  for (let i = nextCandidate(text, 0); i >= 0; i = nextCandidate(text, i + (text.codePointAt(i)! > 0xffff ? 2 : 1))) {
    const h = hiddenAt(text, i, allow);
    if (h) return h;
  }
  return undefined;
}

/** Whether `text` holds a hidden character (`allow` as for findHidden). */
export function hasHidden(text: string, allow = ''): boolean {
  return firstHidden(text, allow) !== undefined;
}

/** A code point as the visible mark that stands for it: `⟨U+202E⟩`. */
export function hiddenMark(cp: number): string {
  return `⟨U+${cp.toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/** `text` with each hidden character (but those in `allow`) shown as its mark. */
export function markHidden(text: string, allow = ''): string {
  // most text holds no candidate: no array, no copy
  if (nextCandidate(text, 0) < 0) return text;
  const hits = findHidden(text, allow);
  if (!hits.length) return text;
  let out = '';
  let from = 0;
  for (const h of hits) {
    out += text.slice(from, h.offset) + hiddenMark(h.codePoint);
    from = h.offset + (h.codePoint > 0xffff ? 2 : 1);
  }
  return out + text.slice(from);
}

/** What kind of hidden character `cp` is, in words (for a refusal that names it). */
export function hiddenKind(cp: number): string {
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 'control character';
  if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp === 0x200e || cp === 0x200f || cp === 0x061c) return 'bidi control';
  if ((cp >= 0x200b && cp <= 0x200d) || (cp >= 0x2060 && cp <= 0x2064) || cp === 0xfeff || cp === 0x180e) return 'zero-width character';
  if (cp >= 0xe0000 && cp <= 0xe007f) return 'tag character';
  if ((cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef) || (cp >= 0x180b && cp <= 0x180f)) return 'variation selector';
  if (cp === 0x115f || cp === 0x1160 || cp === 0x3164 || cp === 0xffa0) return 'Hangul filler';
  if (cp >= 0xfff9 && cp <= 0xfffb) return 'interlinear annotation';
  if (cp === 0x00ad) return 'soft hyphen';
  if (cp === 0x034f) return 'combining grapheme joiner';
  if (cp === 0x2028 || cp === 0x2029) return 'line or paragraph separator';
  const ch = String.fromCodePoint(cp);
  if (/\p{Co}/u.test(ch)) return 'private-use character';
  if (/\p{Cs}/u.test(ch)) return 'lone surrogate';
  if (/\p{Cn}/u.test(ch)) return 'unassigned code point';
  return 'invisible character';
}
