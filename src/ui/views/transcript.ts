// The transcript view (Ctrl+T): every call of the session, earlier turns included, under the
// prompt that led to it. ↑/↓ and PgUp/PgDn select, Enter opens a call, Ctrl+O prints its whole
// output into the scrollback, Esc goes back. It takes the whole screen above the status line.
import { fullOutputText } from '../tool_call_rows.ts';
import { selectedCall, transcriptEntries, transcriptRows } from '../transcript_rows.ts';
import type { KeyContext, View, ViewContext } from './view.ts';

const PAGE = 10;

/** Ctrl+T from the composer or the tool list: the newest call selected. */
export function openTranscript(ctx: ViewContext): void {
  const last = Math.max(0, transcriptEntries(ctx.store.getState()).calls.length - 1);
  ctx.setUi((x) => ({ ...x, transcript: { selected: last, expanded: new Set() } }));
}

function move(ctx: KeyContext, d: number): void {
  const last = Math.max(0, transcriptEntries(ctx.store.getState()).calls.length - 1);
  ctx.setUi((x) => (x.transcript ? { ...x, transcript: { ...x.transcript, selected: Math.max(0, Math.min(last, x.transcript.selected + d)) } } : x));
}

function toggle(ctx: KeyContext): void {
  const t = ctx.ui().transcript;
  const id = t && selectedCall(ctx.store.getState(), t);
  if (!id) return;
  ctx.setUi((x) => {
    if (!x.transcript) return x;
    const expanded = new Set(x.transcript.expanded);
    if (expanded.has(id)) expanded.delete(id);
    else expanded.add(id);
    return { ...x, transcript: { ...x.transcript, expanded } };
  });
}

/** Ctrl+O: the selected call's whole output, printed into the scrollback (a printed call from its history snapshot). */
function printOutput(ctx: KeyContext): void {
  const st = ctx.store.getState();
  const t = ctx.ui().transcript;
  const id = t && selectedCall(st, t);
  const inHistory = st.history.find((h): h is Extract<typeof h, { kind: 'tool' }> => h.kind === 'tool' && h.call.id === id);
  const call = id ? (st.toolCalls[id] ?? inHistory?.call) : undefined;
  if (id && call) ctx.store.showFullOutput(id, call.title, fullOutputText(call, ctx.store.terminalsOf(id)) || '(no output)');
}

export const transcriptView: View = {
  focus: 'transcript',
  keys: {
    transcript_prev: (ctx) => move(ctx, -1),
    transcript_next: (ctx) => move(ctx, 1),
    transcript_page_up: (ctx) => move(ctx, -PAGE),
    transcript_page_down: (ctx) => move(ctx, PAGE),
    transcript_toggle: toggle,
    transcript_output: printOutput,
    transcript_close: (ctx) => ctx.setUi((x) => ({ ...x, transcript: undefined })),
  },
  panel: () => [],
  screen: (s, ui, width, maxLines) => (ui.transcript ? transcriptRows(s, ui.transcript, width, maxLines) : []),
};
