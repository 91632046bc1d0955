// A supervising session's mission tools (binding.ts): start a unit and wait for its verdict
// (bounded), list the units it started with what they wait on, and answer their questions. Only
// this session's own units are reachable: another session's ask is "not yours".
import { ToolError } from '../../../core/errors.ts';
import { answerAsk } from '../../missions/answer.ts';
import { oneLine, type Mission, type Report } from '../../missions/records.ts';
import type { FireRequest, SupervisorBinding } from './binding.ts';

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

function reportView(r: Report, full: boolean): Record<string, unknown> {
  return { kind: r.kind, summary: r.summary, ...(full && r.detail ? { detail: r.detail } : {}), ...(full && r.refs ? { refs: r.refs } : {}), ...(full && r.handover ? { handover: r.handover } : {}) };
}

/** The units this session started, newest first. */
export function ownMissions(b: SupervisorBinding, limit = 20): Mission[] {
  return b.missions.list(200).filter((m) => m.parentSessionId === b.sessionId).slice(0, limit);
}

/** `by`: the session's model, or the person who typed /mission (docs/missions.md, "The ceiling"). */
export async function missionStart(b: SupervisorBinding, args: Record<string, unknown>, signal: AbortSignal, by: FireRequest['by']): Promise<string> {
  if (typeof args.intent !== 'string' || !args.intent.trim()) throw new ToolError('bad_args', 'mission_start requires an `intent`: what the unit is to do, in words it can finish alone.');
  const m = await b.fire({
    intent: oneLine(args.intent, 2000),
    ...(typeof args.agent === 'string' && args.agent ? { agent: args.agent } : {}),
    ...(typeof args.envelope === 'string' && args.envelope ? { envelope: args.envelope } : {}),
    by,
  });
  if (args.wait === false) return JSON.stringify({ missionId: m.id, agent: m.agent, envelope: m.envelope, ...(m.ceiling ? { ceiling: m.ceiling } : {}), intent: m.intent, status: 'running', note: 'Its plan and reports arrive in this session; mission_list shows where it is.' });
  const deadline = Date.now() + b.waitMs;
  let cur = m;
  while (cur.status === 'open' && Date.now() < deadline && !signal.aborted) {
    await sleep(Math.min(1000, deadline - Date.now()), signal);
    cur = b.missions.get(m.id) ?? cur;
  }
  const reports = b.missions.reports(m.id).slice(-20).map((r) => reportView(r, true));
  const running = cur.status === 'open';
  return JSON.stringify({
    missionId: m.id,
    agent: m.agent,
    envelope: m.envelope,
    ...(m.ceiling ? { ceiling: m.ceiling } : {}),
    intent: m.intent,
    status: running ? 'running' : cur.status,
    ...(cur.reason ? { reason: cur.reason } : {}),
    reports,
    ...(running ? { note: `still running after ${Math.round(b.waitMs / 60_000)} min; it keeps its record: read it later with mission_list` } : {}),
  });
}

export function missionList(b: SupervisorBinding): string {
  const questions = b.asks.pending().filter((a) => a.kind === 'question');
  const missions = ownMissions(b).map((m) => {
    const waiting = questions.filter((a) => a.missionId === m.id).map((a) => ({ askId: a.id, question: a.summary, ...(a.detail ? { detail: a.detail } : {}), askedAt: a.createdAt }));
    const beat = b.missions.heartbeatAt(m.id);
    return {
      missionId: m.id,
      agent: m.agent,
      intent: m.intent,
      status: m.status,
      ...(m.reason ? { reason: m.reason } : {}),
      ...(beat ? { lastHeartbeat: new Date(beat).toISOString() } : {}),
      reports: b.missions.reports(m.id).slice(-5).map((r) => reportView(r, false)),
      ...(waiting.length ? { waitingOnYou: waiting } : {}),
    };
  });
  return JSON.stringify({ missions });
}

export function missionAnswer(b: SupervisorBinding, args: Record<string, unknown>): string {
  const id = typeof args.askId === 'string' ? args.askId.trim() : '';
  if (!id || typeof args.answer !== 'string' || !args.answer.trim()) throw new ToolError('bad_args', 'mission_answer requires `askId` (from mission_list) and `answer`.');
  const ask = (() => {
    try {
      return b.asks.get(id);
    } catch {
      return undefined;
    }
  })();
  const mine = ask?.kind === 'question' && ask.missionId !== undefined && b.missions.get(ask.missionId)?.parentSessionId === b.sessionId;
  if (!ask || !mine) throw new ToolError('not_found', `"${id}" is not a question your units are waiting on (already answered, expired, or not yours); mission_list shows the ones that are.`);
  answerAsk(b.asks, id, { verdict: 'answer', answer: args.answer, by: 'agent', via: `session ${b.sessionId}` });
  return `answered ${id}: the unit of mission ${ask.missionId} has your reply and continues`;
}
