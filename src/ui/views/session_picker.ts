// The session picker (/resume, `cxl --resume`): this directory's sessions to resume. ↑/↓ select,
// Enter resumes the selected one (session/load), Esc closes it (at startup: a new session).
import { pickerRows } from '../session_picker_rows.ts';
import type { KeyContext, View } from './view.ts';

function move(ctx: KeyContext, d: number): void {
  const choices = ctx.state.sessionChoices;
  if (!choices) return;
  const last = choices.sessions.length - 1;
  ctx.setUi((x) => ({ ...x, pickerIndex: Math.max(0, Math.min(last, x.pickerIndex + d)) }));
}

function pick(ctx: KeyContext): void {
  const choices = ctx.state.sessionChoices;
  if (!choices) return;
  const last = choices.sessions.length - 1;
  const chosen = choices.sessions[Math.max(0, Math.min(last, ctx.ui().pickerIndex))];
  ctx.setUi((x) => ({ ...x, pickerIndex: 0 }));
  if (chosen && ctx.controller.loadSession) ctx.controller.loadSession(chosen.sessionId);
  else ctx.store.offerSessions(undefined);
}

function close(ctx: KeyContext): void {
  ctx.setUi((x) => ({ ...x, pickerIndex: 0 }));
  if (ctx.controller.dismissSessions) ctx.controller.dismissSessions();
  else ctx.store.offerSessions(undefined);
}

export const sessionPickerView: View = {
  focus: 'picker',
  keys: {
    picker_prev: (ctx) => move(ctx, -1),
    picker_next: (ctx) => move(ctx, 1),
    picker_pick: pick,
    picker_close: close,
  },
  panel: (s, ui, width, room) => (s.sessionChoices ? pickerRows(s.sessionChoices, Math.min(ui.pickerIndex, s.sessionChoices.sessions.length - 1), width, Math.max(4, Math.min(14, room - 2))) : []),
};
