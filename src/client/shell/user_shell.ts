// The person's own shell: a line typed as `!line` runs as typed with `$SHELL -c` (pipes, globs,
// `$VAR` and all), in the session root, inside the OS sandbox's writable profile: the workspace
// may change, the credential paths are hidden and the environment has no secrets, so nothing of
// a key can reach the model through the output. The person typing the line is its approval: no
// command policy, no envelope. Its output is handed to the agent with the next prompt, because
// the person ran it to show the agent something; without a working sandbox it runs all the same
// (it is the person's own shell) but its output stays on the screen only.
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { childEnv } from '../../core/shell/env.ts';
import { LocalTerminalHost, type LocalTerminal } from '../../core/shell/local_terminal.ts';
import type { ProbeOptions } from '../../core/shell/sandbox/probe.ts';
import { isWorking, type SandboxState } from '../../core/shell/sandbox/settings.ts';
import type { ShellRunView } from '../session/views.ts';

export type { ShellRunView };

/** Output kept for the screen (the tail past it). */
export const SHELL_OUTPUT_BYTES = 1024 * 1024;
/** Output handed to the agent per command (head and tail kept); all pending ones together: core/shell_context.ts. */
export const CONTEXT_BYTES_PER_RUN = 8 * 1024;
export { CONTEXT_BYTES_TOTAL, shellContextText } from '../../core/shell_context.ts';


export interface UserShellOptions {
  /** where to find the sandbox program (tests point it at a broken one) */
  probe?: Omit<ProbeOptions, 'network'>;
  env?: Record<string, string | undefined>;
}

/** The person's login shell when it is an absolute path to a program, else /bin/sh. */
export function personShell(env: Record<string, string | undefined>): string {
  const s = env.SHELL;
  if (s && path.isAbsolute(s)) {
    try {
      fs.accessSync(s, fs.constants.X_OK);
      return s;
    } catch {
      /* not runnable: sh */
    }
  }
  return '/bin/sh';
}

/** Head and tail of `text` within `max` bytes, the cut said. */
function capped(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  const half = Math.floor(max / 2);
  const buf = Buffer.from(text);
  const head = buf.subarray(0, half).toString('utf8').replace(/\uFFFD$/, '');
  const tail = buf.subarray(buf.length - half).toString('utf8').replace(/^\uFFFD/, '');
  return `${head}\n[… ${buf.length - 2 * half} bytes cut …]\n${tail}`;
}

/** One finished run as the agent reads it. */
export function contextOf(run: Pick<ShellRunView, 'command' | 'output' | 'exitCode' | 'signal' | 'truncated'>): string {
  const end = run.signal ? `[killed by ${run.signal}]` : `[exit ${run.exitCode ?? '?'}]`;
  const out = capped(run.output.replace(/\n$/, ''), CONTEXT_BYTES_PER_RUN);
  return `$ ${run.command}\n${run.truncated ? '[the start of the output was cut]\n' : ''}${out}${out ? '\n' : ''}${end}`;
}

export class UserShell {
  readonly #local: LocalTerminalHost;
  #running: LocalTerminal | undefined;
  #seq = 0;

  constructor(
    readonly root: string,
    private readonly opts: UserShellOptions = {},
  ) {
    this.#local = new LocalTerminalHost({ probe: { ...opts.probe, roots: [root] } });
  }

  /** The sandbox a line runs in (probed once). */
  sandboxState(): SandboxState {
    return this.#local.sandboxState(true);
  }

  get running(): boolean {
    return this.#running !== undefined;
  }

  /**
   * Runs `line`; `onChange` hears of its output as it comes (at most every `everyMs`) and once it
   * is done. Resolves with the finished run.
   */
  async run(line: string, onChange: (v: ShellRunView) => void, everyMs = 50): Promise<ShellRunView> {
    const env = this.opts.env ?? process.env;
    const sandbox = this.sandboxState();
    const sandboxed = isWorking(sandbox);
    const key = `sh${++this.#seq}`;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let view: () => ShellRunView = () => ({ key, command: line, output: '', truncated: false, done: false, sandbox, handed: sandboxed });
    const term = this.#local.createSync(
      {
        command: personShell(env),
        args: ['-c', line],
        cwd: this.root,
        env: childEnv(env),
        outputByteLimit: SHELL_OUTPUT_BYTES,
        ...(sandboxed ? { sandbox: { profile: 'workspace-write' as const, network: true, roots: [this.root] } } : {}),
      },
      {
        interleave: true,
        onChange: () => {
          timer ??= setTimeout(() => {
            timer = undefined;
            if (!term.exit) onChange(view());
          }, everyMs);
        },
      },
    );
    this.#running = term;
    view = () => {
      const s = term.snapshot();
      const exit = term.exit;
      return {
        key,
        command: line,
        output: s.stdout,
        truncated: s.truncated,
        done: exit !== undefined,
        ...(exit ? { exitCode: exit.exitCode, signal: exit.signal } : {}),
        sandbox,
        handed: sandboxed && !exit?.sandboxError,
        ...(exit?.sandboxError ? { failed: exit.sandboxError } : {}),
      };
    };
    onChange(view());
    try {
      await term.waitForExit();
    } finally {
      clearTimeout(timer);
      if (this.#running === term) this.#running = undefined;
    }
    const done = view();
    onChange(done);
    return done;
  }

  /** Ctrl+C: the running line and everything it started are killed. */
  kill(): void {
    this.#running?.killNow();
  }
}
