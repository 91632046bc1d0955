// The approval modal: the first waiting permission request, its diff or command, and the agent's
// options. y/a/n pick by the option's ACP kind (never its label), 1-9 by position, r starts a
// reason. Every answer goes to the client through the controller.
import type { ClientState } from '../../client/state.ts';
import { approvalRows, optionForKey, type OptionKey } from '../approval_rows.ts';
import type { Row } from '../text_layout.ts';
import type { UiState } from '../ui_state.ts';
import type { KeyContext, View, ViewContext } from './view.ts';

/** Answer the approval on screen with this option (none: the key picks nothing, and nothing happens). */
export function answer(ctx: ViewContext, optionId: string | undefined): void {
  const perm = ctx.state.permissions[0];
  if (perm && optionId !== undefined) ctx.controller.answerPermission?.(perm.key, { outcome: 'selected', optionId });
}

const byKind = (k: OptionKey) => (ctx: KeyContext) => answer(ctx, optionForKey(ctx.state.permissions[0].options, k)?.optionId);

/** The modal for the first waiting request, with the reason being typed when there is one. */
export function approvalPanel(s: ClientState, ui: UiState, width: number, room: number): Row[] {
  return approvalRows(s.permissions[0], {
    cwd: s.cwd,
    width,
    index: 0,
    total: s.permissions.length,
    maxLines: Math.max(6, room - 3),
    terminals: [],
    reason: ui.reason,
  });
}

export const approvalView: View = {
  focus: 'approval',
  keys: {
    allow_once: byKind('y'),
    allow_always: byKind('a'),
    reject: byKind('n'),
    pick_option: (ctx) => answer(ctx, ctx.state.permissions[0].options[Number(ctx.input) - 1]?.optionId),
    reject_reason: (ctx) => {
      if (optionForKey(ctx.state.permissions[0].options, 'n')) ctx.setUi((x) => ({ ...x, reason: '' }));
    },
  },
  panel: approvalPanel,
};
