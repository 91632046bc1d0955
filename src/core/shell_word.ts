// A word, or an argv, as a POSIX shell reads it back: the one quoting for every line cxl builds
// or shows (argv_display.ts adds `$'…'` for what would not show). A plain word stays as it is
// (`@vendor`, `--model=x`, `./a.txt`); anything else goes in single quotes, where sh expands
// nothing, and a single quote inside is ended, escaped and reopened (`'it'\''s'`). shell-quote's
// `quote()` escaped `@` and `:` and chose double quotes: right for sh, not what people type.

/** Characters a word may hold and still mean itself to sh in any position but a command's first (`=`). */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

const quoted = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * One word, quoted only when sh would read it otherwise; `program`: it is a command's first
 * word, where `=` would make it an assignment (`A=b cmd` sets A for cmd). Throws on NUL, which no
 * argv can carry.
 */
export function shellWord(word: string, program = false): string {
  if (word.includes('\0')) throw new RangeError('a shell word cannot hold a NUL character (no program receives one in its arguments); remove it');
  return PLAIN.test(word) && !(program && word.includes('=')) ? word : quoted(word);
}

/** An argv as one command line sh splits back into the same argv. */
export function shellLine(argv: readonly string[]): string {
  return argv.map((w, i) => shellWord(w, i === 0)).join(' ');
}
