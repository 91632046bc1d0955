// A strict lexer for the small subset of sh grammar the command policy vouches for: words made of
// plain characters, '…' and "…" quoting, and the operators && || ;. Every other byte is refused
// with the construct it would start in sh and its offset, so the checker can never read a line
// differently from how a shell would (see docs/local-shell.md). This is deliberately not
// shell-quote's parse(), which disagrees with sh on newlines, \r, backticks, ${IFS}, # and $'…'.
import { firstHidden, hiddenKind } from '../hidden_text.ts';

/** Lines longer than this (UTF-8 bytes, after trimming one trailing newline) are refused. */
export const MAX_LINE_BYTES = 16 * 1024;

export type Operator = '&&' | '||' | ';';

export interface WordToken {
  kind: 'word';
  /** the word after quote removal: exactly the argv element it becomes */
  value: string;
  /** true when any part of the word was quoted */
  quoted: boolean;
  /** offsets into the original line, [start, end) */
  start: number;
  end: number;
}

export interface OperatorToken {
  kind: 'op';
  op: Operator;
  start: number;
  end: number;
}

export type Token = WordToken | OperatorToken;

/** Why the lexer refused a line: the sh construct, where it starts, and a sentence for humans. */
export interface Refusal {
  /** short name of the construct, e.g. "pipe", "command substitution $(…)", "glob *" */
  construct: string;
  /** 0-based offset into the line as given (UTF-16 code units, like String indices) */
  position: number;
  message: string;
}

export type LexResult =
  | { ok: true; tokens: Token[]; line: string }
  /** `tokens` holds what was read before the refusal (to tell which step it is in) */
  | { ok: false; refusal: Refusal; tokens: Token[] };

// Unquoted characters that form words. Everything outside this set (and outside quotes) is
// either a separator we understand or refused.
const WORD_CHARS = /[A-Za-z0-9._/=:@%+,-]/;

// Characters that sh interprets, named after what they start there.
function unquotedConstruct(line: string, i: number): string | null {
  const c = line[i];
  const next = line[i + 1];
  switch (c) {
    case '|':
      return next === '&' ? 'pipe |&' : 'pipe |';
    case '&':
      return next === '>' ? 'redirection &>' : 'background operator &';
    case '<':
      if (next === '(') return 'process substitution <(…)';
      if (line.startsWith('<<<', i)) return 'here-string <<<';
      if (next === '<') return 'here-document <<';
      return 'redirection <';
    case '>':
      if (next === '(') return 'process substitution >(…)';
      return next === '>' ? 'redirection >>' : 'redirection >';
    case '$':
      if (line.startsWith('$((', i)) return 'arithmetic expansion $((…))';
      if (next === '(') return 'command substitution $(…)';
      if (next === '{') return 'parameter expansion ${…}';
      if (next === "'") return "ANSI-C quoting $'…'";
      if (next === '"') return 'locale quoting $"…"';
      return 'variable expansion $';
    case '`':
      return 'command substitution `…`';
    case '\\':
      return next === '\n' ? 'line continuation \\' : 'escape \\';
    case '*':
      return 'glob *';
    case '?':
      return 'glob ?';
    case '[':
    case ']':
      return `glob bracket ${c}`;
    case '{':
    case '}':
      return `brace ${c} (brace expansion or group)`;
    case '(':
    case ')':
      return `parenthesis ${c} (subshell, function or pattern)`;
    case '!':
      return 'history expansion or negation !';
    case '#':
      return 'comment #';
    case '~':
      return 'tilde expansion ~';
    case '^':
      return 'caret ^ (a pipe in some shells)';
    case '"':
    case "'":
      return null;
    default:
      return null;
  }
}

