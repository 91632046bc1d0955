// The unfinished tail of the conversation as rows: the streamed answer (only the tail that can be
// on screen), text, and the calls still running. The call whose approval is on screen is left to
// the approval, and one waiting for its turn to be asked shows as one line.
import type { ClientState, LiveItem, TerminalView } from '../client/state.ts';
import { markdownTail } from './markdown.ts';
import { TailScan } from './stream_tail.ts';
import { textRows } from './message_rows.ts';
import { clipTail, plainRow, type Row } from './text_layout.ts';
import { toolCallRows } from './tool_call_rows.ts';
import { runningShellRows } from './shell_rows.ts';
import type { UiState } from './ui_state.ts';

/** The terminals a call's content names, as the client serves them. */
export function terminalsOf(s: ClientState, callId: string): TerminalView[] {
  const call = s.toolCalls[callId];
  if (!call) return [];
  return call.content.flatMap((c) => (c.type === 'terminal' && s.terminals[c.terminalId] ? [s.terminals[c.terminalId]] : []));
}

// What is known of each message being streamed (its lines, its fences), by item: a frame scans
// only what came since the last one. A few are kept (a thought and its answer stream in turn).
const scans = new Map<string, TailScan>();

function scanOf(key: string): TailScan {
  let scan = scans.get(key);
  if (!scan) {
    scan = new TailScan();
    scans.set(key, scan);
    if (scans.size > 4) scans.delete(scans.keys().next().value as string);
  }
  return scan;
}

export function liveItemRows(s: ClientState, ui: UiState, item: LiveItem, width: number, maxLines: number): Row[] {
  if (item.kind === 'agent' || item.kind === 'thought') {
    // Only the tail can be on screen: lay out that much, not the whole streamed answer.
    const thought = item.kind === 'thought';
    const { rows, omitted } = markdownTail(item.text, thought ? width - 2 : width, maxLines, thought ? { dim: true } : {}, scanOf(`${item.kind}:${item.key}`));
    const shown = thought ? rows.map((r) => [{ text: '┊ ', dim: true }, ...r]) : rows;
    return omitted > 0 ? [plainRow(`… ${omitted} earlier lines (printed in full when finished)`, { dim: true }), ...shown] : shown;
  }
  if (item.kind !== 'tool') return textRows(item.kind, item.text, width);
  const call = s.toolCalls[item.id];
  // The call whose approval is on screen is shown by the modal, not twice.
  if (!call || s.permissions[0]?.call.id === call.id) return [];
  const awaiting = s.permissions.some((p) => p.call.id === call.id);
  return toolCallRows(call, {
    cwd: s.cwd,
    width,
    expanded: ui.expanded.has(call.id) && !awaiting,
    terminals: awaiting ? [] : terminalsOf(s, call.id),
    awaiting,
    spinnerFrame: ui.spinnerFrame,
    outputLines: 8,
    bodyLines: awaiting ? 0 : 14,
  }).slice(0, awaiting ? 1 : undefined);
}

/** The live items in `budget` rows, the newest kept; the person's own shell line running now comes last. */
export function conversationRows(s: ClientState, ui: UiState, width: number, budget: number): Row[] {
  const shell = s.shell ? runningShellRows(s.shell, width, ui.spinnerFrame) : [];
  return clipTail(
    [...s.live.flatMap((i) => liveItemRows(s, ui, i, width, Math.max(1, budget))), ...shell],
    budget,
    ' (printed in full when finished)',
  );
}
