// The model picker (/model): ↑/↓ select, Enter switches the session to the selected model (the
// status line names it at once), Esc keeps the model in use.
import { modelPickerRows } from '../model_picker_rows.ts';
import type { ModelChoices } from '../../client/state.ts';
import type { KeyContext, View } from './view.ts';

/** The selected model; `index` -1 (as the picker opens): the one in use, else the first. */
function selectedIndex(c: ModelChoices, index: number): number {
  if (index < 0) return Math.max(0, c.models.findIndex((m) => m.id === c.current));
  return Math.max(0, Math.min(c.models.length - 1, index));
}

function move(ctx: KeyContext, d: number): void {
  const c = ctx.state.modelChoices;
  if (!c) return;
  ctx.setUi((x) => ({ ...x, modelIndex: Math.max(0, Math.min(c.models.length - 1, selectedIndex(c, x.modelIndex) + d)) }));
}

function pick(ctx: KeyContext): void {
  const c = ctx.state.modelChoices;
  if (!c) return;
  const chosen = c.models[selectedIndex(c, ctx.ui().modelIndex)];
  ctx.setUi((x) => ({ ...x, modelIndex: -1 }));
  ctx.store.models.offer(undefined);
  if (chosen && ctx.controller.models) void ctx.controller.models.model(chosen.id);
}

function close(ctx: KeyContext): void {
  ctx.setUi((x) => ({ ...x, modelIndex: -1 }));
  ctx.store.models.offer(undefined);
}

export const modelPickerView: View = {
  focus: 'models',
  keys: {
    model_prev: (ctx) => move(ctx, -1),
    model_next: (ctx) => move(ctx, 1),
    model_pick: pick,
    model_close: close,
  },
  panel: (s, ui, width, room) => (s.modelChoices ? modelPickerRows(s.modelChoices, selectedIndex(s.modelChoices, ui.modelIndex), width, Math.max(4, Math.min(14, room - 2))) : []),
};