/** A name for a character no rule accepts: control characters and non-ASCII get their code point. */
export function describeChar(ch: string): string {
  const cp = ch.codePointAt(0)!;
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  const names: Record<number, string> = {
    0x00: 'NUL',
    0x09: 'tab',
    0x0a: 'newline',
    0x0b: 'vertical tab',
    0x0c: 'form feed',
    0x0d: 'carriage return',
    0x1b: 'escape',
    0x7f: 'delete',
    0xa0: 'no-break space',
    0x200b: 'zero width space',
    0x202e: 'right-to-left override',
    0xfeff: 'byte order mark',
  };
  if (names[cp]) return `${hex} (${names[cp]})`;
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return `control character ${hex}`;
  if (firstHidden(ch) !== undefined) return `${hex} (${hiddenKind(cp)})`;
  return `${hex} '${ch}'`;
}

// Characters refused even inside quotes: they are harmless to sh there but hide or disguise text
// from the human who reviews the line (hidden_text.ts: control characters, bidi controls,
// zero-width, tag and other invisible characters, lone surrogates, private use). Newline and tab
// stay allowed.
const ALLOWED_IN_QUOTES = '\n\t';

/**
 * The first character of a word the lexer refuses even inside quotes (newline and tab are data
 * there), with its offset: the same rule for an `args` element, which no lexer reads.
 */
export function hiddenCharacter(word: string): { offset: number; description: string } | undefined {
  const hit = firstHidden(word, ALLOWED_IN_QUOTES);
  return hit && { offset: hit.offset, description: describeChar(String.fromCodePoint(hit.codePoint)) };
}

/** The string index of the character holding UTF-8 byte `limit` (where a byte limit is crossed). */
function offsetOfByte(s: string, limit: number): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const w = c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 4 : 3;
    if (n + w > limit) return i;
    n += w;
    if (w === 4) i++;
  }
  return s.length;
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * Splits `line` into words and operators, or refuses it. One trailing newline is trimmed (what a
 * model or an editor appends); any other unquoted newline, and every control character other than
 * tab, is refused. Tabs and spaces separate words outside quotes and are literal inside them.
 */
