// Rows the turn model adds to history: the marker of a turn that ended cancelled, and an update
// that arrived for a call already printed (shown against that call, marked as an update).
import type { ToolCallView } from '../client/session/tool_call.ts';
import type { TerminalView } from '../client/state.ts';
import { truncateRow, type Row } from './text_layout.ts';
import { toolCallRows } from './tool_call_rows.ts';

export function markerRows(text: string, width: number): Row[] {
  return [truncateRow([{ text: '⊘ ', color: 'warn', bold: true }, { text, color: 'warn' }], width)];
}

export function lateCallRows(call: ToolCallView, terminals: TerminalView[], width: number, cwd: string): Row[] {
  const [head, ...body] = toolCallRows(call, { cwd, width, expanded: false, terminals, outputLines: 10 });
  const row: Row = [{ text: '↳ ', color: 'muted', bold: true }, ...head.slice(1), { text: '  (update after it was shown)', color: 'muted' }];
  return [truncateRow(row, width), ...body];
}
