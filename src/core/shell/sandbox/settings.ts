// What a command's sandbox is, in words every layer shares: the envelope's setting
// (`shell.sandbox`, `shell.network`), the profile a call gets from the gate's decision, the
// state a terminal host reports (which sandbox is working, or why none is), and what travels
// with a terminal request. No disk, no processes: the probe and the view live beside this file.
import { SANDBOX_MODES, type Decision, type SandboxMode, type SandboxState } from '../../envelope/index.ts';
import type { Limits } from './limits.ts';

export { SANDBOX_MODES, type SandboxMode, type SandboxState };
export { isWorking, profileFor, withoutSandbox, type SandboxProfile } from '../../contract/sandbox_decision.ts';
import { isWorking, type SandboxProfile } from '../../contract/sandbox_decision.ts';

/** read-only: the workspace is read-only too; workspace-write: the workspace is writable minus the wall. */
export const SANDBOX_PROFILES: readonly SandboxProfile[] = ['read-only', 'workspace-write'];

/** The envelope's sandbox settings and the call's profile, as the gate hands them to local_shell. */
export interface SandboxCall {
  mode: SandboxMode;
  network: boolean;
  profile: SandboxProfile;
  /** absolute real paths of read-approve files this call's approval named: left visible */
  visible?: readonly string[];
}

/** What a terminal request carries when its command runs sandboxed. */
export interface TerminalSandbox {
  profile: SandboxProfile;
  network: boolean;
  /** directories writable under workspace-write (the session root, the policy's allowed dir) */
  roots: readonly string[];
  /** read-approve files left visible (real paths) */
  visible?: readonly string[];
  /**
   * directories hidden whole beyond what the host finds itself: what the caller's environment
   * names before it is filtered for the command (its $XDG_RUNTIME_DIR, its cxl data dir)
   */
  hidden?: readonly string[];
  /** the bounds of a read-only (unasked) command, when not the default ones (limits.ts) */
  limits?: Limits;
}

/** How the tool result reports the sandbox a command ran in. */
export interface SandboxReport {
  state: SandboxState['state'];
  profile?: SandboxProfile;
  network?: boolean;
  reason?: string;
}

export const DEFAULT_SANDBOX_CALL: SandboxCall = Object.freeze({ mode: 'auto', network: true, profile: 'workspace-write' });

/** The sandbox settings of an envelope (its resolved shell axis), defaults filled in. */
export function envelopeSandbox(shell: { sandbox?: { value: SandboxMode }; network?: { value: boolean } }): { mode: SandboxMode; network: boolean } {
  return { mode: shell.sandbox?.value ?? 'auto', network: shell.network?.value ?? true };
}

export const INSTALL_HINT = 'Install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install bubblewrap`; Arch: `pacman -S bubblewrap`) so `bwrap` is on PATH';

/** One line for `cxl config`, `cxl check` and the docs: which sandbox is in force and why. */
export function describeSandbox(mode: SandboxMode, network: boolean, state: SandboxState): string {
  if (mode === 'off') return 'off (shell.sandbox = "off"): commands run unsandboxed';
  const net = network ? 'network on' : 'network off (shell.network = false)';
  if (isWorking(state)) return `${state.state}${state.reason ? ` (${state.reason})` : ''}, shell.sandbox = "${mode}", ${net}`;
  const why = state.reason ?? 'no sandbox';
  return mode === 'required'
    ? `unavailable (${why}); shell.sandbox = "required", so every command is refused (sandbox_unavailable). ${INSTALL_HINT}.`
    : `unavailable (${why}); shell.sandbox = "auto", so commands run unsandboxed and every command asks (the prefix allowlist is ignored). ${INSTALL_HINT}.`;
}
