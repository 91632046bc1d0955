// A one-shot conversation (`cxl -p "<prompt>"`, docs/missions.md "cxl -p"): one prompt, one turn
// of the tool loop a session runs, and the answer. No mission tools and no verdict: the model
// answered, or it did not (its server failed, the turn limit, a stop). The session is stored like
// the UI's, so `cxl --resume` opens it and `cxl -p --continue` goes on with it. What the envelope
// asks about is refused at once, with the reason for the model to read and carry on without it;
// with `waitForApprovals` it is stored as a durable ask and waits for `cxl approvals respond`.
import { randomUUID } from 'node:crypto';
import { META_TURN_ENDED } from '../core/protocol_names.ts';
import type { Approver } from '../core/gate/gate.ts';
import { sessionAdditionalRoots } from './acp/additional_dirs.ts';
import { AskStore } from './missions/ask_store.ts';
import { durableApprover } from './missions/durable_approver.ts';
import { howToConfigure } from './providers/select.ts';
import type { SessionLog, StoredSession } from './sessions/store.ts';
import type { AgentSetup } from './setup.ts';
import { modelName } from './tools/tool_names.ts';
import { askView, EXIT, usageView, type RefusedCall, type RunEvent, type UsageView } from './units/events.ts';
import { UNIT_ASK_TIMEOUT_MS } from './units/lifecycle.ts';
import { Turns } from './units/unit.ts';

export interface OneShotOptions {
  /** what the model reads: the prompt, with piped input between markers */
  prompt: string;
  /** the prompt as the session shows it (its title, the replay) */
  shown: string;
  envelope: string;
  /** the stored session to continue */
  resume?: string;
  /** more roots the tools reach (`--add-dir`, checked and canonical): kept with the session, replacing what it had */
  extraDirs?: readonly string[];
  /** store an ask as a durable ask and wait for its verdict, instead of refusing it at once */
  waitForApprovals: boolean;
  signal: AbortSignal;
  emit(e: OneShotEvent): void;
}

/** How a one-shot conversation ended: `--output-format json` prints this object, stream-json ends with it. */
export interface OneShotSummary {
  /** false when the model answered */
  is_error: boolean;
  exit_code: number;
  /** the model's answer: what it said after its last tool call */
  result: string;
  /** why there is no answer */
  reason?: string;
  session_id: string;
  envelope: string;
  refused: RefusedCall[];
  usage: UsageView;
  duration_ms: number;
}

export type OneShotEvent =
  | { type: 'init'; session_id: string; envelope: string; cwd: string; model: string | null; tools: string[]; resumed: boolean }
  | Extract<RunEvent, { type: 'message' | 'tool_call' | 'tool_result' | 'ask' | 'verdict' | 'notice' }>
  | ({ type: 'result' } & OneShotSummary);

/** What a refused ask tells the model (its tool result) and the person (the ✗ line). */
export const NOBODY_HINT = 'It was not run: cxl -p asks nobody. Do without it; to allow it, the user can run cxl -p again with --wait-for-approvals (then `cxl approvals respond`), or with --envelope NAME for an envelope that allows it.';

const EMPTY_USAGE = { requests: 0, promptTokens: 0, completionTokens: 0, compactions: 0 };

async function openSession(setup: AgentSetup, o: OneShotOptions): Promise<SessionLog> {
  if (o.resume) {
    const log = await setup.store.open(o.resume);
    if (!log) throw new Error(`no stored session "${o.resume}"`);
    log.session.mode = o.envelope;
    return log;
  }
  const now = new Date().toISOString();
  const stored: StoredSession = { version: 1, sessionId: randomUUID(), cwd: setup.cwd, title: o.shown.replace(/\s+/g, ' ').trim().slice(0, 80), createdAt: now, updatedAt: now, mode: o.envelope, history: [], replay: [], allows: [] };
  return setup.store.create(stored);
}

/**
 * The turn's events as the session's replay keeps them, so `cxl --resume` shows what was said
 * and each call with its outcome (calls are numbered per run: a continued session keeps its old ones).
 */
