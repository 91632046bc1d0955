// An argv as one line a person can read back as exactly that argv. shell-quote's quoting keeps a
// newline or a tab inside its quotes, so `rm -rf 'build⏎⏎⏎' src` spreads over rows and its last
// operand falls below what an approval shows. A word holding a control or an invisible character
// is written in ANSI-C quotes instead (`$'build\n\n\n'`), every such character as an escape:
// the line stays one line and every operand stays on it.
import { quote } from 'shell-quote';

// Control, format (bidi, zero-width), separator, private-use, surrogate and unassigned code points.
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}\p{Cn}]/u;

const ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\t': '\\t', '\r': '\\r', '\\': '\\\\', "'": "\\'" };

/** One character inside `$'…'`: the named escapes, `\xHH` below 0x100, `\uHHHH` or `\UHHHHHHHH` above. */
function escapeChar(ch: string): string {
  const named = ESCAPES[ch];
  if (named) return named;
  if (!HIDDEN.test(ch)) return ch;
  const cp = ch.codePointAt(0)!;
  if (cp < 0x100) return `\\x${cp.toString(16).padStart(2, '0')}`;
  return cp <= 0xffff ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\U${cp.toString(16).padStart(8, '0')}`;
}

/** A word as sh reads it back: plain, quoted by shell-quote, or in `$'…'` when it holds what would not show. */
export function quoteWord(word: string): string {
  if (!HIDDEN.test(word)) return quote([word]);
  let out = "$'";
  for (const ch of word) out += escapeChar(ch);
  return `${out}'`;
}

/** The argv of a step as one display line, quoted so it reads back as the same argv. */
export function displayArgv(argv: readonly string[]): string {
  return argv.map(quoteWord).join(' ');
}
