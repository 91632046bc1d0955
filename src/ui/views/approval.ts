// The approval modal: the first waiting permission request, what it will do (its command steps,
// its diff), and the agent's options. y/a/n pick by the option's ACP kind (never its label), 1-9
// by position, r starts a reason; every answer goes to the client through the controller, and
// only once the approval takes answers (approval_arming.ts): until then a typed key goes to the
// prompt's draft. ↑/↓, PgUp/PgDn and Space scroll a body taller than the modal's room, f shows it
// full screen (f or Esc back); the options stay on screen.
import type { ClientState } from '../../client/state.ts';
import { approvalLayout, optionForKey, type OptionKey } from '../approval_rows.ts';
import type { Row } from '../text_layout.ts';
import type { UiState } from '../ui_state.ts';
import { approvalArmed } from './approval_arming.ts';
import { editPrompt, pasteIntoPrompt } from './composer.ts';
import type { KeyContext, KeyHandler, View, ViewContext } from './view.ts';

/** Answer the approval on screen with this option (none: the key picks nothing, and nothing happens). */
export function answer(ctx: ViewContext, optionId: string | undefined): void {
  const perm = ctx.state.permissions[0];
  if (perm && optionId !== undefined) ctx.controller.permissions?.answer(perm.key, { outcome: 'selected', optionId });
}

/** A key that is a character someone types (not Esc, an arrow, a Ctrl chord). */
function isTyped(ctx: KeyContext): boolean {
  // eslint-disable-next-line no-control-regex
  return ctx.input !== '' && !ctx.key.ctrl && !ctx.key.meta && !ctx.key.escape && !/[\u0000-\u001f\u007f]/.test(ctx.input);
}

/**
 * A key that answers (or opens something) only once the approval takes answers: until then a
 * typed character goes to the prompt's draft, and any other key does nothing.
 */
function whenArmed(handler: KeyHandler): KeyHandler {
  return (ctx) => {
    const perm = ctx.state.permissions[0];
    if (perm && approvalArmed(ctx.ui(), perm.key)) return handler(ctx);
    if (isTyped(ctx)) editPrompt(ctx);
  };
}

const byKind = (k: OptionKey) => whenArmed((ctx) => answer(ctx, optionForKey(ctx.state.permissions[0].options, k)?.optionId));

// How the modal of each request was last laid out (its window and body height), for the scroll keys.
const laidOut = new Map<string, { window: number; total: number }>();

function scrollBy(ctx: KeyContext, rows: (window: number) => number): void {
  const perm = ctx.state.permissions[0];
  const seen = perm && laidOut.get(perm.key);
  ctx.setUi((x) => {
    if (!x.approval || !perm || x.approval.key !== perm.key) return x;
    const window = seen?.window ?? 1;
    const max = seen ? Math.max(0, seen.total - seen.window) : Infinity;
    // from where the body is drawn (the room may have changed since the scroll was set)
    const scroll = Math.max(0, Math.min(max, Math.min(max, x.approval.scroll) + rows(window)));
    return scroll === x.approval.scroll ? x : { ...x, approval: { ...x.approval, scroll } };
  });
}

function setFull(ctx: ViewContext, full: boolean): void {
  ctx.setUi((x) => (x.approval ? { ...x, approval: { ...x.approval, full } } : x));
}

/** The modal in `maxLines` rows, for the first waiting request, with the reason being typed when there is one. */
function modalRows(s: ClientState, ui: UiState, width: number, maxLines: number): Row[] {
  const p = s.permissions[0];
  const on = ui.approval?.key === p.key ? ui.approval : undefined;
  const layout = approvalLayout(p, {
    cwd: s.cwd,
    width,
    index: 0,
    total: s.permissions.length,
    maxLines,
    terminals: [],
    reason: ui.reason,
    scroll: on?.scroll ?? 0,
    armed: on?.armed ?? false,
    draft: ui.composer.text,
    full: on?.full === true,
    now: ui.now || Date.now(),
  });
  if (laidOut.size > 64) laidOut.clear();
  laidOut.set(p.key, { window: layout.window, total: layout.total });
  return layout.rows;
}

function isFull(s: ClientState, ui: UiState): boolean {
  return ui.approval?.full === true && ui.approval.key === s.permissions[0]?.key && ui.reason === undefined;
}

/** Under the conversation, the modal takes the whole room the panel has (none when it is full screen). */
export function approvalPanel(s: ClientState, ui: UiState, width: number, room: number): Row[] {
  if (isFull(s, ui)) return [];
  return modalRows(s, ui, width, Math.max(6, room));
}

export const approvalView: View = {
  focus: 'approval',
  keys: {
    allow_once: byKind('y'),
    allow_always: byKind('a'),
    reject: (ctx) => {
      // Esc closes the full screen first; n always answers
      if (ctx.name === 'escape' && ctx.ui().approval?.full) return setFull(ctx, false);
      byKind('n')(ctx);
    },
    pick_option: whenArmed((ctx) => answer(ctx, ctx.state.permissions[0].options[Number(ctx.input) - 1]?.optionId)),
    reject_reason: whenArmed((ctx) => {
      if (optionForKey(ctx.state.permissions[0].options, 'n')) ctx.setUi((x) => ({ ...x, reason: '', ...(x.approval ? { approval: { ...x.approval, full: false } } : {}) }));
    }),
    approval_up: (ctx) => scrollBy(ctx, () => -1),
    approval_down: (ctx) => scrollBy(ctx, () => 1),
    approval_page_up: (ctx) => scrollBy(ctx, (w) => -Math.max(1, w - 1)),
    approval_page_down: (ctx) => (ctx.name === 'space' ? whenArmed((c) => scrollBy(c, (w) => Math.max(1, w - 1))) : (c: KeyContext) => scrollBy(c, (w) => Math.max(1, w - 1)))(ctx),
    approval_full: whenArmed((ctx) => setFull(ctx, !ctx.ui().approval?.full)),
  },
  // Text typed while the approval is up is the prompt's: kept in its draft, never lost.
  edit: editPrompt,
  // a key the approval took while it takes answers (Space paging, y) is not typing; what goes to the draft is
  isTyping: (ctx, action) => action === undefined || !approvalArmed(ctx.ui(), ctx.state.permissions[0]?.key ?? ''),
  paste: pasteIntoPrompt,
  panel: approvalPanel,
  // full screen: the whole terminal but the status line; the scroll indicator names the keys
  hidesFooter: (s, ui) => isFull(s, ui),
  screen: (s, ui, width, maxLines) => (isFull(s, ui) ? modalRows(s, ui, width, maxLines) : undefined),
};
