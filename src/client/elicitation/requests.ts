// elicitation/create as the client answers it: a form is shown and waited for; any other mode
// (URL, not advertised) is declined and said. What the client advertises is here too, so the two
// cannot drift.
import * as acp from '@agentclientprotocol/sdk';
import type { Notices, SessionLink } from '../session/link.ts';
import type { ElicitationAnswers } from './elicitation_answers.ts';

/** Form elicitations are shown as a modal with typed fields; URL ones are not offered. */
export const ELICITATION_CAPS = { elicitation: { form: {} } };

/** The agent asked for input: its form, shown until the person answers (or the agent withdraws it). */
export function elicit(params: acp.CreateElicitationRequest, signal: AbortSignal, forms: ElicitationAnswers, link: SessionLink, store: Notices): Promise<acp.CreateElicitationResponse> {
  if (!acp.CreateElicitationRequest.isForm(params)) {
    store.notice('warn', `${link.agentName} asked for input in a way this client does not offer (${String(params.mode)}): declined. Its message: ${params.message}`);
    return Promise.resolve({ action: 'decline' });
  }
  const sessionId = 'sessionId' in params && typeof params.sessionId === 'string' ? params.sessionId : (link.sessionId ?? '');
  return forms.ask(sessionId, params.message, params.requestedSchema, signal);
}
