// An argv as one line a person can read back as exactly that argv: each word as shell_word.ts
// quotes it, but for one thing. Single quotes keep a
// newline or a tab inside its quotes, so `rm -rf 'build⏎⏎⏎' src` spreads over rows and its last
// operand falls below what an approval shows. A word holding a control or another hidden character
// (hidden_text.ts: bidi, zero-width, tag characters, …) is written in ANSI-C quotes instead
// (`$'build\n\n\n'`), every such character as an escape: the line stays one line and every
// operand stays on it.
import { findHidden } from './hidden_text.ts';
import { shellWord } from './shell_word.ts';

const ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\t': '\\t', '\r': '\\r', '\\': '\\\\', "'": "\\'" };

/** A hidden code point inside `$'…'`: `\xHH` below 0x100, `\uHHHH` or `\UHHHHHHHH` above. */
function escapeHidden(cp: number): string {
  if (cp < 0x100) return `\\x${cp.toString(16).padStart(2, '0')}`;
  return cp <= 0xffff ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\U${cp.toString(16).padStart(8, '0')}`;
}

/** A word as sh reads it back: plain, in single quotes (shellWord), or in `$'…'` when it holds what would not show. */
export function quoteWord(word: string, program = false): string {
  const hidden = findHidden(word);
  if (!hidden.length) return shellWord(word, program);
  const at = new Set(hidden.map((h) => h.offset));
  let out = "$'";
  for (let i = 0; i < word.length; ) {
    const cp = word.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    out += ESCAPES[ch] ?? (at.has(i) ? escapeHidden(cp) : ch);
    i += ch.length;
  }
  return `${out}'`;
}

/** The argv of a step as one display line, quoted so it reads back as the same argv. */
export function displayArgv(argv: readonly string[]): string {
  return argv.map((w, i) => quoteWord(w, i === 0)).join(' ');
}
