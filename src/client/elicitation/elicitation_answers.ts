// The form elicitations waiting for the person, and the answer each one is owed: the store shows
// the form (state), this keeps the promise the protocol handler returns to the agent. Every way a
// form ends (sent, declined, cancelled, withdrawn, the agent gone) goes through `answer`, so none
// is left hanging and none is answered twice.
import type { CreateElicitationResponse, ElicitationSchema } from '@agentclientprotocol/sdk';

/** What of the store the queue uses: a form shown, taken away, and the ones shown now. */
export interface FormShelf {
  readonly elicitation: {
    add(sessionId: string, message: string, schema: ElicitationSchema): string;
    remove(key: string): void;
  };
  getState(): { elicitations: readonly { key: string }[] };
}

const CANCEL: CreateElicitationResponse = { action: 'cancel' };

/** The controller's slice (`controller.elicitation`): the form's keys answer the elicitation queued under `key` (sent, declined or cancelled). */
export interface ElicitationControls {
  answer(key: string, response: CreateElicitationResponse): void;
}

export class ElicitationAnswers implements ElicitationControls {
  readonly #waiting = new Map<string, (r: CreateElicitationResponse) => void>();

  constructor(private readonly store: FormShelf) {}

  /** Show the form and wait for the person's answer; `signal`: the agent withdrew the request. */
  ask(sessionId: string, message: string, schema: ElicitationSchema, signal?: AbortSignal): Promise<CreateElicitationResponse> {
    return new Promise((resolve) => {
      const key = this.store.elicitation.add(sessionId, message, schema);
      this.#waiting.set(key, resolve);
      signal?.addEventListener('abort', () => this.answer(key, CANCEL), { once: true });
    });
  }

  answer(key: string, response: CreateElicitationResponse): void {
    const resolve = this.#waiting.get(key);
    if (!resolve) return;
    this.#waiting.delete(key);
    this.store.elicitation.remove(key);
    resolve(response);
  }

  /** Ctrl+C, the agent gone, the conversation replaced: every open form is answered `cancel`. */
  cancelAll(): void {
    for (const e of this.store.getState().elicitations) this.answer(e.key, CANCEL);
  }
}
