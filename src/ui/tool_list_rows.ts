// The tool list (Tab): every call of the latest turn, the selected one marked, each open one with
// its diff and output; scrolled so the selection and what follows it are on screen.
import type { ClientState } from '../client/state.ts';
import { terminalsOf } from './conversation_rows.ts';
import { clipHead, plainRow, type Row } from './text_layout.ts';
import { toolCallRows } from './tool_call_rows.ts';
import type { UiState } from './ui_state.ts';

export function toolListRows(s: ClientState, ui: UiState, width: number, maxLines: number): Row[] {
  if (s.turnCalls.length === 0) return [plainRow('  no tool calls in this turn yet', { dim: true })];
  let selRow = 0;
  const rows: Row[] = [];
  s.turnCalls.forEach((id, i) => {
    const call = s.toolCalls[id];
    if (!call) return;
    if (i === ui.selected) selRow = rows.length;
    const expanded = ui.expanded.has(id);
    const r = toolCallRows(call, { cwd: s.cwd, width, expanded, terminals: terminalsOf(s, id), selected: i === ui.selected, spinnerFrame: ui.spinnerFrame, outputLines: expanded ? 20 : 3 });
    rows.push(...(expanded ? r : r.slice(0, 1)));
  });
  if (rows.length <= maxLines) return rows;
  // Start just above the selection so it and what follows it are on screen.
  const start = Math.max(0, Math.min(selRow - 1, rows.length - maxLines));
  const view = rows.slice(start);
  const head = start > 0 ? [plainRow(`… ${start} line${start === 1 ? '' : 's'} above`, { dim: true })] : [];
  return [...head, ...clipHead(view, maxLines - head.length)];
}
