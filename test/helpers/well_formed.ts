// The check strict model servers make of a conversation: every assistant tool call is answered by
// a tool message before the next message of another role. Works on our history and on the wire.
import assert from 'node:assert/strict';

/** Every assistant tool call is answered by a tool message before the next non-tool message. */
export function assertWellFormed(history: Array<{ role: string; toolCalls?: Array<{ id: string }>; tool_calls?: Array<{ id: string }>; toolCallId?: string; tool_call_id?: string }>): void {
  for (let i = 0; i < history.length; i++) {
    const calls = history[i].toolCalls ?? history[i].tool_calls;
    if (history[i].role !== 'assistant' || !calls?.length) continue;
    const answered = new Set<string>();
    for (let j = i + 1; j < history.length && history[j].role === 'tool'; j++) answered.add((history[j].toolCallId ?? history[j].tool_call_id)!);
    for (const c of calls) assert.ok(answered.has(c.id), `tool call ${c.id} at ${i} has no result`);
  }
}
