// A unit's own mission tools, each bound to its mission id (binding.ts): the plan snapshot, a
// report (a `result` naming files that do not exist is filed as `progress`, and says so), a
// question that waits for its answer (filed as a blocker when none comes), and the verdict.
import { ToolError } from '../../../core/errors.ts';
import { awaitVerdict } from '../../missions/durable_approver.ts';
import { FINISHED, oneLine, parseReport, type FinishedStatus } from '../../missions/records.ts';
import { downgradeNote, missingArtifacts } from '../../missions/verify.ts';
import type { UnitBinding } from './binding.ts';

export async function missionPlan(b: UnitBinding, args: Record<string, unknown>): Promise<string> {
  const plan = await b.missions.setPlan(b.missionId, args);
  b.missions.heartbeat(b.missionId);
  b.events?.onPlan?.(plan);
  return JSON.stringify({ revision: plan.revision, entries: plan.entries, note: 'Stored. Send the whole plan again (with these ids) whenever an entry changes.' });
}

export async function missionReport(b: UnitBinding, args: Record<string, unknown>): Promise<string> {
  const r = parseReport(args);
  let note = '';
  if (r.kind === 'result') {
    const missing = missingArtifacts(b.cwd, [...(r.refs ?? []), ...(r.handover?.artifacts ?? [])]);
    if (missing.length) {
      r.kind = 'progress';
      r.missing = missing;
      r.detail = `${r.detail ? `${r.detail}\n\n` : ''}${downgradeNote(missing)}`;
      note = ` (downgraded from result: claimed artifacts not found: ${missing.join(', ')})`;
    }
  }
  const report = await b.missions.addReport(b.missionId, { ...r, by: 'unit' });
  b.missions.heartbeat(b.missionId);
  b.events?.onReport?.(report);
  return `recorded ${report.kind} report "${report.id}"${note}`;
}

export async function missionAsk(b: UnitBinding, args: Record<string, unknown>, signal: AbortSignal): Promise<string> {
  if (typeof args.summary !== 'string' || !args.summary.trim()) throw new ToolError('bad_args', 'mission_ask_attention requires a `summary`: the question, on one line.');
  const summary = oneLine(args.summary);
  const detail = typeof args.detail === 'string' && args.detail.trim() ? args.detail : undefined;
  const ask = b.asks.create({
    kind: 'question',
    missionId: b.missionId,
    ...(b.sessionId ? { sessionId: b.sessionId } : {}),
    agent: b.agent,
    envelope: b.envelope,
    title: summary,
    summary,
    ...(detail ? { detail } : {}),
    timeoutMs: b.askTimeoutMs,
  });
  b.missions.heartbeat(b.missionId);
  b.events?.onAsk?.(ask);
  const v = await awaitVerdict(b.asks, ask, signal);
  b.events?.onVerdict?.(ask, v);
  if (v.verdict === 'answer' && v.answer !== undefined) return v.answer;
  if (signal.aborted) throw new ToolError('cancelled', 'The run was stopped while the question waited for an answer.');
  const report = await b.missions.addReport(b.missionId, {
    kind: 'blocker',
    summary,
    detail: `${detail ? `${detail}\n\n` : ''}(the unit asked for a decision and got no answer: ${v.by === 'expired' ? `nobody answered by ${ask.expiresAt}` : v.by})`,
    by: 'runtime',
  });
  b.events?.onReport?.(report);
  return 'attention requested (recorded as blocker: nobody answered). Decide what you can without it, or finish the mission as stuck.';
}

export async function missionFinish(b: UnitBinding, args: Record<string, unknown>): Promise<string> {
  const status = args.status;
  if (typeof status !== 'string' || !(FINISHED as readonly string[]).includes(status)) {
    throw new ToolError('bad_args', `mission_finish requires a status (${FINISHED.join('|')}).`);
  }
  const reason = typeof args.reason === 'string' && args.reason.trim() ? oneLine(args.reason, 2000) : undefined;
  const { mission, changed } = await b.missions.finish(b.missionId, status as FinishedStatus, reason);
  if (changed) b.events?.onFinish?.(mission);
  return changed ? `mission finished as ${status}` : `mission already finished as ${status}; nothing changed`;
}
