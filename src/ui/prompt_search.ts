// Ctrl+R over earlier prompts, newest first, as a shell's reverse search: the query narrows as it
// is typed, Ctrl+R again goes to the next older match. Pure, so a 20,000-prompt search is a loop
// over strings and nothing else.
import type { ComposerState, PasteStore } from './composer.ts';
import { expandPastes } from './composer.ts';

export interface SearchState {
  query: string;
  /** Index into `past` of the match shown (-1: none). */
  hit: number;
  /** The prompt being written when the search opened: Esc brings it back. */
  draft: ComposerState;
  /** How many prompts hold the query, and which of them (from the newest) `hit` is: counted when they change, not per frame. */
  count: { total: number; nth: number };
}

/** Case is ignored, and so are accents (`modulo` finds `módulo`). */
export function foldForSearch(text: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\u0000-\u007F]*$/.test(text)) return text.toLowerCase();
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

// Each prompt folded once, not once per keystroke: a search runs over every earlier prompt.
const folded = new Map<string, string>();
const FOLDED_MAX = 50_000;

/** A prompt as searched: its pastes' text in place of their tokens, folded. */
function searchable(text: string, pastes: PasteStore): string {
  let f = folded.get(text);
  if (f === undefined) {
    if (folded.size >= FOLDED_MAX) folded.clear();
    f = foldForSearch(expandPastes(text, pastes));
    folded.set(text, f);
  }
  return f;
}

/** The newest prompt at or before `from` (an index into `past`) that holds the query; -1 when none does. */
export function findOlder(past: readonly string[], pastes: PasteStore, query: string, from: number): number {
  const q = foldForSearch(query);
  for (let i = Math.min(from, past.length - 1); i >= 0; i--) if (searchable(past[i], pastes).includes(q)) return i;
  return -1;
}

/** The oldest prompt at or after `from` that holds the query; -1 when none does. */
export function findNewer(past: readonly string[], pastes: PasteStore, query: string, from: number): number {
  const q = foldForSearch(query);
  for (let i = Math.max(0, from); i < past.length; i++) if (searchable(past[i], pastes).includes(q)) return i;
  return -1;
}

/** How many prompts hold the query (for `3 of 17`), and which of them, counted from the newest, `hit` is. */
export function matchCount(past: readonly string[], pastes: PasteStore, query: string, hit: number): { total: number; nth: number } {
  const q = foldForSearch(query);
  let total = 0;
  let nth = 0;
  for (let i = past.length - 1; i >= 0; i--) {
    if (!searchable(past[i], pastes).includes(q)) continue;
    total++;
    if (i === hit) nth = total;
  }
  return { total, nth };
}
