// The keys overlay (`?` on an empty prompt, /keys): every key of the table, by what has the focus,
// in place of the conversation above the status line, as gemini-cli's and Claude Code's `?` do;
// nothing is printed into the scrollback. ↑/↓ and PgUp/PgDn scroll it, Esc (or `?`) closes it.
import { keysHelp } from '../keys_help.ts';
import { plainRow, textWidth, truncateRow, type Row } from '../text_layout.ts';
import type { KeyContext, View, ViewContext } from './view.ts';

const PAGE = 10;

export function openKeysOverlay(ctx: ViewContext): void {
  ctx.setUi((x) => ({ ...x, keysOverlay: { scroll: 0 } }));
}

function scroll(ctx: KeyContext, d: number): void {
  const last = Math.max(0, keysHelp().length - 1);
  ctx.setUi((x) => (x.keysOverlay ? { ...x, keysOverlay: { scroll: Math.max(0, Math.min(last, x.keysOverlay.scroll + d)) } } : x));
}

/** The overlay's rows: a title row, then as many key lines as fit from `scroll` on. */
export function keysOverlayRows(scrollAt: number, width: number, maxLines: number): Row[] {
  const lines = keysHelp();
  const room = Math.max(1, maxLines - 2);
  const start = Math.max(0, Math.min(scrollAt, lines.length - room));
  const label = ` keys ${start + 1}–${Math.min(lines.length, start + room)} of ${lines.length} · ↑↓ PgUp PgDn scroll · Esc closes `;
  const title: Row = truncateRow([{ text: `──${label}${'─'.repeat(Math.max(0, width - textWidth(label) - 2))}`, color: 'accent', bold: true }], width);
  const body = lines.slice(start, start + room).map((l) => (l.startsWith(' ') ? truncateRow([{ text: l }], width) : plainRow(l, { color: 'accent', bold: true })));
  return [title, ...body];
}

export const keysOverlayView: View = {
  focus: 'keys',
  keys: {
    keys_up: (ctx) => scroll(ctx, -1),
    keys_down: (ctx) => scroll(ctx, 1),
    keys_page_up: (ctx) => scroll(ctx, -PAGE),
    keys_page_down: (ctx) => scroll(ctx, PAGE),
    keys_close: (ctx) => ctx.setUi((x) => ({ ...x, keysOverlay: undefined })),
  },
  panel: () => [],
  hidesFooter: () => true,
  screen: (_s, ui, width, maxLines) => (ui.keysOverlay ? keysOverlayRows(ui.keysOverlay.scroll, width, maxLines) : undefined),
};
