// The agent log (Ctrl+L, from anywhere): the agent's stderr in place of the conversation, under
// whichever view has the keys. Its one key opens and closes it.
import type { ClientState } from '../../client/state.ts';
import { agentLogRows } from '../agent_log_rows.ts';
import type { Row } from '../text_layout.ts';
import type { KeyHandlers } from './view.ts';

export const agentLogKeys: KeyHandlers = {
  log_toggle: (ctx) => ctx.setUi((x) => ({ ...x, logOpen: !x.logOpen })),
};

/** The pane in the conversation's `budget` rows (two at least: its title and a line). */
export function agentLogPane(s: ClientState, width: number, budget: number): Row[] {
  return agentLogRows(s, width, Math.max(2, budget));
}
