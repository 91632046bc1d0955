// The gate's approver for an unattended unit (and `cxl -p --wait-for-approvals`): instead of
// refusing what the envelope asks about, it stores the ask with everything a person needs to
// decide (the diff, the steps, the request) and waits for a verdict from `cxl approvals
// respond`, the UI that fired the unit, or the ask's deadline, whichever comes first, each
// recorded exactly once (ask_store.ts). It keeps its own time, so the deadline is the ask's
// stored `expiresAt`, the same one `cxl approvals` shows.
import type { Approver, ApprovalAnswer, ApprovalRequest } from '../../core/gate/gate.ts';
import type { Ask, AskStore, NewAsk, Verdict } from './ask_store.ts';
import { oneLine } from './records.ts';

export interface DurableAskContext {
  asks: AskStore;
  /** the unit's mission; none for a conversation that waits for approvals (`cxl -p --wait-for-approvals`) */
  missionId?: string;
  sessionId?: string;
  agent: string;
  envelope: string;
  /** the ask is stored and waiting */
  onAsk?(ask: Ask): void;
  /** it was answered (or expired, or the run stopped waiting) */
  onVerdict?(ask: Ask, v: Verdict): void;
}

/** What the ask stores of a gate request. */
export function askOfRequest(c: DurableAskContext, req: ApprovalRequest): NewAsk {
  return {
    kind: 'permission',
    ...(c.missionId ? { missionId: c.missionId } : {}),
    ...(c.sessionId ? { sessionId: c.sessionId } : {}),
    agent: c.agent,
    envelope: c.envelope,
    toolset: req.toolset,
    tool: req.tool,
    title: req.title,
    summary: oneLine(req.title, 200),
    ...(req.diff ? { diff: req.diff } : {}),
    ...(req.steps ? { steps: req.steps } : {}),
    ...(req.detail ? { request: req.detail } : {}),
    ...(req.fileMode !== undefined ? { fileMode: req.fileMode } : {}),
    args: req.args,
    locations: req.locations,
    rule: req.decision.rule,
    sentence: req.decision.sentence,
    timeoutMs: req.timeoutMs,
  };
}

/**
 * Waits for the verdict on a stored ask: the one recorded, or the on-timeout deny once its
 * deadline passes, or a `cancelled` verdict when the run stops waiting (so it leaves the list).
 */
export async function awaitVerdict(asks: AskStore, ask: Ask, signal: AbortSignal): Promise<Verdict> {
  const until = ask.expiresAt ? Date.parse(ask.expiresAt) : undefined;
  const got = await asks.wait(ask.id, { until, signal });
  if (got === 'aborted') return asks.respond(ask.id, { verdict: 'deny', by: 'cancelled', reason: 'the run stopped while waiting' }).verdict;
  if (got === 'expired') return asks.respond(ask.id, { verdict: 'deny', by: 'expired' }).verdict;
  return got;
}

export function durableApprover(c: DurableAskContext): Approver {
  const approve: Approver = async (req, signal): Promise<ApprovalAnswer> => {
    const ask = c.asks.create(askOfRequest(c, req));
    c.onAsk?.(ask);
    const v = await awaitVerdict(c.asks, ask, signal);
    c.onVerdict?.(ask, v);
    if (v.verdict === 'approve') return { outcome: 'allow_once' };
    if (v.by === 'expired') return { outcome: 'expired' };
    // the mission was stopped or reclaimed from outside: nobody refused the call, the run is over
    if (v.by === 'cancelled' || v.by === 'stopped' || v.by === 'reclaimed') return { outcome: 'cancelled' };
    return { outcome: 'reject', ...(v.reason ? { reason: v.reason } : {}) };
  };
  approve.keepsTime = true;
  return approve;
}
