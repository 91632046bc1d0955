// What the units a session fired do, brought back into that session as they do it: each plan
// revision, each report and the verdict as a row (an agent message whose `_meta["cxl/mission"]`
// the cxl UI draws as a mission row; any other client shows the text), and each approval a unit
// waits on as a permission request of this session. The answer is recorded like any other
// (missions/answer.ts): whoever answers first, here or with `cxl approvals respond`, decides, and
// a request the other one settled is withdrawn. The records are the bus, read every half second
// while a unit of this session is open.
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { META_DECISION, META_MISSION, OPTION_ALLOW_ONCE, OPTION_REJECT, type MissionEventMeta, type MissionMeta } from '../../core/protocol_names.ts';
import { isToolError } from '../../core/errors.ts';
import { answerAsk } from '../missions/answer.ts';
import type { Ask } from '../missions/ask_store.ts';
import type { Mission, Plan, Report } from '../missions/records.ts';
import type { MissionStores } from '../units/lifecycle.ts';
import { textContent } from './tool_report.ts';

/** How this relay reaches its session. */
export interface RelayedSession {
  sessionId: string;
  cwd: string;
  client: acp.AgentContext;
  /** the update is sent and kept for the session's replay */
  send(update: acp.SessionUpdate): Promise<void>;
  log(msg: string): void;
}

interface Watched {
  rev: number;
  plans: number;
  reports: number;
  intent: string;
  status: Mission['status'];
}

const POLL_MS = 500;
const MARK: Record<string, string> = { completed: '[x]', in_progress: '[~]', pending: '[ ]' };

function planText(m: string, p: Plan): string {
  return `Mission ${m} plan (revision ${p.revision}):\n${p.entries.map((e) => `  ${MARK[e.status]} ${e.content}`).join('\n')}\n`;
}

export class MissionRelay {
  readonly #watched = new Map<string, Watched>();
  /** asks forwarded as permission requests, withdrawn when settled elsewhere */
  readonly #asked = new Map<string, AbortController>();
  readonly #questions = new Set<string>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #busy = false;

  constructor(
    private readonly s: RelayedSession,
    private readonly stores: MissionStores,
  ) {}

