// An ACP diff ({path, oldText, newText}) laid out as rows: a line-number gutter, +/- signs and
// colours, and a separator between hunks. Diffs are computed once per content object.
import path from 'node:path';
import { structuredPatch } from 'diff';
import { sanitize, textWidth, truncateRow, wrapLine, type Row } from './text_layout.ts';

export interface DiffContent {
  path: string;
  oldText?: string | null;
  newText: string;
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

export function diffModel(d: DiffContent): DiffModel {
  const hit = cache.get(d);
  if (hit) return hit;
  const oldText = d.oldText ?? '';
  const patch = structuredPatch(d.path, d.path, oldText, d.newText, undefined, undefined, { context: 3 });
  let added = 0;
  let removed = 0;
  const hunks: DiffHunk[] = patch.hunks.map((h) => {
    let o = h.oldStart;
    let n = h.newStart;
    const lines: DiffLine[] = [];
    for (const raw of h.lines) {
      const sign = raw[0];
      const text = raw.slice(1);
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
    return { oldStart: h.oldStart, oldLines: h.oldLines, newStart: h.newStart, newLines: h.newLines, lines };
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

// Laid-out rows per diff and width: an expanded diff is drawn every frame while it is on screen.
const rowsCache = new WeakMap<DiffModel, { width: number; rows: Row[] }>();

/**
 * The hunks as rows: `12 + text`. A line longer than the width wraps on word boundaries; its
 * continuation rows keep the gutter (no number, the same sign) so the text column stays aligned.
 */
export function diffRows(m: DiffModel, width: number): Row[] {
  const hit = rowsCache.get(m);
  if (hit && hit.width === width) return hit.rows;
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
      wrapLine(sanitize(l.text), textW).forEach((part, pi) => {
        rows.push(
          truncateRow(
            [
              { text: `${pi === 0 ? String(num ?? '').padStart(gw) : ' '.repeat(gw)} `, color: 'gutter' },
              { text: `${sign} `, color, bold: l.type !== 'ctx' },
              { text: part, color },
            ],
            width,
          ),
        );
      });
    }
  });
  if (rows.length === 0) rows.push([{ text: '(no changes)', dim: true }]);
  rowsCache.set(m, { width, rows });
  return rows;
}
