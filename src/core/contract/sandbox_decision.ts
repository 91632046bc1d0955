// What a decision means for a call that runs in an OS sandbox, as the gate's one decision
// (gate/decision.ts) and local_shell both read it: the profile it runs under, and the prefix
// allowlist's allow turned into an ask when no sandbox works.
import type { Decision, SandboxMode, SandboxState } from '../envelope/index.ts';

/** read-only: the workspace is read-only too; workspace-write: the workspace is writable minus the wall. */
export type SandboxProfile = 'read-only' | 'workspace-write';

/**
 * The profile a call runs under: read-only when the prefix allowlist let it through
 * with nobody asked; workspace-write for everything else that runs (a human's yes, a session
 * allow, --yes, the shell grant, a tools pattern, always_allow).
 */
export function profileFor(decision: Pick<Decision, 'action' | 'rule'>, approved: boolean): SandboxProfile {
  return decision.action === 'allow' && decision.rule === 'shell.prefix_allowlist' && !approved ? 'read-only' : 'workspace-write';
}

/** True when commands of this host run inside a sandbox that works. */
export function isWorking(s: SandboxState): boolean {
  return s.state === 'bubblewrap' || s.state === 'seatbelt';
}

/**
 * The prefix allowlist runs commands unasked because the sandbox contains them. With `auto` and
 * no working sandbox, an allow from that list becomes an ask, saying why.
 */
export function withoutSandbox(decision: Decision, mode: SandboxMode, state: SandboxState): Decision {
  if (decision.action !== 'allow' || decision.rule !== 'shell.prefix_allowlist' || mode !== 'auto' || isWorking(state)) return decision;
  return {
    ...decision,
    action: 'approve',
    sentence: `${decision.sentence.replace(/^allow: /, 'approve: ')}, but no sandbox is working (${state.reason ?? state.state}), so it asks`,
  };
}
