// One unit's run (docs/missions.md, "A unit's run"): its session stored (new, or the one it
// continues), its tools built for its mission's envelope with asks stored and waited on, the
// preamble and its intent as the first turn, at most one nudge when a turn ends with the mission
// still open, and a verdict whatever happens: a turn that fails is `derailed`, a unit that ends
// without one is `stuck` with its last answer in the reason. Every step is an event.
import type { ToolError } from '../../core/errors.ts';
import type { ChatMessage, ModelToolCall, Provider } from '../providers/types.ts';
import { describeCompaction, type ContextHooks, type SessionContext } from '../context/session_context.ts';
import { checkCall, modelCall, runChecked, sessionContext, type CallOutcome, type ModelCallResult, type RunUsage } from '../loop/model_call.ts';
import { howToConfigure } from '../providers/select.ts';
import type { SessionLog, SessionStore, StoredSession } from '../sessions/store.ts';
import type { SessionTools } from '../tools/contract.ts';
import type { UnitBinding } from '../tools/mission/binding.ts';
import { modelName } from '../tools/tool_names.ts';
import type { Approver } from '../../core/gate/gate.ts';
import type { AskStore } from '../missions/ask_store.ts';
import { durableApprover } from '../missions/durable_approver.ts';
import type { MissionStore } from '../missions/mission_store.ts';
import type { Mission, Report } from '../missions/records.ts';
import { askView, type RefusedCall, type RunEvent } from './events.ts';
import { NUDGE_OPEN, NUDGE_SILENT, unitPrompt } from './preamble.ts';

/** What a unit's tools are built with. */
export interface UnitToolsOptions {
  mode: string;
  /** the envelope of the session whose model fired the unit: every call is decided by both */
  ceiling?: string;
  sessionId: string;
  mission: UnitBinding;
  /** how long an ask waits when the envelope's rule names no timeout */
  askTimeoutMs: number;
  notice(text: string): void;
}

/** What a unit needs of the agent's setup (agent/setup.ts builds it). */
export interface UnitSetup {
  provider: Provider | null;
  providerProblem?: string;
  store: SessionStore;
  newContext(hooks: ContextHooks): SessionContext;
  maxTurns: number;
  systemPrompt(cwd: string): string;
  buildUnitTools(o: UnitToolsOptions): Promise<SessionTools>;
}

export interface UnitRun {
  setup: UnitSetup;
  mission: Mission;
  /** what the model is told to do (the intent, with piped input between markers) */
  task: string;
  missions: MissionStore;
  asks: AskStore;
  signal: AbortSignal;
  emit(e: RunEvent): void;
  askTimeoutMs: number;
  /** the stored session this run continues (`--resume`, `--continue`) */
  resume?: string;
}

export interface UnitOutcome {
  mission: Mission;
  /** the unit's last message */
  answer: string;
  reports: Report[];
  refused: RefusedCall[];
  usage: RunUsage;
  sessionId: string;
}

/** How often the unit looks whether its record was finished from outside (`cxl mission stop`), and touches its heartbeat every fifth time. */
const WATCH_MS = 2_000;
const REFUSALS = new Set(['envelope_denied', 'rejected', 'approval_required']);
const EMPTY_USAGE: RunUsage = { requests: 0, promptTokens: 0, completionTokens: 0, compactions: 0 };

function excerpt(text: string, max = 240): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** Opens the session the unit writes: a new one, or the stored one it continues. */
async function openLog(o: UnitRun): Promise<SessionLog> {
  if (o.resume) {
    const log = await o.setup.store.open(o.resume);
    if (!log) throw new Error(`no stored session "${o.resume}"`);
    log.session.mode = o.mission.envelope;
    return log;
  }
  const now = new Date().toISOString();
  const stored: StoredSession = { version: 1, sessionId: o.mission.id.replace(/^m-/, 'run-'), cwd: o.mission.cwd, title: o.mission.intent.slice(0, 80), createdAt: now, updatedAt: now, mode: o.mission.envelope, history: [], replay: [], allows: [] };
  return o.setup.store.create(stored);
}

/**
 * The heartbeat, and the stop from outside: a record finished by someone else (`cxl mission
 * stop`, a sweep) ends the run at its next step.
 */
function watch(o: UnitRun, stop: AbortController, ownVerdict: () => boolean): () => void {
  let tick = 0;
  const t = setInterval(() => {
    if (++tick % 5 === 0) o.missions.heartbeat(o.mission.id);
    const m = o.missions.get(o.mission.id);
    if (m && m.status !== 'open' && !ownVerdict() && !stop.signal.aborted) {
      o.emit({ type: 'notice', text: `the mission was finished from outside (${m.status}${m.reason ? `: ${m.reason}` : ''}); stopping` });
      stop.abort();
    }
  }, WATCH_MS);
  (t as { unref?: () => void }).unref?.();
  return () => clearInterval(t);
}

