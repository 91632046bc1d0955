// The prompt editor: multi-line text with a cursor. Pure functions so keys can be tested
// without a terminal.
import { clipTail, sanitize, type Row, wrapLine } from './text_layout.ts';

export interface ComposerState {
  text: string;
  cursor: number;
}

export const emptyComposer: ComposerState = { text: '', cursor: 0 };

export function insertText(s: ComposerState, text: string): ComposerState {
  const clean = text.replace(/\r\n?/g, '\n');
  return { text: s.text.slice(0, s.cursor) + clean + s.text.slice(s.cursor), cursor: s.cursor + clean.length };
}

export function backspace(s: ComposerState): ComposerState {
  if (s.cursor === 0) return s;
  const before = [...s.text.slice(0, s.cursor)];
  before.pop();
  const head = before.join('');
  return { text: head + s.text.slice(s.cursor), cursor: head.length };
}

export function moveCursor(s: ComposerState, delta: -1 | 1): ComposerState {
  const chars = [...s.text];
  let idx = [...s.text.slice(0, s.cursor)].length + delta;
  idx = Math.max(0, Math.min(chars.length, idx));
  return { ...s, cursor: chars.slice(0, idx).join('').length };
}

export function composerRows(s: ComposerState, width: number, maxLines: number, opts: { placeholder?: string; active: boolean }): Row[] {
  const rows: Row[] = [];
  if (s.text === '') {
    rows.push([
      { text: '› ', color: 'accent', bold: true },
      ...(opts.active ? [{ text: ' ', inverse: true }] : []),
      { text: opts.placeholder ?? '', dim: true },
    ]);
    return rows;
  }
  const lines = sanitize(s.text.slice(0, s.cursor)).split('\n');
  const after = sanitize(s.text.slice(s.cursor)).split('\n');
  // Build display lines with the cursor spliced in at the end of `lines`.
  const all = [...lines.slice(0, -1).map((l) => ({ l, c: -1 })), { l: lines[lines.length - 1] + after[0], c: lines[lines.length - 1].length }, ...after.slice(1).map((l) => ({ l, c: -1 }))];
  let cursorRow = 0;
  for (const { l, c } of all) {
    const parts = wrapLine(l, width - 3);
    let off = 0;
    parts.forEach((part, pi) => {
      const lead: Row = [{ text: rows.length === 0 ? '› ' : '  ', color: 'accent', bold: true }];
      const inPart = c >= off && (c < off + part.length || (pi === parts.length - 1 && c <= off + part.length));
      if (opts.active && c >= 0 && inPart) {
        const at = c - off;
        const ch = part[at] ?? ' ';
        rows.push([...lead, { text: part.slice(0, at) }, { text: ch, inverse: true }, { text: part.slice(at + 1) }]);
        cursorRow = rows.length;
      } else {
        rows.push([...lead, { text: part }]);
      }
      off += part.length;
    });
  }
  // Keep the cursor row on screen.
  return clipTail(rows.slice(0, Math.max(cursorRow, Math.min(rows.length, maxLines))), maxLines);
}
