// The prompt turn: what the composer sends becomes session/prompt now or waits behind the running
// turn; Ctrl+C cancels it, and pressed again stops waiting for a turn the agent never ends, whose
// later output then goes to the agent log, never into the next answer.
import * as acp from '@agentclientprotocol/sdk';
import { META_SHELL_CONTEXT } from '../core/protocol_names.ts';
import type { ClientLink } from './client_link.ts';
import { promptBlocks } from './composer/mentions.ts';
import { errorDetail, errorText, isAuthRequired } from './connection/request_errors.ts';
import type { LoginRequests } from './login/requests.ts';
import { shellContextText, type UserShell } from './shell/user_shell.ts';
import type { ClientStore } from './state.ts';

const CANCEL_NOTICE_MS = 10_000;

/** The updates that are a turn's own output (what an abandoned turn may still send). */
const TURN_CONTENT = new Set<string>(['agent_message_chunk', 'agent_thought_chunk', 'tool_call', 'tool_call_update', 'plan']);

/** Rejects when the user stops waiting for the turn (the signal fires). */
function stopWaiting(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
}

export interface TurnParts {
  /** the workspace's root, which @-mentions are read from */
  root: string;
  login: LoginRequests;
  /** the answers the agent waits for (permissions, forms): every one is cancelled with the turn */
  waiting: { cancelAll(): void }[];
  userShell: UserShell;
  /** How long a cancelled turn may stay unended before the screen says so and offers to stop waiting. */
  cancelNoticeMs?: number;
}

