// The way back (/rewind, /undo, Esc Esc): the agent's checkpoints (cxl's own methods), the
// picker, the preview with its diff, and going back. An agent that keeps no checkpoints answers
// "method not found", which is said once per ask; nothing here is sent before the person chose.
import { METHOD_CHECKPOINTS, METHOD_REWIND, METHOD_REWIND_PREVIEW, type CheckpointsMeta, type RestoreMeta, type RewindMeta } from '../../core/protocol_names.ts';
import { errorText } from '../connection/request_errors.ts';
import type { SessionLink } from '../session/link.ts';
import type { RewindShelf } from './state.ts';

/** The controller's slice (`controller.rewind`): what the screen asks of the client for the way back. */
export interface RewindControls {
  /** /rewind, Esc Esc: the prompts to go back to (the rewind picker). */
  rewind(): void | Promise<void>;
  /** /undo: what going back to before the last prompt would do. */
  undo(): void | Promise<void>;
  /** The rewind picker's choice: what going back to before prompt `n` would do. */
  preview(n: number, restore: RestoreMeta): void | Promise<void>;
  /** The person said yes to the preview; resolves with the prompt gone back to (for the composer). */
  apply(overwrite: boolean): Promise<string | undefined>;
  /** The picker closed. */
  dismiss(): void;
}

export class RewindRequests implements RewindControls {
  constructor(
    private readonly link: SessionLink,
    private readonly store: RewindShelf,
  ) {}

  /** The agent's checkpoints; undefined, with a notice, when it has none. */
  async #checkpoints(): Promise<CheckpointsMeta['prompts'] | undefined> {
    const { conn, sessionId } = this.link;
    if (!conn || !sessionId) {
      this.store.notice('warn', 'There is no session yet, so there is nothing to go back to.');
      return undefined;
    }
    try {
      return (await conn.agent.request<CheckpointsMeta>(METHOD_CHECKPOINTS, { sessionId })).prompts;
    } catch (err) {
      const missing = (err as { code?: number }).code === -32601;
      this.store.notice('warn', missing ? `${this.link.agentName} keeps no checkpoints, so there is nothing to go back to (cxl's own agent does: \`cxl\` without --agent).` : `Could not read the checkpoints: ${errorText(err)}.`);
      return undefined;
    }
  }

  /** /rewind (and Esc Esc on an empty prompt): the prompts to go back to. */
  async rewind(): Promise<void> {
    if (this.link.busy('go back to an earlier prompt')) return;
    const prompts = await this.#checkpoints();
    if (!prompts) return;
    if (prompts.length === 0) return this.store.notice('info', 'No prompt to go back to yet.');
    this.store.rewind.offer({ step: 'pick', prompts });
  }

  /** /undo: what going back to before the last prompt (its files and its conversation) would do. */
  async undo(): Promise<void> {
    if (this.link.busy('undo the last prompt')) return;
    const prompts = await this.#checkpoints();
    if (!prompts) return;
    const last = prompts.at(-1);
    if (!last) return this.store.notice('info', 'Nothing to undo: no prompt yet.');
    await this.preview(last.n, 'both', prompts);
  }

  /** The picker's choice: the diff and what is kept, before anything is done. */
  async preview(n: number, restore: RestoreMeta, prompts = this.store.getState().rewind?.prompts ?? []): Promise<void> {
    const { conn, sessionId } = this.link;
    if (!conn || !sessionId) return;
    try {
      const plan = await conn.agent.request<RewindMeta>(METHOD_REWIND_PREVIEW, { sessionId, n, restore });
      this.store.rewind.offer({ step: 'preview', prompts, plan });
    } catch (err) {
      this.store.rewind.offer(undefined);
      this.store.notice('error', `Could not go back to before prompt ${n}: ${errorText(err)}.`);
    }
  }

  /**
   * The person said yes to the preview: the agent goes back (files changed by someone else only
   * when `overwrite`). A conversation gone back is shown again from the agent's replay. Returns
   * the prompt gone back to, for the composer.
   */
  async apply(overwrite: boolean): Promise<string | undefined> {
    const { conn, sessionId } = this.link;
    const view = this.store.getState().rewind;
    if (!conn || !sessionId || view?.step !== 'preview' || view.busy) return undefined;
    const { plan } = view;
    this.store.rewind.offer({ ...view, busy: true });
    let done: RewindMeta;
    try {
      done = await conn.agent.request<RewindMeta>(METHOD_REWIND, { sessionId, n: plan.n, restore: plan.restore, overwrite: overwrite ? plan.files.filter((f) => f.changedSince).map((f) => f.path) : [] });
    } catch (err) {
      this.store.rewind.offer(undefined);
      this.store.notice('error', `Could not go back to before prompt ${plan.n}: ${errorText(err)}.`);
      return undefined;
    }
    this.store.rewind.offer(undefined);
    const text = view.prompts.find((p) => p.n === plan.n)?.text;
    const rewound = done.conversation !== undefined && !done.conversation.cannot;
    if (rewound) await this.link.loadSession(sessionId);
    // a file changed since is kept unless `o` overwrote it: the way to do that is this screen's key
    const changed = new Set(plan.files.filter((f) => f.changedSince).map((f) => f.path));
    this.store.notice('info', rewindSummary(done, text), (done.skipped ?? []).map((k) => `kept ${k.path}: ${k.why}${changed.has(k.path) ? '; `o` in the preview goes back overwriting it' : ''}`));
    return rewound ? text : undefined;
  }

  /** The picker closed. */
  dismiss(): void {
    this.store.rewind.offer(undefined);
  }
}

/** What a rewind did, in one sentence. */
function rewindSummary(done: RewindMeta, text: string | undefined): string {
  const parts: string[] = [];
  if (done.restore !== 'conversation') parts.push(`${done.restored?.length ?? 0} file${done.restored?.length === 1 ? '' : 's'} restored`);
  if (done.conversation) parts.push(done.conversation.cannot ? `the conversation stays (${done.conversation.cannot})` : `the conversation is back to before it (${done.conversation.prompts} prompt${done.conversation.prompts === 1 ? '' : 's'} gone)`);
  if (done.skipped?.length) parts.push(`${done.skipped.length} kept as ${done.skipped.length === 1 ? 'it is' : 'they are'}`);
  const what = text ? `“${text.length > 60 ? `${text.slice(0, 60)}…` : text}”` : `prompt ${done.n}`;
  return `Went back to before ${what}: ${parts.join('; ')}.${done.conversation && !done.conversation.cannot ? ' The prompt is back in the composer to edit and send again.' : ''}`;
}
