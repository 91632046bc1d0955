// The prompt search (Ctrl+R from the composer): typed text narrows to the newest earlier prompt
// that holds it (case and accents aside), Ctrl+R or ↑ goes to an older match, Ctrl+S or ↓ to a
// newer one, Enter puts the match in the composer to edit or send, Esc gives the draft back.
import type { ClientState } from '../../client/state.ts';
import { showPastes } from '../composer.ts';
import { findNewer, findOlder, foldForSearch, matchCount } from '../prompt_search.ts';
import { forTerminal } from '../../core/terminal_text.ts';
import { clipHead, plainRow, truncateRow, wrapLine, type Row } from '../text_layout.ts';
import type { UiState } from '../ui_state.ts';
import type { KeyContext, View, ViewContext } from './view.ts';

/** Ctrl+R in the composer: the search opens on the newest prompt. */
export function openSearch(ctx: ViewContext): void {
  const u = ctx.ui();
  if (u.past.length === 0) return ctx.setUi((x) => ({ ...x, hint: 'No earlier prompts in this project yet.' }));
  ctx.setUi((x) => ({ ...x, search: { query: '', hit: x.past.length - 1, draft: x.composer, count: { total: x.past.length, nth: 1 } } }));
}

function setQuery(ctx: ViewContext, query: string): void {
  ctx.setUi((x) => {
    if (!x.search) return x;
    // a longer query keeps the match it has when that still holds it, as a shell does
    const from = query.startsWith(x.search.query) && x.search.hit >= 0 ? x.search.hit : x.past.length - 1;
    const hit = findOlder(x.past, x.pastes, query, from);
    return { ...x, search: { ...x.search, query, hit, count: matchCount(x.past, x.pastes, query, hit) } };
  });
}

function step(ctx: ViewContext, older: boolean): void {
  ctx.setUi((x) => {
    const s = x.search;
    if (!s || s.hit < 0) return x;
    const next = older ? findOlder(x.past, x.pastes, s.query, s.hit - 1) : findNewer(x.past, x.pastes, s.query, s.hit + 1);
    return next < 0 ? x : { ...x, search: { ...s, hit: next, count: matchCount(x.past, x.pastes, s.query, next) } };
  });
}

function accept(ctx: ViewContext): void {
  ctx.setUi((x) => {
    const s = x.search;
    if (!s) return x;
    if (s.hit < 0) return { ...x, search: undefined, composer: s.draft };
    const text = x.past[s.hit];
    return { ...x, search: undefined, composer: { text, cursor: text.length }, undo: [...x.undo, s.draft], pastIndex: s.hit, draft: s.draft };
  });
}

/** The match with the query's first occurrence in it marked, one row per line, clipped. */
function matchRows(text: string, query: string, width: number, max: number): Row[] {
  const folded = foldForSearch(text);
  const at = query === '' ? -1 : folded.indexOf(foldForSearch(query));
  const rows: Row[] = [];
  let offset = 0;
  for (const line of text.split('\n')) {
    for (const part of wrapLine(line, Math.max(8, width - 4))) {
      const start = at - offset;
      // folding keeps one character per character for most text; the mark is a guide
      if (at >= 0 && start >= 0 && start < part.length) {
        const end = Math.min(part.length, start + query.length);
        rows.push([{ text: '  ' }, { text: part.slice(0, start) }, { text: part.slice(start, end), inverse: true }, { text: part.slice(end) }]);
      } else rows.push([{ text: '  ' }, { text: part }]);
      offset += part.length;
    }
    offset += 1;
  }
  return clipHead(rows, max);
}

export function searchPanel(_s: ClientState, ui: UiState, width: number, room: number): Row[] {
  const s = ui.search;
  if (!s) return [];
  const shown = s.hit >= 0 ? forTerminal(showPastes(ui.past[s.hit], ui.pastes)) : '';
  const { total, nth } = s.count;
  const status = s.hit < 0 ? 'no match' : `${nth} of ${total}`;
  return [
    plainRow('─'.repeat(width), { color: 'muted' }),
    truncateRow([{ text: 'search prompts: ', color: 'accent', bold: true }, { text: forTerminal(s.query) }, { text: ' ', inverse: true }, { text: `  ${status}`, color: s.hit < 0 ? 'warn' : 'muted' }], width),
    ...(s.hit >= 0 ? matchRows(shown, s.query, width, Math.max(1, Math.min(8, room - 4))) : [plainRow('  (nothing matches; Backspace widens the search)', { dim: true })]),
  ];
}

export const searchView: View = {
  focus: 'search',
  keys: {
    search_older: (ctx) => step(ctx, true),
    search_newer: (ctx) => step(ctx, false),
    search_accept: accept,
    search_cancel: (ctx) => ctx.setUi((x) => (x.search ? { ...x, search: undefined, composer: x.search.draft } : x)),
  },
  edit: (ctx: KeyContext) => {
    const q = ctx.ui().search?.query ?? '';
    if (ctx.name === 'backspace') return setQuery(ctx, [...q].slice(0, -1).join(''));
    if (ctx.name !== undefined && ctx.name.length > 1 && ctx.name !== 'space' && ctx.name !== 'digit') return;
    if (ctx.input && !ctx.key.ctrl && !ctx.key.meta) setQuery(ctx, q + ctx.input.replace(/\n/g, ' '));
  },
  paste: (text, ctx) => setQuery(ctx, (ctx.ui().search?.query ?? '') + text.split('\n')[0]),
  panel: searchPanel,
};
