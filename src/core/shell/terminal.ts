// One running program as a terminal: the shape both the local implementation (child processes on
// this machine) and the client-backed one (ACP terminal/* on the client) provide. A multi-step
// line runs one terminal per step.
import type { SandboxState, TerminalSandbox } from './sandbox/settings.ts';

export interface TerminalRequest {
  /** the program: an absolute path (checked and resolved) or, without a policy, what the user gave */
  command: string;
  args: string[];
  /** absolute working directory */
  cwd: string;
  /** environment to run with (already scrubbed) */
  env: Record<string, string>;
  /** names of `env` a client's terminal must set too, over the client's own environment (read-only git) */
  forceEnv?: readonly string[];
  /** cap on kept output bytes per stream (head and tail kept); <= 0 = unlimited */
  outputByteLimit: number;
  /**
   * end the command once a stream's output passes `outputByteLimit` (as `| head -c` would):
   * what nobody reads is not worth running for (`cat /dev/zero` ran until its CPU limit)
   */
  endAtOutputLimit?: boolean;
  /** run inside the OS sandbox with this view; absent = unsandboxed */
  sandbox?: TerminalSandbox;
}

export interface TerminalExit {
  /** null when killed by a signal */
  exitCode: number | null;
  signal: string | null;
  /** the sandbox could not start the command: nothing ran */
  sandboxError?: string;
  /** the command was ended when its output passed this many bytes (endAtOutputLimit) */
  outputLimit?: number;
}

export interface TerminalOutput {
  stdout: string;
  /** empty for client terminals, which interleave both streams into stdout */
  stderr: string;
  truncated: boolean;
  /** bytes cut from the middle (local) or the start (client) */
  omittedBytes: number;
  exitStatus?: TerminalExit;
}

export interface Terminal {
  readonly id: string;
  /** output so far (or all of it once exited) */
  output(): Promise<TerminalOutput>;
  waitForExit(): Promise<TerminalExit>;
  /** kill the program and everything it started; the terminal stays readable */
  kill(): Promise<void>;
  /** free the terminal; kills it first if still running */
  release(): Promise<void>;
}

export interface TerminalHost {
  /** where programs run, for messages: `local` or `client` */
  readonly kind: 'local' | 'client';
  create(req: TerminalRequest): Promise<Terminal>;
  /** the sandbox commands would run in (probed once); absent = this host cannot sandbox */
  sandboxState?(network: boolean): SandboxState;
}