export function lex(input: string): LexResult {
  const line = input.endsWith('\n') ? input.slice(0, -1) : input;
  const bytes = utf8Length(line);
  if (bytes > MAX_LINE_BYTES) {
    return { ok: false, tokens: [], refusal: { construct: 'over-long line', position: offsetOfByte(line, MAX_LINE_BYTES), message: `the line is ${bytes} bytes; the policy checks lines up to ${MAX_LINE_BYTES} bytes. Split it into several calls.` } };
  }
  const tokens: Token[] = [];
  const refuse = (construct: string, position: number, message: string): LexResult => ({
    ok: false,
    refusal: { construct, position, message },
    tokens,
  });
  let i = 0;
  const n = line.length;
  while (i < n) {
    const c = line[i];
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === '&' && line[i + 1] === '&') {
      tokens.push({ kind: 'op', op: '&&', start: i, end: i + 2 });
      i += 2;
      continue;
    }
    if (c === '|' && line[i + 1] === '|') {
      tokens.push({ kind: 'op', op: '||', start: i, end: i + 2 });
      i += 2;
      continue;
    }
    if (c === ';') {
      if (line[i + 1] === ';' || line[i + 1] === '&') {
        return refuse(`case terminator ;${line[i + 1]}`, i, `\`;${line[i + 1]}\` at offset ${i} belongs to a case statement, which the policy cannot vouch for.`);
      }
      tokens.push({ kind: 'op', op: ';', start: i, end: i + 1 });
      i += 1;
      continue;
    }
    // A word: a run of plain characters and quoted strings with no separator between them.
    const start = i;
    let value = '';
    let quoted = false;
    while (i < n) {
      const ch = line[i];
      if (ch === ' ' || ch === '\t' || ch === ';' || (ch === '&' && line[i + 1] === '&') || (ch === '|' && line[i + 1] === '|')) break;
      if (ch === "'" || ch === '"') {
        const close = line.indexOf(ch, i + 1);
        if (close < 0) {
          return refuse(`unterminated ${ch === "'" ? 'single' : 'double'} quote`, i, `the ${ch === "'" ? 'single' : 'double'} quote at offset ${i} is never closed.`);
        }
        const body = line.slice(i + 1, close);
        const hidden = firstHidden(body, ALLOWED_IN_QUOTES)?.offset;
        for (let k = 0; k < body.length; k++) {
          const b = body[k];
          const at = i + 1 + k;
          if (b === '\n' || b === '\t') continue;
          if (ch === '"' && (b === '$' || b === '`' || b === '\\' || b === '!')) {
            const what = b === '$' ? unquotedConstruct(line, at)! : b === '`' ? 'command substitution `…`' : b === '\\' ? 'escape \\' : 'history expansion !';
            return refuse(
              `${what} inside double quotes`,
              at,
              `\`${b}\` at offset ${at} is still interpreted inside double quotes (${what}). Use single quotes for literal text.`,
            );
          }
          const cp = body.codePointAt(k)!;
          const whole = String.fromCodePoint(cp);
          if (k === hidden) {
            return refuse(
              `character ${describeChar(whole)}`,
              at,
              `${describeChar(whole)} at offset ${at} inside quotes is refused: it is invisible or changes how the line displays. Remove it.`,
            );
          }
          if (cp > 0xffff) k++;
        }
        value += body;
        quoted = true;
        i = close + 1;
        continue;
      }
      if (WORD_CHARS.test(ch)) {
        value += ch;
        i++;
        continue;
      }
      if (ch === '~') {
        const prev = i > start ? line[i - 1] : '';
        // sh expands ~ at the start of a word; bash also after = and : (`x=~/a`, `a:~/b`).
        // Accept it only after a plain word character (HEAD~1), never after a quote.
        if (prev !== '' && /[A-Za-z0-9._/@%+,~-]/.test(prev)) {
          value += ch;
          i++;
          continue;
        }
        return refuse('tilde expansion ~', i, `\`~\` at offset ${i} expands to a home directory. Write the path out, or quote it if you mean a literal ~.`);
      }
      if (ch === '\n') {
        return refuse('newline', i, `an unquoted newline at offset ${i} separates commands in sh. Join the commands with \`;\` or \`&&\` on one line.`);
      }
      const construct = unquotedConstruct(line, i);
      if (construct) {
        return refuse(construct, i, `${construct} at offset ${i} is refused: the policy cannot vouch for what it does. ${hint(construct)}`);
      }
      const cp = line.codePointAt(i)!;
      const whole = String.fromCodePoint(cp);
      const desc = describeChar(whole);
      const kind = cp < 0x20 || cp === 0x7f ? 'control character' : cp > 0x7f ? 'non-ASCII character' : 'character';
      return refuse(
        `${kind} ${desc}`,
        i,
        `${desc} at offset ${i} is refused outside quotes${cp > 0x7f ? ' (lookalikes of ASCII names are never matched)' : ''}. ${
          cp < 0x20 || cp === 0x7f ? 'Remove it.' : 'Quote the argument if it is literal text.'
        }`,
      );
    }
    tokens.push({ kind: 'word', value, quoted, start, end: i });
  }
  return { ok: true, tokens, line };
}

function hint(construct: string): string {
  if (construct.startsWith('glob')) return 'Quote a pattern meant for the program (find -name \'*.go\'), or list the files.';
  if (construct.startsWith('pipe') || construct.startsWith('redirection') || construct.startsWith('here-')) {
    return 'Run each program as its own call and pass files by name.';
  }
  if (construct.startsWith('background')) return 'Run the commands one after another with `;` or `&&`.';
  if (construct.startsWith('comment')) return 'Drop the comment, or quote the # if it is an argument.';
  if (construct.startsWith('escape') || construct.startsWith('line continuation')) return 'Use single quotes instead of backslashes.';
  return 'Write the literal values out, one call per command.';
}
