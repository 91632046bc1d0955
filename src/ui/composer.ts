// The prompt editor: multi-line text with a cursor. Pure functions so keys can be tested
// without a terminal.
import { clipTail, type Row, wrapLine } from './text_layout.ts';
import { forTerminal } from '../core/terminal_text.ts';

export interface ComposerState {
  text: string;
  cursor: number;
}

export const emptyComposer: ComposerState = { text: '', cursor: 0 };

// A long paste sits in the prompt as one character of Unicode's plane-16 private use area (which
// no font or keyboard produces) and is shown as `[pasted 120 lines]`; sending puts the text back.
const TOKEN_BASE = 0x100000;
const TOKEN_LAST = 0x10fffd;
// eslint-disable-next-line no-control-regex
const TOKENS = /[\u{100000}-\u{10FFFD}]/gu;

/** Pastes longer than this many lines (or characters) become a token. */
export const PASTE_INLINE_LINES = 5;
export const PASTE_INLINE_CHARS = 2000;

/** The texts of the pastes shown as tokens, by token: kept for the session (↑ recalls prompts that hold them). */
export type PasteStore = ReadonlyMap<string, string>;

export function pasteLabel(text: string): string {
  const lines = text.replace(/\n$/, '').split('\n').length;
  return lines > 1 ? `[pasted ${lines} lines]` : `[pasted ${text.length.toLocaleString('en-US')} characters]`;
}

/** Insert a paste: inline when short, else as one token whose text `pastes` keeps. */
export function insertPaste(s: ComposerState, text: string, pastes: PasteStore): { composer: ComposerState; pastes: PasteStore } {
  const lines = text.split('\n').length;
  const cp = TOKEN_BASE + pastes.size;
  if ((lines <= PASTE_INLINE_LINES && text.length <= PASTE_INLINE_CHARS) || cp > TOKEN_LAST) return { composer: insertText(s, text), pastes };
  const token = String.fromCodePoint(cp);
  const next = new Map(pastes);
  next.set(token, text);
  return { composer: { text: s.text.slice(0, s.cursor) + token + s.text.slice(s.cursor), cursor: s.cursor + token.length }, pastes: next };
}

/** The prompt as sent: every paste token replaced by its text. */
export function expandPastes(text: string, pastes: PasteStore): string {
  return text.replace(TOKENS, (t) => pastes.get(t) ?? '');
}

/** The prompt as shown: every paste token replaced by its label. */
export function showPastes(text: string, pastes: PasteStore): string {
  return text.replace(TOKENS, (t) => {
    const p = pastes.get(t);
    return p === undefined ? '' : pasteLabel(p);
  });
}

export function insertText(s: ComposerState, text: string): ComposerState {
  const clean = text.replace(/\r\n?/g, '\n').replace(TOKENS, '');
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

export function composerRows(s: ComposerState, width: number, maxLines: number, opts: { placeholder?: string; active: boolean; pastes?: PasteStore }): Row[] {
  const rows: Row[] = [];
  if (s.text === '') {
    rows.push([
      { text: '› ', color: 'accent', bold: true },
      ...(opts.active ? [{ text: ' ', inverse: true }] : []),
      { text: opts.placeholder ?? '', dim: true },
    ]);
    return rows;
  }
  const pastes = opts.pastes ?? new Map<string, string>();
  const lines = forTerminal(showPastes(s.text.slice(0, s.cursor), pastes)).split('\n');
  const after = forTerminal(showPastes(s.text.slice(s.cursor), pastes)).split('\n');
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

/** The paste tokens a prompt holds, with their texts (what a saved prompt keeps of `pastes`). */
export function pastesIn(text: string, pastes: PasteStore): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const t of text.match(TOKENS) ?? []) {
    const p = pastes.get(t);
    if (p !== undefined) out[t] = p;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Prompts saved by earlier sessions, as this session's composer holds them: each saved paste gets
 * a token of this session (the saved token may already mean another paste here).
 */
export function adoptSaved(saved: readonly { text: string; pastes?: Record<string, string> }[], pastes: PasteStore = new Map()): { past: string[]; pastes: PasteStore } {
  const next = new Map(pastes);
  const past: string[] = [];
  for (const s of saved) {
    past.push(
      s.text.replace(TOKENS, (t) => {
        const text = s.pastes?.[t];
        const cp = TOKEN_BASE + next.size;
        if (text === undefined || cp > TOKEN_LAST) return text ?? '';
        const token = String.fromCodePoint(cp);
        next.set(token, text);
        return token;
      }),
    );
  }
  return { past, pastes: next };
}
