// The live region as rows, budgeted to stay shorter than the terminal: whatever does not fit is
// clipped with a "N lines hidden" row, so Ink never has to redraw more than one screen. The view
// that has the keys (views/focus.ts) draws the panel under the conversation, or the whole screen;
// the plan, queued prompts, status line and the footer of its keys are the same for every view.
import type { ClientState } from '../client/state.ts';
import { conversationRows } from './conversation_rows.ts';
import { footerRows } from './footer.ts';
import { planRows } from './plan_rows.ts';
import { statusRow } from './status_line.ts';
import { plainRow, type Row } from './text_layout.ts';
import type { UiState } from './ui_state.ts';
import { agentLogPane } from './views/agent_log.ts';
import { focusedView } from './views/focus.ts';

export interface ScreenSize {
  columns: number;
  rows: number;
}

function queuedRow(q: string): Row {
  return plainRow(`  queued: ${q.split('\n')[0]}`, { dim: true });
}

export function liveRows(s: ClientState, ui: UiState, size: ScreenSize): Row[] {
  const width = Math.max(20, size.columns);
  const height = Math.max(8, size.rows);
  const view = focusedView(s, ui);
  const extra = [
    ...(ui.quitArmed ? [{ label: 'Ctrl+C', help: 'again quits' }] : []),
    ...(ui.quitDraftArmed ? [{ label: 'Ctrl+D', help: 'again quits (the draft is not sent)' }] : []),
    ...(s.running && !s.cancelling && view.focus === 'composer' ? [{ label: 'Esc', help: 'interrupt' }] : []),
    ...(ui.logOpen || s.agentLog.length > 0 ? [{ label: 'Ctrl+L', help: ui.logOpen ? 'close the agent log' : 'agent log' }] : []),
  ];
  const footer = view.hidesFooter?.(s, ui) ? [] : footerRows(view.focus, width, extra);
  const status = [statusRow(s, width)];
  // One spare row: a frame exactly as tall as the terminal makes Ink clear the screen.
  const room = height - 1 - footer.length - status.length;
  // queued prompts stay in view above the panel, however much room the panel takes
  const top: Row[] = s.queued.length > 3 ? [...s.queued.slice(0, 2).map(queuedRow), plainRow(`  … ${s.queued.length - 2} more queued`, { dim: true })] : s.queued.map(queuedRow);
  const bottom = view.panel(s, ui, width, room - top.length);
  let budget = Math.max(0, room - bottom.length);
  budget -= Math.min(budget, top.length);
  const plan = s.plan.length > 0 && s.plan.some((e) => e.status !== 'completed') ? planRows(s.plan, width, Math.min(6, Math.floor(budget / 3))) : [];
  budget -= Math.min(budget, plan.length);
  const whole = view.screen?.(s, ui, width, Math.max(4, budget + plan.length + top.length));
  if (whole) return [...whole, ...bottom, ...status, ...footer].slice(0, height - 1);
  const middle = ui.logOpen ? agentLogPane(s, width, budget) : view.body ? view.body(s, ui, width, budget) : conversationRows(s, ui, width, budget);
  return [...middle, ...plan, ...top, ...bottom, ...status, ...footer].slice(0, height - 1);
}
