// The turn model: how the live region becomes history, whatever order real agents send things
// in. A turn's end closes every call it left unfinished (the SDK's example agent ends a turn with
// a rejected edit still `pending`), so nothing of one turn is left to block the next; a call
// announced again by id in a later turn is a new call (agents reuse ids like `call_1` per turn);
// an update for a call already printed is shown against that call, as a row of its own.
import type { ToolCallUpdate } from '@agentclientprotocol/sdk';
import type { HistoryItem, LiveItem, PendingPermission, TerminalView } from './views.ts';
import { isClosed, isFinished, mergeToolCall, type ToolCallView } from './tool_call.ts';

export interface TurnView {
  live: LiveItem[];
  toolCalls: Record<string, ToolCallView>;
  permissions: PendingPermission[];
  running: boolean;
}

/**
 * Close every unfinished call among `ids`: `cancelled` when the user cancelled (or the agent
 * died), `leftPending` when the turn ended with the agent never saying how the call went. A call
 * still awaiting the user's answer stays open: it is closed when answered.
 */
export function closeUnfinished(v: TurnView, ids: readonly string[], how: 'cancelled' | 'left_pending'): Record<string, ToolCallView> {
  const toolCalls = { ...v.toolCalls };
  for (const id of ids) {
    const c = toolCalls[id];
    if (!c || isClosed(c) || (how === 'left_pending' && v.permissions.some((p) => p.call.id === id))) continue;
    toolCalls[id] = how === 'cancelled' ? { ...c, status: 'cancelled' } : { ...c, leftPending: true };
  }
  return toolCalls;
}

/**
 * The prefix of the live items that is finished, as history items, and what stays live. A text
 * item is finished when something follows it, or (`settled`) when the turn is over; a call when
 * it is closed and no approval for it is waiting. Order is kept: the first unfinished item stops
 * the move.
 */
export function finishedPrefix(v: TurnView, settled: boolean, terminalsOf: (id: string) => TerminalView[]): { moved: HistoryItem[]; count: number } {
  const moved: HistoryItem[] = [];
  let n = 0;
  for (; n < v.live.length; n++) {
    const item = v.live[n];
    if (item.kind === 'tool') {
      const call = v.toolCalls[item.id];
      if (!call || !isClosed(call) || v.permissions.some((p) => p.call.id === item.id)) break;
      moved.push({ kind: 'tool', key: item.key, call, terminals: terminalsOf(call.id) });
    } else {
      const last = n === v.live.length - 1;
      if (last && !(settled && !v.running)) break;
      if (item.text.trim() !== '') moved.push(item);
    }
  }
  return { moved, count: n };
}

/** How an incoming tool_call / tool_call_update relates to what the screen already has. */
export type CallPlacement =
  /** a call of the current turn (new or still live): merge and show it live */
  | { kind: 'live'; call: ToolCallView; isNew: boolean }
  /** an update for a call already printed into history: show it as a row against that call */
  | { kind: 'late'; call: ToolCallView; visible: boolean };

export function placeCall(v: TurnView, update: ToolCallUpdate, announce: boolean): CallPlacement {
  const id = update.toolCallId;
  const prev = v.toolCalls[id];
  const inLive = v.live.some((i) => i.kind === 'tool' && i.id === id);
  if (prev && !inLive && isClosed(prev)) {
    // The same id announced again once the first is done with: a new call (ids are per turn for some agents).
    if (announce) return { kind: 'live', call: mergeToolCall(undefined, update), isNew: true };
    // Printed as done: a non-final status cannot take it back.
    const { status, ...rest } = update;
    const call = mergeToolCall(prev, status != null && !isFinished(status) ? rest : update);
    return { kind: 'late', call, visible: lateChange(prev, call) };
  }
  return { kind: 'live', call: mergeToolCall(prev, update), isNew: !inLive };
}

/** Worth a row of its own: the status moved on to a final one, or new content arrived. */
function lateChange(prev: ToolCallView, next: ToolCallView): boolean {
  if (next.status !== prev.status && isFinished(next.status)) return true;
  return next.content !== prev.content && next.content.length > 0;
}