export class PromptTurn {
  /** The running prompt's request: aborted, the client stops waiting for it (and asks the agent to drop it). */
  #turn: AbortController | undefined;
  /**
   * A turn the user stopped waiting for, until the agent answers its prompt (or a later one):
   * what the agent sends while no other turn runs (text, thoughts, tool calls) is that turn's,
   * and goes to the agent log, never into the next answer.
   */
  #abandoned: { sessionId: string; told: boolean } | undefined;
  #cancelTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly link: ClientLink,
    private readonly store: ClientStore,
    private readonly parts: TurnParts,
  ) {}

  /** An update of the session open now that is output of the turn the user stopped waiting for: kept in the agent log (true), not shown. */
  takeLate(n: acp.SessionNotification): boolean {
    if (this.#abandoned?.sessionId !== n.sessionId || this.store.getState().running || !TURN_CONTENT.has(n.update.sessionUpdate)) return false;
    this.#late(n.update);
    return true;
  }

  /** Output of the turn the user stopped waiting for: kept in the agent log, said once. */
  #late(u: acp.SessionUpdate): void {
    const a = this.#abandoned!;
    const content = (u as { content?: { type?: string; text?: string } }).content;
    this.link.proc?.note(`${u.sessionUpdate} for the turn you stopped waiting for (not shown): ${content?.type === 'text' ? content.text : JSON.stringify(u).slice(0, 2000)}`);
    if (a.told) return;
    a.told = true;
    this.store.notice('info', `${this.link.agentName} is still sending output for the turn you stopped waiting for; it is not shown as an answer, and is in the agent log (Ctrl+L).`);
  }

  /** The composer sent text: a prompt now, or queued behind the running turn. */
  send(text: string): void {
    const st = this.store.getState();
    if (st.agent.status === 'exited') {
      this.store.notice('error', 'The agent is not running, so nothing was sent. Quit with Ctrl+D and start cxl again.');
      return;
    }
    if (this.link.sessionId === undefined && st.sessionError !== undefined) {
      const how = this.parts.login.offered ? 'Log in first (/login shows the methods), then send it again' : 'Quit with Ctrl+D, fix what the message above says and start cxl again';
      this.store.notice('error', `Not sent: “${text.split('\n')[0]}”. There is no session (${st.sessionError.replace(/\.$/, '')}). ${how}; ↑ recalls the prompt.`);
      return;
    }
    if (st.running || this.link.sessionId === undefined) {
      this.store.queuePrompt(text);
      return;
    }
    void this.#prompt(text);
  }

  /** The prompt queued behind a turn (or typed before the session opened) is sent, when no turn runs. */
  drain(): void {
    const next = this.store.getState().running ? undefined : this.store.takeQueued();
    if (next !== undefined) void this.#prompt(next);
  }

  async #prompt(text: string): Promise<void> {
    const conn = this.link.conn;
    const sessionId = this.link.sessionId;
    if (!conn || !sessionId) return;
    this.store.beginTurn(text);
    this.link.used = true;
    const turn = new AbortController();
    this.#turn = turn;
    let answered: Promise<acp.PromptResponse> | undefined;
    try {
      const shellRuns = this.store.takeShellContext();
      // what the person ran in their shell since the last prompt comes first, marked for cxl's agent
      const context: acp.ContentBlock[] = shellRuns.length ? [{ type: 'text', text: shellContextText(shellRuns), _meta: { [META_SHELL_CONTEXT]: true } }] : [];
      const prompt = [...context, ...promptBlocks(text, { root: this.parts.root, embed: this.store.getState().capabilities.embeddedContext })];
      // aborted only when the user stops waiting for a cancel: the SDK asks the agent to drop the
      // request ($/cancel_request) and this turn ends here; the answer is still awaited, so what
      // the agent sends until then is known to be the abandoned turn's
      answered = conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt }, { cancellationSignal: turn.signal });
      const res = await Promise.race([answered, stopWaiting(turn.signal)]);
      if (turn.signal.aborted) throw turn.signal.reason;
      // a later prompt answered: any abandoned one before it is over
      if (this.#abandoned?.sessionId === sessionId) this.#abandoned = undefined;
      this.store.endTurn(res.stopReason);
    } catch (err) {
      if (turn.signal.aborted) {
        this.store.endTurn('abandoned');
        this.#abandon(sessionId, answered);
      } else await this.#promptFailed(err);
    } finally {
      this.#turn = undefined;
      clearTimeout(this.#cancelTimer);
    }
    this.drain();
  }

  /** Until the agent answers the abandoned prompt (or fails to), its output is the old turn's. */
  #abandon(sessionId: string, answered: Promise<acp.PromptResponse> | undefined): void {
    if (!answered) return;
    const mark = { sessionId, told: false };
    this.#abandoned = mark;
    const over = () => {
      if (this.#abandoned === mark) this.#abandoned = undefined;
    };
    answered.then(over, over);
  }

  async #promptFailed(err: unknown): Promise<void> {
    const gone = await this.link.agentGone();
    this.store.endTurn('error');
    if (gone) return;
    const login = isAuthRequired(err) && this.parts.login.offered;
    const how = login
      ? ' Pick a login method below, then send the prompt again.'
      : isAuthRequired(err)
        ? ` ${this.link.agentName} offers no login method here: log in with its own command or set its API key, then start cxl again.`
        : '';
    this.store.notice('error', `The turn failed: ${errorText(err)}.${how}`, errorDetail(err));
    if (login) this.parts.login.offer(errorText(err), 'continue');
  }

  /**
   * Ctrl+C: every pending approval answered `cancelled`, then session/cancel; the screen says so
   * when the agent leaves the turn unended for a while. Pressed again while the agent has still
   * not ended it: the client stops waiting for that turn (the session stays; the agent is asked
   * to drop the request) so the screen is usable again.
   */
  cancel(): void {
    this.parts.userShell.kill();
    const st = this.store.getState();
    if (st.cancelling && this.#turn) return this.#turn.abort();
    for (const w of this.parts.waiting) w.cancelAll();
    this.store.cancelTurn();
    const conn = this.link.conn;
    if (conn && this.link.sessionId && !this.link.exited) void conn.agent.notify(acp.methods.agent.session.cancel, { sessionId: this.link.sessionId }).catch(() => {});
    if (!st.running) return;
    const ms = this.parts.cancelNoticeMs ?? CANCEL_NOTICE_MS;
    clearTimeout(this.#cancelTimer);
    this.#cancelTimer = setTimeout(() => this.store.cancelOverdue(ms >= 1000 ? Math.round(ms / 1000) : Math.round(ms / 100) / 10), ms);
  }

  /** The client closes: no notice of an overdue cancel after that. */
  dispose(): void {
    clearTimeout(this.#cancelTimer);
  }
}