/** The drive of one unit; see the file's opening comment. The caller made (or took over) the record. */
export async function runUnit(run: UnitRun): Promise<UnitOutcome> {
  // one controller for both ways a unit stops (the caller's signal, a stop from outside)
  const stop = new AbortController();
  if (run.signal.aborted) stop.abort();
  else run.signal.addEventListener('abort', () => stop.abort(), { once: true });
  const o: UnitRun = { ...run, signal: stop.signal };
  const { setup, missions, asks } = o;
  const id = o.mission.id;
  let finishedHere = false;
  const log = await openLog(o);
  const session = log.session;
  await missions.bindSession(id, session.sessionId);
  let reached = false;
  const binding: UnitBinding = {
    role: 'unit',
    missionId: id,
    cwd: o.mission.cwd,
    agent: o.mission.agent,
    envelope: o.mission.envelope,
    sessionId: session.sessionId,
    missions,
    asks,
    askTimeoutMs: o.askTimeoutMs,
    events: {
      onPlan: (plan) => ((reached = true), o.emit({ type: 'plan', plan })),
      onReport: (report) => ((reached = true), o.emit({ type: 'report', report })),
      onAsk: (ask) => ((reached = true), o.emit({ type: 'ask', ask: askView(ask) })),
      onVerdict: (ask, v) => o.emit({ type: 'verdict', ask_id: ask.id, verdict: v.verdict, by: v.by, ...(v.answer !== undefined ? { answer: v.answer } : {}) }),
      onFinish: () => ((reached = true), (finishedHere = true)),
    },
  };
  const notice = (text: string) => o.emit({ type: 'notice', text });
  const unwatch = watch(o, stop, () => finishedHere);
  let tools: SessionTools | undefined;
  let driver: Turns | undefined;
  try {
    tools = await setup.buildUnitTools({ mode: o.mission.envelope, ...(o.mission.ceiling ? { ceiling: o.mission.ceiling } : {}), sessionId: session.sessionId, mission: binding, askTimeoutMs: o.askTimeoutMs, notice });
    const approver = durableApprover({ asks, missionId: id, sessionId: session.sessionId, agent: o.mission.agent, envelope: o.mission.envelope, onAsk: binding.events!.onAsk, onVerdict: binding.events!.onVerdict });
    o.emit({ type: 'init', mission_id: id, session_id: session.sessionId, agent: o.mission.agent, envelope: o.mission.envelope, cwd: o.mission.cwd, model: setup.provider?.model ?? null, tools: tools.specs().map(modelName), resumed: !!o.resume });
    driver = new Turns(o, tools, approver, log);
    if (!setup.provider) {
      await fail(o, `no model: ${howToConfigure(undefined, setup.providerProblem ?? 'no model provider is configured.')}`);
      return driver.outcome(o);
    }
    if (session.history[0]?.role !== 'system') session.history.unshift({ role: 'system', content: setup.systemPrompt(o.mission.cwd) });
    session.history.push({ role: 'user', content: unitPrompt(o.task) });
    session.replay.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: o.task } });
    const first = await driver.turn(setup.provider);
    if (await settled(o, first, setup.maxTurns)) return driver.outcome(o);
    const silent = !reached;
    session.history.push({ role: 'user', content: silent ? NUDGE_SILENT : NUDGE_OPEN });
    notice(silent ? 'the unit ended its turn without reaching out: nudged once' : 'the unit ended its turn with the mission open: nudged once');
    const second = await driver.turn(setup.provider);
    if (await settled(o, second, setup.maxTurns)) return driver.outcome(o);
    await missions.finish(id, 'stuck', endedWithoutVerdict(driver.answer, reached, session.sessionId)).catch(() => {});
    return driver.outcome(o);
  } finally {
    unwatch();
    await tools?.close();
    // a resumed session replays what the unit last said
    if (driver?.answer) session.replay.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: driver.answer } });
    await log.close({ endOfTurn: true });
  }
}

/**
 * Why a unit whose turns ended with its mission open is `stuck`, in plain words: what it last
 * answered (the run's result, too), and whether it never used its mission tools at all.
 */
function endedWithoutVerdict(answer: string, reached: boolean, sessionId: string): string {
  const said = excerpt(answer);
  const last = said ? `its last answer was "${said}"` : `it answered nothing (attach to session ${sessionId})`;
  return `ended without a verdict: ${last}; ${reached ? 'it never called mission_finish' : 'it never used the mission tools'}, even after one nudge`;
}

/** A failed turn: a blocker saying why, and the verdict `derailed`. */
async function fail(o: UnitRun, why: string): Promise<void> {
  const report = await o.missions.addReport(o.mission.id, { kind: 'blocker', summary: `unit turn failed: ${excerpt(why, 400)}`, detail: why, by: 'runtime' });
  o.emit({ type: 'report', report });
  await o.missions.finish(o.mission.id, 'derailed', excerpt(why, 400)).catch(() => {});
}

