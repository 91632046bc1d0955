// The one decision on a call, from its plan's facts (core/contract/toolset.ts): the envelope's
// rules, then the built-in read-approve list (which asks in every envelope) and the no-sandbox
// rule (with `shell.sandbox = "auto"` and no working sandbox, what the prefix allowlist allows
// asks), with what follows from it said in fields, so no caller compares rule ids. The gate
// and `cxl check` (one line and --batch) decide through here.
import { decide, type CompiledEnvelope, type Decision } from '../envelope/index.ts';
import { profileFor, withoutSandbox, type SandboxProfile } from '../contract/sandbox_decision.ts';
import type { CallPlan, SandboxFacts } from '../contract/toolset.ts';

export interface CallVerdict {
  decision: Decision;
  /** allowed unasked because the envelope trusts it only to read (the prefix allowlist): it runs read-only */
  readOnly: boolean;
  /** the always-ask tier decided: asked every time, never remembered for the session */
  alwaysAsk: boolean;
  /** an approve that "allow for this session" may answer, and that a session allow may cover */
  sessionable: boolean;
  /** for a call that runs in an OS sandbox: its settings, state, and the profile it runs under (as decided, or once approved) */
  sandbox?: SandboxFacts & { profile: SandboxProfile };
}

/**
 * The built-in read-approve list asks in every envelope, as it does for the file tools: a line
 * the envelope would run unasked that reads `.env` or `*.pem` asks first.
 */
export function withReadApprove(d: Decision, approve: readonly string[]): Decision {
  if (d.action !== 'allow' || approve.length === 0) return d;
  return {
    action: 'approve',
    rule: 'files.read.approve_paths',
    envelope: d.envelope,
    from: 'built-in',
    matched: approve[0],
    pathOnly: true,
    sentence: `approve: path \`${approve[0]}\` is on the built-in read-approve list (.env, *.pem, *.key), which asks in every envelope (${d.sentence})`,
  };
}

/** The decision on a planned call, and what it means for asking, remembering and running it. */
export function decideCall(envelope: CompiledEnvelope, plan: Pick<CallPlan, 'facts' | 'readApprove' | 'sandbox'>): CallVerdict {
  let decision = withReadApprove(decide(envelope, plan.facts), plan.readApprove ?? []);
  if (plan.sandbox) decision = withoutSandbox(decision, plan.sandbox.mode, plan.sandbox.state);
  const readOnly = decision.action === 'allow' && decision.rule === 'shell.prefix_allowlist';
  const alwaysAsk = decision.rule === 'always_ask';
  const verdict: CallVerdict = { decision, readOnly, alwaysAsk, sessionable: decision.action === 'approve' && !alwaysAsk };
  if (plan.sandbox) verdict.sandbox = { ...plan.sandbox, profile: profileFor(decision, decision.action === 'approve') };
  return verdict;
}
