// The rewind picker (/rewind, /undo, Esc Esc on an empty prompt): the prompts to go back to, then
// what going back to before the chosen one does (the diff, what is kept) until the person says y.
// The prompt gone back to returns to the composer, to edit and send again.
import { rewindPickRows, rewindPreviewRows } from '../rewind_rows.ts';
import type { KeyContext, View } from './view.ts';

function move(ctx: KeyContext, d: number): void {
  const r = ctx.state.rewind;
  if (r?.step !== 'pick') return;
  const last = r.prompts.length - 1;
  ctx.setUi((x) => ({ ...x, rewindIndex: Math.max(0, Math.min(last, x.rewindIndex + d)) }));
}

/** The prompt selected (the list shows the newest first). */
function chosen(ctx: KeyContext): number | undefined {
  const r = ctx.state.rewind;
  if (r?.step !== 'pick') return undefined;
  const newest = [...r.prompts].reverse();
  return newest[Math.max(0, Math.min(newest.length - 1, ctx.ui().rewindIndex))]?.n;
}

function preview(ctx: KeyContext, restore: 'files' | 'conversation' | 'both'): void {
  const n = chosen(ctx);
  if (n !== undefined) void ctx.controller.rewind?.preview(n, restore);
}

function apply(ctx: KeyContext, overwrite: boolean): void {
  if (ctx.state.rewind?.step !== 'preview' || !ctx.controller.rewind) return;
  void ctx.controller.rewind.apply(overwrite).then((text) => {
    if (text !== undefined) ctx.setUi((x) => ({ ...x, composer: { text, cursor: text.length }, rewindIndex: 0 }));
    else ctx.setUi((x) => ({ ...x, rewindIndex: 0 }));
  });
}

/** Esc: from the preview back to the list (which /undo opens on its own); from the list, closed. */
function back(ctx: KeyContext): void {
  const r = ctx.state.rewind;
  if (r?.step === 'preview' && !r.busy && r.prompts.length > 1) return ctx.store.rewind.offer({ step: 'pick', prompts: r.prompts });
  ctx.setUi((x) => ({ ...x, rewindIndex: 0 }));
  if (ctx.controller.rewind) ctx.controller.rewind.dismiss();
  else ctx.store.rewind.offer(undefined);
}

export const rewindPickerView: View = {
  focus: 'rewind',
  keys: {
    rewind_prev: (ctx) => move(ctx, -1),
    rewind_next: (ctx) => move(ctx, 1),
    rewind_both: (ctx) => (ctx.state.rewind?.step === 'preview' ? apply(ctx, false) : preview(ctx, 'both')),
    rewind_conversation: (ctx) => preview(ctx, 'conversation'),
    rewind_files: (ctx) => preview(ctx, 'files'),
    rewind_apply: (ctx) => apply(ctx, false),
    rewind_overwrite: (ctx) => apply(ctx, true),
    rewind_close: back,
  },
  panel: (s, ui, width, room) => {
    const r = s.rewind;
    if (!r) return [];
    const lines = Math.max(6, room - 2);
    if (r.step === 'pick') return rewindPickRows(r.prompts, Math.min(ui.rewindIndex, r.prompts.length - 1), width, Math.min(16, lines));
    return rewindPreviewRows(r.plan, r.prompts.find((p) => p.n === r.plan.n)?.text, width, lines, r.busy);
  },
};
