// An ACP diff ({path, oldText, newText}) laid out as rows: a line-number gutter with the file's
// own line numbers (a window around the change starts where `_meta["cxl/startLine"]` says), +/-
// signs and colours, the words that changed inside a changed line highlighted (inverse, so
// NO_COLOR shows them too), and a separator between hunks. Control and hidden characters (bidi,
// zero-width, tag characters: core/hidden_text.ts) show as marks, never removed: what a person
// approves is what is written. A line's CRLF ending is a line ending, not a mark. Diffs are
// computed once per content object, rows once per width.
import path from 'node:path';
import { diffWordsWithSpace, structuredPatch } from 'diff';
import { META_START_LINE } from '../core/protocol_names.ts';
import { showLine } from '../core/terminal_text.ts';
import { textWidth, truncateRow, wrapLine, type Row, type Span } from './text_layout.ts';

export interface DiffContent {
  path: string;
  oldText?: string | null;
  newText: string;
  _meta?: { [key: string]: unknown } | null;
}

export interface DiffLine {
  type: 'add' | 'del' | 'ctx';
  oldLine?: number;
  newLine?: number;
  text: string;
}

export interface DiffHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: DiffLine[];
}

export interface DiffModel {
  path: string;
  added: number;
  removed: number;
  isNew: boolean;
  hunks: DiffHunk[];
}

const cache = new WeakMap<object, DiffModel>();

/** The file line the texts start at: 1, unless the agent sent a window and said where it starts. */
export function startLineOf(d: DiffContent): number {
  const n = d._meta?.[META_START_LINE];
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 ? n : 1;
}

export function diffModel(d: DiffContent): DiffModel {
  const hit = cache.get(d);
  if (hit) return hit;
  const oldText = d.oldText ?? '';
  const shift = startLineOf(d) - 1;
  const patch = structuredPatch(d.path, d.path, oldText, d.newText, undefined, undefined, { context: 3 });
  let added = 0;
  let removed = 0;
  const hunks: DiffHunk[] = patch.hunks.map((h) => {
    const oldStart = h.oldStart + (h.oldLines > 0 ? shift : 0);
    const newStart = h.newStart + (h.newLines > 0 ? shift : 0);
    let o = h.oldStart + shift;
    let n = h.newStart + shift;
    const lines: DiffLine[] = [];
    for (const raw of h.lines) {
      const sign = raw[0];
      const text = raw.endsWith('\r') ? raw.slice(1, -1) : raw.slice(1);
      if (sign === '+') {
        lines.push({ type: 'add', newLine: n++, text });
        added++;
      } else if (sign === '-') {
        lines.push({ type: 'del', oldLine: o++, text });
        removed++;
      } else if (sign === ' ') {
        lines.push({ type: 'ctx', oldLine: o++, newLine: n++, text });
      }
    }
    return { oldStart, oldLines: h.oldLines, newStart, newLines: h.newLines, lines };
  });
  const model: DiffModel = { path: d.path, added, removed, isNew: d.oldText == null, hunks };
  cache.set(d, model);
  return model;
}

/** A path as the user thinks of it: relative to the session root when inside it. */
export function displayPath(p: string, cwd: string): string {
  if (!path.isAbsolute(p)) return p;
  const rel = path.relative(cwd, p);
  return rel === '' ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? p : rel;
}

/** `+12 -3 src/app.ts`; without the path when the row already names it (`path: false`). */
export function diffSummaryRow(m: DiffModel, cwd: string, o: { path?: boolean } = {}): Row {
  const name = o.path === false ? '' : ` ${displayPath(m.path, cwd)}`;
  return [
    { text: `+${m.added}`, color: 'added' },
    { text: ' ' },
    { text: `-${m.removed}`, color: 'removed' },
    ...(name || m.isNew ? [{ text: `${name}${m.isNew ? ' (new file)' : ''}` }] : []),
  ];
}

/** A run of a changed line's text, and whether it is among the words that changed. */
interface Segment {
  text: string;
  changed: boolean;
}

// Lines whose words changed this much are simply replaced: highlighting nearly all of them says nothing.
const MAX_CHANGED_SHARE = 0.6;
// Word diffs cost time on long lines; past this the whole line stands for itself.
const MAX_WORD_DIFF_CHARS = 2000;

/**
 * The segments of each changed line that has a counterpart: the n-th removed line of a run is
 * paired with the n-th added line after it, and their word diff marks what changed in each.
 */