/** After a turn: true when the run is over (stopped from outside, failed, out of requests, or finished). */
async function settled(o: UnitRun, res: ModelCallResult, maxTurns: number): Promise<boolean> {
  if (o.signal.aborted) return true;
  if (res.error !== undefined) {
    await fail(o, res.error);
    return true;
  }
  if (o.missions.get(o.mission.id)?.status !== 'open') return true;
  if (res.stopReason === 'max_turn_requests') {
    const report = await o.missions.addReport(o.mission.id, { kind: 'blocker', summary: `the unit used all ${maxTurns} model requests of a turn without a verdict`, by: 'runtime' });
    o.emit({ type: 'report', report });
    await o.missions.finish(o.mission.id, 'stuck', `turn limit: ${maxTurns} model requests (--max-turns)`).catch(() => {});
    return true;
  }
  return false;
}

/** What a run's turns need of it: its model settings, its stop signal, where its events go. */
export interface TurnsHost {
  setup: Pick<UnitSetup, 'newContext' | 'maxTurns'>;
  signal: AbortSignal;
  emit(e: RunEvent): void;
}

/**
 * A run's turns with no client (a unit's, `cxl -p`'s): model calls over one history, each call
 * reported as events, refusals counted.
 */
export class Turns {
  answer = '';
  usage: RunUsage = EMPTY_USAGE;
  readonly refused: RefusedCall[] = [];
  #calls = 0;
  readonly #context: SessionContext;

  constructor(
    private readonly o: TurnsHost,
    private readonly tools: SessionTools,
    private readonly approver: Approver,
    private readonly log: SessionLog,
  ) {
    this.#context = sessionContext(o.setup.newContext, tools, {
      onUsage: () => {},
      onWarning: (text) => o.emit({ type: 'notice', text }),
      onCompaction: (phase, r) => {
        if (phase === 'started') o.emit({ type: 'notice', text: 'compacting the context: the model is summarising the older part…' });
        else if (phase !== 'cancelled') o.emit({ type: 'notice', text: describeCompaction(r) });
      },
    });
  }

  async turn(provider: Provider): Promise<ModelCallResult> {
    let text = '';
    const said = () => {
      if (text.trim()) this.o.emit({ type: 'message', text: text.trim() });
      text = '';
    };
    const res = await modelCall({
      provider,
      history: this.log.session.history as ChatMessage[],
      tools: this.tools,
      context: this.#context,
      maxTurns: this.o.setup.maxTurns,
      signal: this.o.signal,
      onText: async (t) => {
        text += t;
      },
      onThought: async () => {},
      onNotice: (t) => this.o.emit({ type: 'notice', text: t }),
      checkpoint: (c) => this.log.checkpoint(c),
      runCall: (call) => {
        said();
        return this.#call(call);
      },
    });
    if (text.trim()) this.answer = text.trim();
    said();
    this.usage = res.usage;
    return res;
  }

  async #call(call: ModelToolCall): Promise<CallOutcome> {
    const id = `c${++this.#calls}`;
    const checked = checkCall(this.tools.specs(), call.name, call.arguments);
    const title = checked.spec ? this.tools.view(checked.spec, checked.args).title : call.name;
    this.o.emit({ type: 'tool_call', id, name: call.name, title, arguments: checked.rawInput });
    const failed = (e: ToolError, reads: string[]): CallOutcome => {
      if (REFUSALS.has(e.code)) this.refused.push({ tool: checked.spec ? `${checked.spec.toolset}.${checked.spec.name}` : call.name, title, code: e.code as RefusedCall['code'], message: e.message });
      this.o.emit({ type: 'tool_result', id, name: call.name, title, ok: false, code: e.code, error: e.message });
      return { forModel: JSON.stringify(e.toJSON()), reads };
    };
    if (checked.error) return failed(checked.error, []);
    const r = await runChecked(this.tools, checked.spec, checked.args, { signal: this.o.signal, approve: this.approver }, 'The run was stopped.', (out) => out.forModel);
    if (!r.ok) {
      if (r.crash !== undefined) this.o.emit({ type: 'notice', text: `tool ${call.name} crashed: ${r.crash}` });
      return failed(r.error, r.reads);
    }
    this.o.emit({ type: 'tool_result', id, name: call.name, title, ok: true, output: r.value.length > 4000 ? `${r.value.slice(0, 4000)}… (${r.value.length} characters)` : r.value });
    return { forModel: r.value, reads: r.reads };
  }

  outcome(o: UnitRun): UnitOutcome {
    return { mission: o.missions.require(o.mission.id), answer: this.answer, reports: o.missions.reports(o.mission.id), refused: this.refused, usage: this.usage, sessionId: this.log.session.sessionId };
  }
}
