// One tool call as the client knows it: the agent's `tool_call` joined with every later
// `tool_call_update` (and a permission request's `toolCall`) by toolCallId.
import type { ToolCall, ToolCallContent, ToolCallLocation, ToolCallUpdate, ToolKind } from '@agentclientprotocol/sdk';
import { META_ASKED } from '../../core/protocol_names.ts';

/** ACP statuses plus `cancelled`, which the client sets when the user cancels the turn. */
export type ToolStatus = 'pending' | 'in_progress' | 'completed' | 'failed' | 'cancelled';

export interface ToolCallView {
  id: string;
  title: string;
  kind: ToolKind;
  status: ToolStatus;
  content: ToolCallContent[];
  locations: ToolCallLocation[];
  rawInput?: unknown;
  rawOutput?: unknown;
  /** The turn ended while the agent still had this call pending or running (it never said how it went). */
  leftPending?: boolean;
  /** The user was asked about this call (its diff was on screen then); a change made unasked is shown in full afterwards. */
  asked?: boolean;
}

export function isFinished(status: ToolStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** Done with as far as the screen is concerned: finished, or closed by the end of its turn. */
export function isClosed(call: ToolCallView): boolean {
  return isFinished(call.status) || call.leftPending === true;
}

export function newToolCall(id: string): ToolCallView {
  return { id, title: id, kind: 'other', status: 'pending', content: [], locations: [] };
}

/**
 * Apply a tool_call (full) or tool_call_update (only what changed) to what we had. Fields the
 * update leaves out keep their value; `content` and `locations`, when present, replace the list
 * (ACP sends them whole). A late update never reopens a call the client closed (the user
 * cancelled it, or its turn ended with it unfinished); a final status still lands.
 */
export function mergeToolCall(prev: ToolCallView | undefined, update: ToolCall | ToolCallUpdate): ToolCallView {
  const base = prev ?? newToolCall(update.toolCallId);
  const next: ToolCallView = { ...base };
  if (update.title != null) next.title = update.title;
  if (update.kind != null) next.kind = update.kind;
  const closedHere = base.status === 'cancelled' || base.leftPending === true;
  if (update.status != null && !(closedHere && !isFinished(update.status))) {
    next.status = update.status;
    if (isFinished(update.status)) delete next.leftPending;
  }
  if (update.content != null) next.content = update.content;
  if (update.locations != null) next.locations = update.locations;
  if (update.rawInput !== undefined) next.rawInput = update.rawInput;
  if (update.rawOutput !== undefined) next.rawOutput = update.rawOutput;
  // a replayed call the person was asked about (cxl acp says so): shown as it was after the answer
  if (update._meta?.[META_ASKED] === true) next.asked = true;
  return next;
}