function wordSegments(m: DiffModel): Map<DiffLine, Segment[]> {
  const out = new Map<DiffLine, Segment[]>();
  for (const h of m.hunks) {
    for (let i = 0; i < h.lines.length; ) {
      if (h.lines[i].type !== 'del') {
        i++;
        continue;
      }
      const dels: DiffLine[] = [];
      while (i < h.lines.length && h.lines[i].type === 'del') dels.push(h.lines[i++]);
      const adds: DiffLine[] = [];
      while (i < h.lines.length && h.lines[i].type === 'add') adds.push(h.lines[i++]);
      for (let k = 0; k < Math.min(dels.length, adds.length); k++) pair(dels[k], adds[k], out);
    }
  }
  return out;
}

function pair(del: DiffLine, add: DiffLine, out: Map<DiffLine, Segment[]>): void {
  if (del.text.length + add.text.length > MAX_WORD_DIFF_CHARS) return;
  const parts = diffWordsWithSpace(del.text, add.text);
  const changed = parts.filter((p) => (p.added || p.removed) && p.value.trim() !== '').reduce((n, p) => n + p.value.length, 0);
  if (changed === 0 || changed > MAX_CHANGED_SHARE * (del.text.length + add.text.length)) return;
  out.set(del, parts.filter((p) => !p.added).map((p) => ({ text: p.value, changed: p.removed === true })));
  out.set(add, parts.filter((p) => !p.removed).map((p) => ({ text: p.value, changed: p.added === true })));
}

/**
 * Wrap a line of segments to `width` cells on word boundaries (as wrapLine does), each row keeping
 * which of its characters changed. Each row wrapLine gives is a piece of the line, in order.
 */
function wrapSegments(segs: Segment[], width: number): Segment[][] {
  const full = segs.map((s) => s.text).join('');
  const rows: Segment[][] = [];
  let pos = 0;
  for (const part of wrapLine(full, width)) {
    const at = part === '' ? pos : full.indexOf(part, pos);
    const from = at < 0 ? pos : at;
    rows.push(sliceSegments(segs, from, from + part.length));
    pos = from + part.length;
  }
  return rows;
}

function sliceSegments(segs: Segment[], from: number, to: number): Segment[] {
  const out: Segment[] = [];
  let off = 0;
  for (const s of segs) {
    const a = Math.max(from, off);
    const b = Math.min(to, off + s.text.length);
    if (b > a) out.push({ text: s.text.slice(a - off, b - off), changed: s.changed });
    off += s.text.length;
    if (off >= to) break;
  }
  return out;
}

// Laid-out rows per diff and width: an expanded diff is drawn every frame while it is on screen.
const rowsCache = new WeakMap<DiffModel, { width: number; rows: Row[] }>();
const segmentsCache = new WeakMap<DiffModel, Map<DiffLine, Segment[]>>();

/**
 * The hunks as rows: `12 + text`. A line longer than the width wraps on word boundaries; its
 * continuation rows keep the gutter (no number, the same sign) so the text column stays aligned.
 */
export function diffRows(m: DiffModel, width: number): Row[] {
  const hit = rowsCache.get(m);
  if (hit && hit.width === width) return hit.rows;
  let words = segmentsCache.get(m);
  if (!words) segmentsCache.set(m, (words = wordSegments(m)));
  const maxLine = m.hunks.reduce((mx, h) => Math.max(mx, h.oldStart + h.oldLines, h.newStart + h.newLines), 1);
  const gw = String(maxLine).length;
  const textW = Math.max(8, width - gw - 3);
  const rows: Row[] = [];
  m.hunks.forEach((h, i) => {
    const label = ` @@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@ `;
    if (i > 0 || m.hunks.length > 1) {
      const side = Math.max(2, width - textWidth(label));
      rows.push(truncateRow([{ text: `${'─'.repeat(Math.min(4, side))}${label}${'─'.repeat(Math.max(0, side - 4))}`, color: 'hunk', dim: true }], width));
    }
    for (const l of h.lines) {
      const num = l.type === 'del' ? l.oldLine : l.newLine;
      const sign = l.type === 'add' ? '+' : l.type === 'del' ? '-' : ' ';
      const color = l.type === 'add' ? 'added' : l.type === 'del' ? 'removed' : undefined;
      // marks first: they take cells, so the line is wrapped as it will be drawn
      const segs = (words.get(l) ?? [{ text: l.text, changed: false }]).map((s) => ({ text: showLine(s.text), changed: s.changed }));
      wrapSegments(segs, textW).forEach((part, pi) => {
        const text: Span[] = part.map((s) => (s.changed ? { text: s.text, color, bold: true, inverse: true } : { text: s.text, color }));
        rows.push(truncateRow([{ text: `${pi === 0 ? String(num ?? '').padStart(gw) : ' '.repeat(gw)} `, color: 'gutter' }, { text: `${sign} `, color, bold: l.type !== 'ctx' }, ...text], width));
      });
    }
  });
  if (rows.length === 0) rows.push([{ text: '(no changes)', dim: true }]);
  rowsCache.set(m, { width, rows });
  return rows;
}