function replayRecorder(session: StoredSession): (e: RunEvent) => void {
  const run = Date.now().toString(36);
  const calls = new Map<string, Extract<RunEvent, { type: 'tool_call' }>>();
  return (e) => {
    if (e.type === 'message') session.replay.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${e.text}\n` } });
    else if (e.type === 'tool_call') calls.set(e.id, e);
    else if (e.type === 'tool_result') {
      const call = calls.get(e.id);
      const text = e.ok ? (e.output ?? '') : `${e.code}: ${e.error}`;
      session.replay.push({ sessionUpdate: 'tool_call', toolCallId: `p${run}-${e.id}`, name: e.name, title: e.title, kind: 'other', status: e.ok ? 'completed' : 'failed', locations: [], rawInput: call?.arguments ?? {}, content: [{ type: 'content', content: { type: 'text', text } }] });
    }
  };
}

export async function runOneShot(setup: AgentSetup, o: OneShotOptions): Promise<OneShotSummary> {
  const t0 = Date.now();
  const log = await openSession(setup, o);
  const session = log.session;
  const sessionId = session.sessionId;
  const record = replayRecorder(session);
  // what Turns reports is a message, a notice or a call: events of this conversation too
  const emit = (e: RunEvent) => {
    record(e);
    o.emit(e as OneShotEvent);
  };
  const notice = (text: string) => emit({ type: 'notice', text });
  const end = (exitCode: number, result: string, usage: typeof EMPTY_USAGE, refused: RefusedCall[], reason?: string): OneShotSummary => ({
    is_error: exitCode !== 0,
    exit_code: exitCode,
    result,
    ...(reason ? { reason } : {}),
    session_id: sessionId,
    envelope: o.envelope,
    refused,
    usage: usageView(usage),
    duration_ms: Date.now() - t0,
  });
  let tools: Awaited<ReturnType<AgentSetup['buildLocalTools']>> | undefined;
  try {
    // as an ACP load: what is given this time is what the session has (checked again here)
    const extra = sessionAdditionalRoots(session, setup.cwd, o.extraDirs ?? []);
    tools = await setup.buildLocalTools({ sessionId, mode: o.envelope, ledger: session.ledger, allows: session.allows, notice, approvals: o.waitForApprovals, nobodyHint: NOBODY_HINT, askTimeoutMs: UNIT_ASK_TIMEOUT_MS, ...(extra.length ? { extra } : {}) });
    // with approvals off the tools refuse an ask before any approver is called
    const approver: Approver = o.waitForApprovals
      ? durableApprover({ asks: new AskStore(setup.dataDir), sessionId, agent: setup.missions.agent, envelope: o.envelope, onAsk: (a) => emit({ type: 'ask', ask: askView(a) }), onVerdict: (a, v) => emit({ type: 'verdict', ask_id: a.id, verdict: v.verdict, by: v.by, ...(v.answer !== undefined ? { answer: v.answer } : {}) }) })
      : async () => ({ outcome: 'reject', reason: NOBODY_HINT });
    o.emit({ type: 'init', session_id: sessionId, envelope: o.envelope, cwd: session.cwd, model: setup.provider?.model ?? null, tools: tools.specs().map(modelName), resumed: !!o.resume });
    session.replay.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: o.shown } });
    if (!setup.provider) {
      session.history.push({ role: 'user', content: o.prompt });
      return end(EXIT.failed, '', EMPTY_USAGE, [], howToConfigure(undefined, setup.providerProblem ?? 'no model provider is configured.'));
    }
    if (session.history[0]?.role !== 'system') session.history.unshift({ role: 'system', content: setup.systemPrompt(session.cwd) });
    session.history.push({ role: 'user', content: o.prompt });
    const turns = new Turns({ setup, signal: o.signal, emit }, tools, approver, log);
    const res = await turns.turn(setup.provider);
    const why = o.signal.aborted
      ? 'stopped before the model answered'
      : res.error !== undefined
        ? res.error
        : res.stopReason === 'max_turn_requests'
          ? `no answer after ${setup.maxTurns} model requests (--max-turns)`
          : res.stopReason === 'max_tokens'
            ? 'the answer was cut off at the model\'s output limit'
            : !turns.answer
              ? 'the model ended its turn without an answer'
              : undefined;
    return end(why ? EXIT.failed : 0, turns.answer, turns.usage, turns.refused, why);
  } finally {
    await tools?.close();
    // a resumed session shows where this turn was cut short, as one the UI ran does
    if (o.signal.aborted) session.replay.push({ sessionUpdate: 'session_info_update', _meta: { [META_TURN_ENDED]: 'cancelled' } });
    if (tools) {
      session.allows = tools.saveAllows();
      session.ledger = tools.saveLedger();
    }
    session.updatedAt = new Date().toISOString();
    await log.close({ endOfTurn: true });
  }
}
