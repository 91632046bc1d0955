// The composer's editing commands (readline/emacs keys), as pure functions of the prompt and its
// cursor, so every binding is tested without a terminal. The cursor is a UTF-16 offset that never
// splits a code point; a paste token (one plane-16 character) counts as one word of its own.
import type { ComposerState } from './composer.ts';

/** What an edit left: the new prompt and, for a cut, the text cut (for Ctrl+Y). */
export interface Edit {
  composer: ComposerState;
  killed?: string;
}

const isWordChar = (ch: string) => /[\p{L}\p{N}_]/u.test(ch);

function lineStartOf(text: string, at: number): number {
  return text.lastIndexOf('\n', at - 1) + 1;
}

function lineEndOf(text: string, at: number): number {
  const nl = text.indexOf('\n', at);
  return nl === -1 ? text.length : nl;
}

/** The offset one code point before `at`. */
function prevPoint(text: string, at: number): number {
  if (at <= 0) return 0;
  const lo = text.charCodeAt(at - 1);
  return lo >= 0xdc00 && lo <= 0xdfff && at >= 2 ? at - 2 : at - 1;
}

/** The offset one code point after `at`. */
function nextPoint(text: string, at: number): number {
  if (at >= text.length) return text.length;
  const cp = text.codePointAt(at) ?? 0;
  return at + (cp > 0xffff ? 2 : 1);
}

const pointAt = (text: string, at: number) => String.fromCodePoint(text.codePointAt(at) ?? 32);

/** Back over non-word characters, then over the word (as readline's Alt+B). */
export function wordStartBefore(text: string, at: number): number {
  let i = at;
  while (i > 0 && !isWordChar(pointAt(text, prevPoint(text, i)))) i = prevPoint(text, i);
  while (i > 0 && isWordChar(pointAt(text, prevPoint(text, i)))) i = prevPoint(text, i);
  return i;
}

/** Forward over non-word characters, then over the word (as readline's Alt+F). */
export function wordEndAfter(text: string, at: number): number {
  let i = at;
  while (i < text.length && !isWordChar(pointAt(text, i))) i = nextPoint(text, i);
  while (i < text.length && isWordChar(pointAt(text, i))) i = nextPoint(text, i);
  return i;
}

/** Back over whitespace, then over everything up to the previous whitespace (readline's Ctrl+W). */
function bigWordStartBefore(text: string, at: number): number {
  let i = at;
  while (i > 0 && /\s/.test(text[i - 1])) i = prevPoint(text, i);
  while (i > 0 && !/\s/.test(text[i - 1])) i = prevPoint(text, i);
  return i;
}

const moveTo = (s: ComposerState, cursor: number): Edit => ({ composer: { ...s, cursor } });

function cut(s: ComposerState, from: number, to: number): Edit {
  if (from === to) return { composer: s };
  return { composer: { text: s.text.slice(0, from) + s.text.slice(to), cursor: from }, killed: s.text.slice(from, to) };
}

export const lineStart = (s: ComposerState): Edit => moveTo(s, lineStartOf(s.text, s.cursor));
export const lineEnd = (s: ComposerState): Edit => moveTo(s, lineEndOf(s.text, s.cursor));
export const charLeft = (s: ComposerState): Edit => moveTo(s, prevPoint(s.text, s.cursor));
export const charRight = (s: ComposerState): Edit => moveTo(s, nextPoint(s.text, s.cursor));
export const wordLeft = (s: ComposerState): Edit => moveTo(s, wordStartBefore(s.text, s.cursor));
export const wordRight = (s: ComposerState): Edit => moveTo(s, wordEndAfter(s.text, s.cursor));

export function deleteBack(s: ComposerState): Edit {
  const from = prevPoint(s.text, s.cursor);
  return { composer: { text: s.text.slice(0, from) + s.text.slice(s.cursor), cursor: from } };
}

export function deleteForward(s: ComposerState): Edit {
  return { composer: { text: s.text.slice(0, s.cursor) + s.text.slice(nextPoint(s.text, s.cursor)), cursor: s.cursor } };
}

export const killWordBack = (s: ComposerState): Edit => cut(s, bigWordStartBefore(s.text, s.cursor), s.cursor);
export const killWordForward = (s: ComposerState): Edit => cut(s, s.cursor, wordEndAfter(s.text, s.cursor));
export const killLineStart = (s: ComposerState): Edit => cut(s, lineStartOf(s.text, s.cursor), s.cursor);

/** Cut to the end of the line; at the end of a line, the line break (as emacs). */
export function killLineEnd(s: ComposerState): Edit {
  const end = lineEndOf(s.text, s.cursor);
  return cut(s, s.cursor, end === s.cursor && end < s.text.length ? end + 1 : end);
}

/** The column (in code points) of the cursor on its line. */
function column(text: string, at: number): number {
  return [...text.slice(lineStartOf(text, at), at)].length;
}

/** The offset of `col` code points into the line starting at `start` (or its end). */
function atColumn(text: string, start: number, col: number): number {
  const end = lineEndOf(text, start);
  let i = start;
  for (let n = 0; n < col && i < end; n++) i = nextPoint(text, i);
  return i;
}

/** ↑ inside a multi-line prompt: the same column a line up; undefined on the first line (history's turn). */
export function lineUp(s: ComposerState): Edit | undefined {
  const start = lineStartOf(s.text, s.cursor);
  if (start === 0) return undefined;
  return moveTo(s, atColumn(s.text, lineStartOf(s.text, start - 1), column(s.text, s.cursor)));
}

/** ↓ inside a multi-line prompt: the same column a line down; undefined on the last line. */
export function lineDown(s: ComposerState): Edit | undefined {
  const end = lineEndOf(s.text, s.cursor);
  if (end === s.text.length) return undefined;
  return moveTo(s, atColumn(s.text, end + 1, column(s.text, s.cursor)));
}
