// The three mutations as pure functions on bytes: what write_file, edit_file and sed would make
// of a file's current content. The tools apply them; the approval diff replays them in memory.
// Matching is byte-exact on Buffers, so CRLF and invalid UTF-8 elsewhere in a file survive.
import { ToolError } from '../errors.ts';
import { findAll } from './byte_scan.ts';
import { countNewlines, decode, sliceLines } from './text.ts';

export interface MutationPlan {
  /** the proposed content as pieces (old slices and replacements), so a big file is not copied */
  parts: Buffer[];
  /** total length of `parts` */
  length: number;
  /** the proposed content in one Buffer (joined on first use) */
  readonly bytes: Buffer;
  replacements: number;
  /** byte offset of the first change (same in old and new) */
  changeStart: number;
  /** end of the changed region in the old content, and in the new */
  oldChangeEnd: number;
  newChangeEnd: number;
  /** lines that hold at least one replacement (sed only; counting costs a pass over the file) */
  changedLines?: number;
}

/** Offsets of non-overlapping occurrences of `needle` in `hay[from, to)`, up to `limit`. */
export const occurrences = (hay: Buffer, needle: Buffer, from = 0, to = hay.length, limit = Infinity): number[] => findAll(hay, needle, from, to, limit);

/** 1-based line numbers of byte offsets (ascending). */
export function lineNumbers(b: Buffer, offsets: number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let pos = 0;
  for (const off of offsets) {
    line += countNewlines(b.subarray(pos, off));
    pos = off;
    out.push(line);
  }
  return out;
}

/** A plan over `parts` whose joined `bytes` are built only when asked for. */
function makePlan(parts: Buffer[], fields: Omit<MutationPlan, 'parts' | 'length' | 'bytes'>): MutationPlan {
  let joined: Buffer | undefined;
  const length = parts.reduce((n, p) => n + p.length, 0);
  return {
    parts,
    length,
    get bytes() {
      joined ??= parts.length === 1 ? parts[0] : Buffer.concat(parts, length);
      return joined;
    },
    ...fields,
  };
}

/** Whether `parts` hold exactly the bytes of `b`. */
export function sameBytes(b: Buffer, parts: readonly Buffer[]): boolean {
  let off = 0;
  for (const p of parts) {
    if (off + p.length > b.length || !p.equals(b.subarray(off, off + p.length))) return false;
    off += p.length;
  }
  return off === b.length;
}

function replaceAt(old: Buffer, at: number[], len: number, repl: Buffer, countLines = false): MutationPlan {
  const parts: Buffer[] = [];
  let pos = 0;
  for (const i of at) {
    parts.push(old.subarray(pos, i), repl);
    pos = i + len;
  }
  parts.push(old.subarray(pos));
  const first = at[0];
  const lastEnd = at[at.length - 1] + len;
  const changedLines = countLines ? new Set(lineNumbers(old, at)).size : undefined;
  return makePlan(
    parts.filter((p) => p.length > 0),
    {
      replacements: at.length,
      changeStart: first,
      oldChangeEnd: lastEnd,
      newChangeEnd: lastEnd + at.length * (repl.length - len),
      changedLines,
    },
  );
}

/** Common prefix length of two buffers, compared in native chunks. */
export function commonPrefix(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  const CH = 65536;
  let i = 0;
  while (i < n) {
    const e = Math.min(i + CH, n);
    if (a.subarray(i, e).equals(b.subarray(i, e))) {
      i = e;
      continue;
    }
    while (i < e && a[i] === b[i]) i++;
    return i;
  }
  return n;
}

/** Common suffix length, not reaching into the first `floor` bytes of either. */
export function commonSuffix(a: Buffer, b: Buffer, floor: number): number {
  const n = Math.min(a.length, b.length) - floor;
  const CH = 65536;
  let k = 0;
  while (k < n) {
    const step = Math.min(CH, n - k);
    if (a.subarray(a.length - k - step, a.length - k).equals(b.subarray(b.length - k - step, b.length - k))) {
      k += step;
      continue;
    }
    while (k < n && a[a.length - 1 - k] === b[b.length - 1 - k]) k++;
    return k;
  }
  return Math.max(n, 0);
}

/** write_file: the content replaces everything (`old` null for a new file). */
export function planWrite(old: Buffer | null, content: string): MutationPlan {
  const bytes = Buffer.from(content, 'utf8');
  const prev = old ?? Buffer.alloc(0);
  const start = commonPrefix(prev, bytes);
  const suffix = commonSuffix(prev, bytes, start);
  return makePlan([bytes], { replacements: 0, changeStart: start, oldChangeEnd: prev.length - suffix, newChangeEnd: bytes.length - suffix });
}

