// Terminal-cell arithmetic for the live region: every row we hand to Ink is already cut to the
// width, so a component's height is exactly its row count and the live region can be budgeted.

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

// eslint-disable-next-line no-control-regex
const ESCAPES = /\u001B\[[0-?]*[ -/]*[@-~]|\u001B\][^\u0007\u001B]*(?:\u0007|\u001B\\)?|\u001B[@-Z\\-_]|\u009B[0-?]*[ -/]*[@-~]|\u009D[^\u0007\u009C]*[\u0007\u009C]?/g;
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/**
 * Remove what a terminal would interpret rather than show: CSI and OSC sequences (an OSC 52 in
 * a file name would write the user's clipboard), other escapes, C0/C1 controls; tabs become
 * spaces. Applied to every span drawn, so no agent-supplied string reaches the terminal raw.
 */
export function sanitize(text: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[\u0000-\u0009\u000B-\u001F\u007F-\u009F]/.test(text)) return text;
  return text.replace(/\t/g, '    ').replace(ESCAPES, '').replace(CONTROLS, '');
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

/** Wrap multi-line text. */
export function wrapText(text: string, width: number): string[] {
  return sanitize(text)
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
