// The permission requests waiting for the user, and the answer each one is owed: the store shows
// a request (state), this keeps the promise the protocol handler returns to the agent. Every way a
// request ends goes through `answer`, so none is left hanging and none is answered twice.
import type { PermissionOption, RequestPermissionOutcome, ToolCallUpdate } from '@agentclientprotocol/sdk';
import type { PendingPermission } from '../session/views.ts';

/** What of the store the queue uses: a request shown, taken away, and the ones shown now. */
export interface PermissionShelf {
  addPermission(sessionId: string, toolCall: ToolCallUpdate, options: PermissionOption[]): string;
  removePermission(key: string): void;
  getState(): { permissions: readonly Pick<PendingPermission, 'key' | 'call'>[] };
}

const CANCELLED: RequestPermissionOutcome = { outcome: 'cancelled' };

/** The controller's slice (`controller.permissions`): the approval's keys answer the permission request queued under `key` (only an agent asks). */
export interface PermissionControls {
  answer(key: string, outcome: RequestPermissionOutcome): void;
}

export class PermissionAnswers implements PermissionControls {
  readonly #waiting = new Map<string, (o: RequestPermissionOutcome) => void>();

  constructor(private readonly store: PermissionShelf) {}

  /** Show the request and wait for the user's answer (or a cancel). */
  ask(sessionId: string, toolCall: ToolCallUpdate, options: PermissionOption[]): Promise<RequestPermissionOutcome> {
    return new Promise((resolve) => this.#waiting.set(this.store.addPermission(sessionId, toolCall, options), resolve));
  }

  /** Answer the request queued under `key`; one already answered is left alone. */
  answer(key: string, outcome: RequestPermissionOutcome): void {
    const resolve = this.#waiting.get(key);
    if (!resolve) return;
    this.#waiting.delete(key);
    this.store.removePermission(key);
    resolve(outcome);
  }

  /** The request about this call, withdrawn by the agent ($/cancel_request). */
  withdraw(callId: string): void {
    const p = this.store.getState().permissions.find((x) => x.call.id === callId);
    if (p) this.answer(p.key, CANCELLED);
  }

  /** Ctrl+C, the agent gone, the conversation replaced: every waiting request is answered `cancelled`. */
  cancelAll(): void {
    for (const p of this.store.getState().permissions) this.answer(p.key, CANCELLED);
  }
}