  /** Starts relaying a unit; `fresh`: everything it files from now on (else from where its record stands). */
  watch(m: Mission, fresh: boolean): void {
    if (this.#watched.has(m.id)) return;
    this.#watched.set(m.id, { rev: fresh ? 0 : m.rev, plans: fresh ? 0 : m.planRevision, reports: fresh ? 0 : m.reports, intent: m.intent, status: 'open' });
    if (fresh) void this.#row(m.id, m.intent, { event: 'fired', agent: m.agent, envelope: m.envelope }, `Mission ${m.id} fired (agent ${m.agent}, envelope ${m.envelope}): ${m.intent}\n`);
    this.#timer ??= setInterval(() => void this.#tick(), POLL_MS);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** The open units this session fired earlier (a session loaded again): relayed from here on. */
  resume(): void {
    for (const m of this.stores.missions.open()) if (m.parentSessionId === this.s.sessionId) this.watch(m, false);
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    for (const c of this.#asked.values()) c.abort();
    this.#asked.clear();
    this.#watched.clear();
  }

  async #row(missionId: string, intent: string, meta: MissionEventMeta, text: string): Promise<void> {
    const _meta = { [META_MISSION]: { missionId, intent, ...meta } as MissionMeta };
    await this.s.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text }, _meta }).catch((e) => this.s.log(`mission ${missionId}: ${String(e)}`));
  }

  async #tick(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      const pending = this.stores.asks.pending();
      for (const [id, w] of [...this.#watched]) await this.#catchUp(id, w, pending);
      // a forwarded ask settled elsewhere: its request is withdrawn
      const waiting = new Set(pending.map((a) => a.id));
      for (const [askId, c] of this.#asked) if (!waiting.has(askId)) c.abort();
      if (!this.#watched.size && !this.#asked.size) this.close();
    } catch (err) {
      this.s.log(`mission relay: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.#busy = false;
    }
  }

  async #catchUp(id: string, w: Watched, pending: Ask[]): Promise<void> {
    const m = this.stores.missions.get(id);
    if (!m) return void this.#watched.delete(id);
    if (m.rev !== w.rev) {
      w.rev = m.rev;
      const plans = this.stores.missions.plans(id);
      for (const p of plans.slice(w.plans)) await this.#row(id, w.intent, { event: 'plan', revision: p.revision, entries: p.entries.map((e) => ({ content: e.content, status: e.status, priority: e.priority })) }, planText(id, p));
      w.plans = plans.length;
      const reports = this.stores.missions.reports(id);
      for (const r of reports.slice(w.reports)) await this.#report(id, w.intent, r);
      w.reports = reports.length;
    }
    for (const a of pending) if (a.missionId === id) this.#ask(m, a);
    if (m.status !== 'open') {
      this.#watched.delete(id);
      await this.#row(id, w.intent, { event: 'finished', status: m.status, ...(m.reason ? { reason: m.reason } : {}) }, `Mission ${id} finished ${m.status}${m.reason ? `: ${m.reason}` : ''}\n`);
    }
  }

  #report(id: string, intent: string, r: Report): Promise<void> {
    return this.#row(id, intent, { event: 'report', kind: r.kind, summary: r.summary, ...(r.refs ? { refs: r.refs } : {}) }, `Mission ${id} [${r.kind}] ${r.summary}\n`);
  }

  /** A permission the unit waits on becomes this session's request; a question, a row saying how to answer it. */
  #ask(m: Mission, a: Ask): void {
    if (a.kind === 'question') {
      if (this.#questions.has(a.id)) return;
      this.#questions.add(a.id);
      void this.#row(m.id, m.intent, { event: 'question', askId: a.id, summary: a.summary }, `Mission ${m.id} asks: ${a.summary}\nAnswer it: cxl approvals respond ${a.id} --answer "…" (or ask the model to, with mission_answer).\n`);
      return;
    }
    if (this.#asked.has(a.id)) return;
    const c = new AbortController();
    this.#asked.set(a.id, c);
    void this.#request(m, a, c.signal)
      .then(() => this.#settled(a))
      .finally(() => this.#asked.delete(a.id));
  }

  /** The asked call shows how its ask was settled, here or elsewhere: approved (the unit runs it) or not. */
  async #settled(a: Ask): Promise<void> {
    const v = this.stores.asks.verdict(a.id);
    if (!v) return;
    const yes = v.verdict === 'approve';
    const who = v.by === 'person' ? (v.via === `session ${this.s.sessionId}` ? 'here' : `by a person (${v.via ?? 'elsewhere'})`) : v.by;
    await this.s
      .send({ sessionUpdate: 'tool_call_update', toolCallId: `mission-${a.id}`, status: yes ? 'completed' : 'failed', content: [textContent(`${yes ? 'approved' : 'denied'} ${who}; the unit ${yes ? 'runs it' : 'goes on without it'}`)] })
      .catch(() => {});
  }

  async #request(m: Mission, a: Ask, signal: AbortSignal): Promise<void> {
    const content: acp.ToolCallContent[] = [];
    const d = a.diff;
    if (d && d.diff !== null && d.newText !== undefined) content.push({ type: 'diff', path: path.resolve(m.cwd, d.path), oldText: d.isNew ? null : (d.oldText ?? ''), newText: d.newText });
    if (a.steps?.length) content.push(textContent(`Will run:\n${a.steps.map((x) => `  ${x}`).join('\n')}`));
    if (a.request?.length) content.push(textContent(a.request.join('\n')));
    content.push(textContent(`Asked by mission ${m.id} (${m.intent}); also answerable with cxl approvals respond ${a.id}.`));
    let res: acp.RequestPermissionResponse;
    try {
      res = await this.s.client.request(
        acp.methods.client.session.requestPermission,
        {
          sessionId: this.s.sessionId,
          toolCall: {
            toolCallId: `mission-${a.id}`,
            title: `${m.id}: ${a.title}`,
            kind: a.tool === 'local_shell' || a.toolset === 'local_shell' ? 'execute' : a.diff ? 'edit' : 'other',
            status: 'pending',
            content,
            locations: (a.locations ?? []).map((p) => ({ path: path.resolve(m.cwd, p) })),
            rawInput: a.args ?? {},
            _meta: { [META_DECISION]: { rule: a.rule ?? 'default_action', reason: a.sentence ?? 'the unit’s envelope asks', envelope: a.envelope ?? m.envelope } },
          },
          options: [
            { optionId: OPTION_ALLOW_ONCE, name: 'Allow once', kind: 'allow_once' },
            { optionId: OPTION_REJECT, name: 'Reject', kind: 'reject_once' },
          ],
        },
        { cancellationSignal: signal },
      );
    } catch {
      return; // withdrawn (answered elsewhere), or the client went away: the ask waits in cxl approvals
    }
    if (signal.aborted || res.outcome.outcome === 'cancelled') return;
    const approve = res.outcome.optionId === OPTION_ALLOW_ONCE;
    try {
      answerAsk(this.stores.asks, a.id, { verdict: approve ? 'approve' : 'deny', by: 'person', via: `session ${this.s.sessionId}` });
    } catch (err) {
      const why = isToolError(err) ? err.message : String(err);
      await this.s.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `(${why})\n` } }).catch(() => {});
    }
  }
}
