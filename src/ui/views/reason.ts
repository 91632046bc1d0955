// Typing a reason for a rejection (r in the approval): Enter rejects and sends the reason to the
// agent as the next prompt, Esc goes back to the options. The modal stays on screen with the
// reason in place of the options; a reason belongs to one approval and goes with it.
import { useEffect } from 'react';
import type { ClientState } from '../../client/state.ts';
import { reasonOption } from '../approval_rows.ts';
import type { UiState } from '../ui_state.ts';
import { answer, approvalPanel } from './approval.ts';
import type { KeyContext, View, ViewContext } from './view.ts';

function submit(ctx: KeyContext): void {
  const reason = (ctx.ui().reason ?? '').trim();
  ctx.setUi((x) => ({ ...x, reason: undefined }));
  answer(ctx, reasonOption(ctx.state.permissions[0].options)?.optionId);
  if (reason !== '') ctx.controller.send(reason);
}

/** The reason is one line: line breaks typed or pasted become spaces. */
function type(ctx: ViewContext, text: string): void {
  ctx.setUi((x) => ({ ...x, reason: (x.reason ?? '') + text }));
}

/** Drop a reason being typed when the approval it belongs to goes away. */
export function useReasonReset(s: ClientState, setUi: (f: (u: UiState) => UiState) => void): void {
  const headKey = s.permissions[0]?.key;
  useEffect(() => {
    setUi((u) => (u.reason === undefined ? u : { ...u, reason: undefined }));
  }, [headKey]);
}

export const reasonView: View = {
  focus: 'reason',
  keys: {
    reason_submit: submit,
    reason_back: (ctx) => ctx.setUi((x) => ({ ...x, reason: undefined })),
  },
  edit: (ctx) => {
    const { name, input, key } = ctx;
    if (name === 'backspace') ctx.setUi((x) => ({ ...x, reason: [...(x.reason ?? '')].slice(0, -1).join('') }));
    else if (input && !key.ctrl && !key.meta && !key.escape) type(ctx, input.replace(/[\r\n]+/g, ' '));
  },
  paste: (text, ctx) => type(ctx, text.replace(/\n+/g, ' ')),
  panel: approvalPanel,
};
