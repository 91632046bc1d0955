// The hidden-character cases every entry point is tried with (core/hidden_text.ts is the one
// rule): one or more characters of each class, each put inside ordinary text, and the ordinary
// Unicode beside them that must pass unmarked (accents, CJK, emoji and how emoji are built).

export interface HiddenCase {
  /** the class, as a test names it */
  what: string;
  /** the text holding it: `safe<ch>text` */
  text: string;
  /** the hidden code points the text holds, in order */
  codePoints: number[];
}

const inside = (what: string, ch: string, codePoints = [ch.codePointAt(0)!]): HiddenCase => ({ what, text: `safe${ch}text`, codePoints });

export const HIDDEN_CASES: readonly HiddenCase[] = [
  inside('C0 control (BEL)', '\u0007'),
  inside('C1 control (CSI)', '\u009b'),
  inside('bidi override (RLO)', '\u202e'),
  inside('bidi isolate (RLI)', '\u2067'),
  inside('bidi mark (RLM)', '\u200f'),
  inside('Arabic letter mark', '\u061c'),
  inside('zero width space', '\u200b'),
  inside('zero width non-joiner', '\u200c'),
  inside('zero width joiner outside an emoji', '\u200d'),
  inside('word joiner', '\u2060'),
  inside('invisible separator', '\u2063'),
  inside('byte order mark', '\ufeff'),
  inside('Mongolian vowel separator', '\u180e'),
  inside('tag letter (ASCII smuggling)', '\u{e0041}'),
  inside('tag run that spells text', '\u{e0069}\u{e0067}\u{e006e}', [0xe0069, 0xe0067, 0xe006e]),
  inside('language tag', '\u{e0001}'),
  inside('cancel tag alone', '\u{e007f}'),
  inside('variation selector after ASCII', '\ufe0f'),
  inside('variation selector supplement', '\u{e0100}'),
  inside('interlinear annotation anchor', '\ufff9'),
  inside('soft hyphen', '\u00ad'),
  inside('Hangul choseong filler', '\u115f'),
  inside('Hangul jungseong filler', '\u1160'),
  inside('Hangul filler', '\u3164'),
  inside('halfwidth Hangul filler', '\uffa0'),
  inside('combining grapheme joiner', '\u034f'),
  inside('Khmer inherent vowel (default ignorable)', '\u17b4'),
  inside('unassigned default ignorable', '\u2065'),
  inside('line separator', '\u2028'),
  inside('private use', '\ue000'),
  inside('lone surrogate', '\ud800'),
  { what: 'bytes in variation selectors after an emoji', text: 'ok 😀\u{e0100}\u{e0101}\ufe01 ok', codePoints: [0xe0100, 0xe0101, 0xfe01] },
  { what: 'a second VS-16 after an emoji', text: 'love ❤\ufe0f\ufe0f', codePoints: [0xfe0f] },
  { what: 'tags after a black flag that are not a flag', text: 'flag 🏴\u{e0068}\u{e0069}\u{e007f}', codePoints: [0xe0068, 0xe0069, 0xe007f] },
  { what: 'a ZWJ after an emoji with text after it', text: 'hi 👍\u200dthere', codePoints: [0x200d] },
];

/** Ordinary Unicode: shown as it is by every entry point, accepted inside quotes by the lexer. */
export const ORDINARY: readonly { what: string; text: string }[] = [
  { what: 'accents', text: 'café naïve Ångström' },
  { what: 'CJK', text: '日本語 中文 한국어' },
  { what: 'an emoji', text: 'done 🙂' },
  { what: 'a ZWJ family', text: 'family 👨‍👩‍👧' },
  { what: 'a skin tone in a ZWJ sequence', text: 'coder 🧑🏽‍💻' },
  { what: 'VS-16 on an emoji', text: 'love ❤️' },
  { what: 'a VS-16 then a ZWJ (rainbow flag)', text: 'flag 🏳️‍🌈' },
  { what: 'a keycap', text: 'step 1️⃣' },
  { what: 'the Scotland flag (a tag sequence)', text: 'flag 🏴󠁧󠁢󠁳󠁣󠁴󠁿' },
  { what: 'Arabic and Hebrew letters', text: 'مرحبا שלום' },
];
