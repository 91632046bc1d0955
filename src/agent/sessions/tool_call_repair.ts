// A history in which an assistant's tool call has no tool result is rejected by strict providers
// (OpenAI-compatible servers answer HTTP 400). A turn cut short (the client went away, the agent
// was killed mid-call) leaves exactly that, so the store gives every unanswered call a
// `cancelled` result when it saves a finished turn and when it loads a session.
import type { ChatMessage } from '../providers/types.ts';

export const CANCELLED_RESULT = JSON.stringify({ code: 'cancelled', error: 'This call did not finish: the turn was interrupted (the client went away or the agent stopped) before it returned a result.' });

/**
 * Inserts a `cancelled` tool result for each unanswered call, right after the results its
 * assistant message did get. Tool results that answer no call are left alone. Returns how many
 * were added (0: `history` is untouched).
 */
export function answerUnansweredCalls(history: ChatMessage[]): number {
  let added = 0;
  for (let i = 0; i < history.length; i++) {
    const m = history[i];
    if (m.role !== 'assistant' || !m.toolCalls?.length) continue;
    let end = i + 1;
    const answered = new Set<string>();
    while (end < history.length && history[end].role === 'tool') {
      answered.add((history[end] as { toolCallId: string }).toolCallId);
      end++;
    }
    const missing = m.toolCalls.filter((c) => !answered.has(c.id));
    if (missing.length === 0) continue;
    history.splice(end, 0, ...missing.map((c): ChatMessage => ({ role: 'tool', toolCallId: c.id, name: c.name, content: CANCELLED_RESULT })));
    added += missing.length;
    i = end + missing.length - 1;
  }
  return added;
}
