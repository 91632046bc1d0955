// The keys that work whatever has the focus: Ctrl+C cancels the turn (a second one within 2 s
// quits), Ctrl+D quits, Ctrl+L opens the agent log. A view's own binding for a key wins.
import { agentLogKeys } from './agent_log.ts';
import type { KeyContext, KeyHandlers } from './view.ts';

const QUIT_ARMED_MS = 2000;

function cancel(ctx: KeyContext): void {
  const u = ctx.ui();
  if (u.quitArmed) return ctx.controller.quit();
  // the client answers every pending approval `cancelled`, then asks the agent to stop
  if (ctx.state.running || ctx.state.permissions.length > 0 || ctx.state.shell) ctx.controller.cancel();
  ctx.schedule('quit', QUIT_ARMED_MS, () => ctx.setUi((x) => ({ ...x, quitArmed: false })));
  // a reason being typed goes with the approval it was for
  ctx.setUi((x) => ({ ...x, quitArmed: true, reason: undefined }));
}

export const globalKeys: KeyHandlers = {
  cancel,
  quit: (ctx) => ctx.controller.quit(),
  ...agentLogKeys,
};