/** edit_file: exactly one occurrence of `oldString` (or every one with `replaceAll`). */
export function planEdit(old: Buffer, oldString: string, newString: string, replaceAll: boolean, shown: string): MutationPlan {
  if (oldString.length === 0) throw new ToolError('bad_args', 'edit_file: old_string is empty. Give the exact text to replace (use write_file to create or overwrite a file).');
  if (oldString === newString) throw new ToolError('bad_args', 'edit_file: old_string and new_string are the same, so there is nothing to change.');
  const needle = Buffer.from(oldString, 'utf8');
  const at = occurrences(old, needle, 0, old.length, replaceAll ? Infinity : 2);
  if (at.length === 0) {
    throw new ToolError('no_match', `edit_file: old_string does not occur in ${shown}; the file is unchanged. Re-read the file and retry with its exact current text (whitespace and line endings included).`);
  }
  if (at.length > 1 && !replaceAll) {
    const all = occurrences(old, needle);
    throw new ToolError('not_unique', `edit_file: old_string occurs ${all.length} times in ${shown} (lines ${lineNumbers(old, all.slice(0, 20)).join(', ')}${all.length > 20 ? ', …' : ''}); the file is unchanged. Add surrounding text to make it unique, or set replace_all.`, { count: all.length });
  }
  return replaceAt(old, at, needle.length, Buffer.from(newString, 'utf8'));
}

export interface SedOptions {
  all?: boolean;
  expectReplacements?: number;
  startLine?: number;
  endLine?: number;
}

/** sed: literal substitution inside an optional line window. */
export function planSed(old: Buffer, pattern: string, replacement: string, o: SedOptions, shown: string): MutationPlan {
  if (pattern.length === 0) throw new ToolError('bad_args', 'sed: pattern is empty. Give the literal text to replace.');
  if (pattern === replacement) throw new ToolError('bad_args', 'sed: pattern and replacement are the same, so there is nothing to change.');
  const start = o.startLine ?? 1;
  const end = o.endLine ?? Infinity;
  if (end < start) throw new ToolError('bad_args', `sed: end_line ${end} is before start_line ${start}.`);
  const win = sliceLines(old, start, end);
  const needle = Buffer.from(pattern, 'utf8');
  const at = occurrences(old, needle, win.from, win.to);
  const where = o.startLine !== undefined || o.endLine !== undefined ? ` within lines ${start}-${end === Infinity ? 'end' : end}` : '';
  const lines = () => {
    const ls = lineNumbers(old, at.slice(0, 20));
    return `line${ls.length === 1 ? '' : 's'} ${ls.join(', ')}${at.length > 20 ? ', …' : ''}`;
  };
  if (at.length === 0) {
    const near = closestLines(old, pattern, start, win);
    throw new ToolError('no_match', `sed: "${pattern.slice(0, 80)}" does not occur in ${shown}${where}; the file is unchanged.${near ? ` Closest lines:\n${near}\n` : ' '}Re-read the file and retry with the exact text.`);
  }
  if (o.expectReplacements !== undefined) {
    if (at.length !== o.expectReplacements) {
      throw new ToolError('count_mismatch', `sed: expected ${o.expectReplacements} replacement${o.expectReplacements === 1 ? '' : 's'} in ${shown}${where} but found ${at.length}, at ${lines()}; the file is unchanged.`, { count: at.length });
    }
  } else if (at.length > 1 && !o.all) {
    throw new ToolError('not_unique', `sed: "${pattern.slice(0, 80)}" occurs ${at.length} times in ${shown}${where}, at ${lines()}; the file is unchanged. Set all, give expect_replacements, or narrow start_line/end_line.`, { count: at.length });
  }
  return replaceAt(old, at, needle.length, Buffer.from(replacement, 'utf8'), true);
}

/** Up to three lines of the window most like `pattern` (character-bigram overlap), best first, as `N: text`. */
function closestLines(b: Buffer, pattern: string, startLine: number, win: { from: number; to: number }): string {
  const grams = (s: string) => {
    const m = new Map<string, number>();
    const t = s.toLowerCase().trim();
    for (let i = 0; i < t.length - 1; i++) m.set(t.slice(i, i + 2), (m.get(t.slice(i, i + 2)) ?? 0) + 1);
    return m;
  };
  const want = grams(pattern.split('\n')[0].slice(0, 500));
  const wantN = [...want.values()].reduce((a, c) => a + c, 0);
  if (wantN === 0) return '';
  const scored: { line: number; text: string; score: number }[] = [];
  let pos = win.from;
  let line = startLine;
  for (let k = 0; k < 20_000 && pos < win.to; k++, line++) {
    let nl = b.indexOf(10, pos);
    if (nl === -1 || nl >= win.to) nl = win.to;
    const text = decode(b.subarray(pos, Math.min(nl, pos + 500))).replace(/\r$/, '');
    pos = nl + 1;
    const g = grams(text);
    let common = 0;
    let n = 0;
    for (const [k2, c] of g) {
      n += c;
      const w = want.get(k2);
      if (w) common += Math.min(w, c);
    }
    const score = (2 * common) / (wantN + n || 1);
    if (score > 0.3) scored.push({ line, text, score });
  }
  scored.sort((a, c) => c.score - a.score || a.line - c.line);
  return scored
    .slice(0, 3)
    .map((s) => `${s.line}: ${s.text}`)
    .join('\n');
}
