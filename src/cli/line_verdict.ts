// `cxl check`'s verdict on a line the command policy allowed: the facts the gate builds for it
// (shell/plan.ts), decided by the gate's one decision (gate/decision.ts).
import { decideCall, type CallVerdict } from '../core/gate/decision.ts';
import type { SandboxFacts } from '../core/contract/toolset.ts';
import type { Decision } from '../core/envelope/index.ts';
import type { CompiledEnvelope } from '../core/envelope/index.ts';
import type { Allowed } from '../core/shell/checker.ts';
import { checkedLine } from '../core/shell/plan.ts';

/** The verdict on a line the command policy allowed (`cxl check`), from the facts the gate builds; `sandbox`: where it would run. */
export function lineVerdict(envelope: CompiledEnvelope, command: string, verdict: Allowed, root: string, sandbox?: SandboxFacts): CallVerdict {
  return decideCall(envelope, checkedLine(command, verdict, root, sandbox));
}

/** The envelope's decision on a line the command policy allowed, by its rules (no sandbox state). */
export function shellDecision(envelope: CompiledEnvelope, command: string, verdict: Allowed, root: string): Decision {
  return lineVerdict(envelope, command, verdict, root).decision;
}
