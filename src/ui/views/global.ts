// The keys that work whatever has the focus: Ctrl+C cancels the turn (a second one within 2 s
// quits), Ctrl+D quits (with a draft in the composer, at a second press), Ctrl+L opens the agent
// log. A view's own binding for a key wins. Interrupting a turn (Ctrl+C here, Esc in the
// composer) brings the prompts queued behind it back to the composer: they were written for the
// work that was just stopped, so they are the person's to edit, not sent on their own.
import { agentLogKeys } from './agent_log.ts';
import type { KeyContext, KeyHandlers, ViewContext } from './view.ts';

const QUIT_ARMED_MS = 2000;

/** Stop the running turn (every pending approval and form answered `cancelled`, then session/cancel) or `!` line; queued prompts come back to the composer. */
export function interruptTurn(ctx: ViewContext): void {
  const st = ctx.store.getState();
  // a `!` line of the person's own shell stops the same way
  if (st.running || st.permissions.length > 0 || st.elicitations.length > 0 || st.shell) ctx.controller.cancel();
  const back = ctx.store.takeAllQueued();
  if (back.length === 0) return;
  ctx.setUi((x) => {
    const text = [...back, x.composer.text].filter((t) => t.trim() !== '').join('\n');
    return { ...x, composer: { text, cursor: text.length }, hint: `${back.length === 1 ? 'The queued prompt is' : `${back.length} queued prompts are`} back in the composer, not sent: edit, then Enter.` };
  });
}

function cancel(ctx: KeyContext): void {
  const u = ctx.ui();
  if (u.quitArmed) return ctx.controller.quit();
  interruptTurn(ctx);
  ctx.schedule('quit', QUIT_ARMED_MS, () => ctx.setUi((x) => ({ ...x, quitArmed: false })));
  // a reason being typed goes with the approval it was for
  ctx.setUi((x) => ({ ...x, quitArmed: true, reason: undefined }));
}

/** Ctrl+D: quit; with a draft in the composer, only at a second press within 2 s (the draft would be lost). */
function quit(ctx: KeyContext): void {
  const u = ctx.ui();
  if (u.composer.text.trim() === '' || u.quitDraftArmed) return ctx.controller.quit();
  ctx.schedule('quit-draft', QUIT_ARMED_MS, () => ctx.setUi((x) => ({ ...x, quitDraftArmed: false })));
  ctx.setUi((x) => ({ ...x, quitDraftArmed: true }));
}

export const globalKeys: KeyHandlers = {
  cancel,
  quit,
  ...agentLogKeys,
};
