// session/request_permission as the client answers it: the request shown and waited for, dropped
// from the queue when the agent withdraws it ($/cancel_request).
import type * as acp from '@agentclientprotocol/sdk';
import type { PermissionAnswers } from './permission_answers.ts';

/** The agent asked before a tool call: the person's answer, or `cancelled`. */
export async function requestPermission(params: acp.RequestPermissionRequest, signal: AbortSignal, answers: PermissionAnswers): Promise<acp.RequestPermissionResponse> {
  const outcome = answers.ask(params.sessionId, params.toolCall, params.options);
  const onAbort = () => answers.withdraw(params.toolCall.toolCallId);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return { outcome: await outcome };
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
