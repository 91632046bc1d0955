// An unattended run (`cxl run`, `cxl mission fire`, a unit a session fired): a mission recorded
// (or taken over from the session that recorded it), its unit run (units/unit.ts), and whatever
// stopped it from outside (a timeout, a signal) written into the record as `abandoned` with its
// asks closed. What it returns is the summary `--output-format json` prints; the exit code is
// the caller's to adjust for a stop from outside.
import { isToolError } from '../core/errors.ts';
import type { Mission, Report } from './missions/records.ts';
import type { AgentSetup } from './setup.ts';
import { exitCodeOf, usageView, type RunEvent, type RunSummary } from './units/events.ts';
import { missionStores, startMission, stopMission, UNIT_ASK_TIMEOUT_MS } from './units/lifecycle.ts';
import { runUnit } from './units/unit.ts';

export interface MissionRunOptions {
  /** what the model is told (the intent, with piped input between markers) */
  task: string;
  /** the task on one line, for the record */
  intent: string;
  agent: string;
  envelope: string;
  /** run the unit of this already-recorded mission (fired by a session) instead of recording one */
  missionId?: string;
  /** the stored session to continue */
  resume?: string;
  signal: AbortSignal;
  /** why the signal fired, for the record (`--timeout 10m`, `SIGTERM`) */
  stoppedBecause?: () => string | undefined;
  emit(e: RunEvent): void;
  /** the record exists: its id, for whoever prints it early */
  onStarted?(m: Mission): void;
}

/** The newest result report (summary, then detail), else the unit's last message. */
export function resultText(reports: readonly Report[], answer: string): string {
  const r = [...reports].reverse().find((x) => x.kind === 'result');
  if (!r) return answer;
  return r.detail ? `${r.summary}\n\n${r.detail}` : r.summary;
}

export async function runMission(setup: AgentSetup, o: MissionRunOptions): Promise<RunSummary> {
  const t0 = Date.now();
  const stores = missionStores(setup.dataDir);
  const mission = o.missionId
    ? await stores.missions.takeOver(o.missionId)
    : await startMission(stores, { intent: o.intent, agent: o.agent, envelope: o.envelope, cwd: setup.cwd }, setup.missions.fleetMax);
  o.onStarted?.(mission);
  let out;
  try {
    out = await runUnit({ setup, mission, task: o.task, ...stores, signal: o.signal, emit: o.emit, askTimeoutMs: UNIT_ASK_TIMEOUT_MS, ...(o.resume ? { resume: o.resume } : {}) });
  } catch (err) {
    // a unit that could not even start (its session store, its tools): derailed, saying why
    const why = isToolError(err) || err instanceof Error ? err.message : String(err);
    await stores.missions.addReport(mission.id, { kind: 'blocker', summary: `the unit could not start: ${why.slice(0, 300)}`, detail: why, by: 'runtime' }).catch(() => {});
    await stores.missions.finish(mission.id, 'derailed', why.slice(0, 400)).catch(() => {});
    throw err;
  }
  let final = out.mission;
  if (final.status === 'open') {
    const why = o.stoppedBecause?.() ?? 'the run ended';
    final = (await stopMission(stores, mission.id, `stopped: ${why}`).catch(() => ({ mission: stores.missions.require(mission.id) }))).mission;
  }
  return {
    status: final.status,
    is_error: final.status !== 'landed',
    exit_code: exitCodeOf(final.status, out.refused),
    result: resultText(out.reports, out.answer),
    ...(final.reason ? { reason: final.reason } : {}),
    mission_id: mission.id,
    session_id: out.sessionId,
    agent: mission.agent,
    envelope: mission.envelope,
    reports: stores.missions.reports(mission.id),
    refused: out.refused,
    usage: usageView(out.usage),
    duration_ms: Date.now() - t0,
  };
}
