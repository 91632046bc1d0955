// Terminal-cell arithmetic for the live region: every row we hand to Ink is already cut to the
// width, so a component's height is exactly its row count and the live region can be budgeted.
// Text is made safe to print (core/terminal_text.ts) before it is laid out: the marks for bidi
// and zero-width characters take cells of their own.
import { forTerminal } from '../core/terminal_text.ts';

/** A run of text with one style. Colours are theme names resolved by the Rows component. */
export interface Span {
  text: string;
  color?: string;
  bold?: boolean;
  dim?: boolean;
  inverse?: boolean;
  strike?: boolean;
  italic?: boolean;
  underline?: boolean;
  /** A URL the text links to (drawn as an OSC 8 hyperlink where colour is on). */
  link?: string;
}
export type Row = Span[];

// Wide (two-cell) code points: CJK, Hangul, full-width forms, most emoji.
function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

function isZeroWidth(cp: number): boolean {
  return (cp >= 0x300 && cp <= 0x36f) || cp === 0x200b || cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f);
}

export function charWidth(ch: string): number {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if (isZeroWidth(cp)) return 0;
  return isWide(cp) ? 2 : 1;
}

export function textWidth(text: string): number {
  let w = 0;
  for (const ch of text) w += charWidth(ch);
  return w;
}

/** Cut `text` to at most `width` cells, ending with … when something was cut. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  if (textWidth(text) <= width) return text;
  let out = '';
  let w = 0;
  for (const ch of text) {
    const cw = charWidth(ch);
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return `${out}…`;
}

/** Word-wrap one line (no newlines) to `width` cells; long words are broken. */
export function wrapLine(line: string, width: number): string[] {
  if (width <= 0) return [''];
  if (textWidth(line) <= width) return [line];
  const out: string[] = [];
  let cur = '';
  let curW = 0;
  const words = line.split(/(\s+)/);
  for (const word of words) {
    if (word === '') continue;
    const ww = textWidth(word);
    if (curW + ww <= width) {
      cur += word;
      curW += ww;
      continue;
    }
    if (/^\s+$/.test(word)) {
      out.push(cur.trimEnd());
      cur = '';
      curW = 0;
      continue;
    }
    if (cur.trim() !== '') out.push(cur.trimEnd());
    cur = '';
    curW = 0;
    for (const ch of word) {
      const cw = charWidth(ch);
      if (curW + cw > width) {
        out.push(cur);
        cur = '';
        curW = 0;
      }
      cur += ch;
      curW += cw;
    }
  }
  if (cur !== '' || out.length === 0) out.push(cur.trimEnd());
  return out;
}

/** Wrap multi-line text, made safe to print first (marks are wider than what they mark: laid out after). */
export function wrapText(text: string, width: number): string[] {
  return forTerminal(text)
    .split('\n')
    .flatMap((l) => wrapLine(l, width));
}

export function rowWidth(row: Row): number {
  return row.reduce((w, s) => w + textWidth(s.text), 0);
}

/** Cut a styled row to `width` cells. */
export function truncateRow(row: Row, width: number): Row {
  if (rowWidth(row) <= width) return row;
  const out: Row = [];
  let left = width - 1;
  for (const span of row) {
    const w = textWidth(span.text);
    if (w <= left) {
      out.push(span);
      left -= w;
      continue;
    }
    let text = '';
    for (const ch of span.text) {
      const cw = charWidth(ch);
      if (cw > left) break;
      text += ch;
      left -= cw;
    }
    out.push({ ...span, text: `${text}…` });
    return out;
  }
  return out;
}

export function plainRow(text: string, style: Omit<Span, 'text'> = {}): Row {
  return [{ text, ...style }];
}

/**
 * Keep the last `max` rows; when rows are dropped the first kept row says how many, so the
 * result is never taller than `max`.
 */
export function clipTail(rows: Row[], max: number, hint = ''): Row[] {
  if (rows.length <= max) return rows;
  if (max <= 0) return [];
  const keep = rows.slice(rows.length - (max - 1));
  const hidden = rows.length - keep.length;
  return [plainRow(`… ${hidden} line${hidden === 1 ? '' : 's'} hidden${hint}`, { dim: true }), ...keep];
}

/** Keep the first `max` rows, the last one saying how many more there are. */
export function clipHead(rows: Row[], max: number, hint = ''): Row[] {
  if (rows.length <= max) return rows;
  if (max <= 0) return [];
  const keep = rows.slice(0, max - 1);
  const hidden = rows.length - keep.length;
  return [...keep, plainRow(`… ${hidden} more line${hidden === 1 ? '' : 's'}${hint}`, { dim: true })];
}
