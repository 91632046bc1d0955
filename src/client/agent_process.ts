// The agent as a child process: stdio pipes for ACP, stderr kept as its last lines (shown when
// it dies, and in the agent log pane while it runs), its own process group so quitting takes
// down whatever it started.
import { spawn, type ChildProcess } from 'node:child_process';
import { childStreams, killProcessGroup } from '../core/platform/runtime.ts';

export interface AgentExit {
  code: number | null;
  signal: string | null;
  error?: string;
  /** the program that was not found, when that is why it could not start */
  missing?: string;
}

export const STDERR_TAIL_LINES = 12;
/** Lines of stderr the agent log pane can show (the oldest are dropped). */
export const LOG_LINES = 1000;

export class AgentProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<AgentExit>;
  #tail: string[] = [];
  #log: string[] = [];
  #partial = '';
  #onStderr: (lines: string[]) => void;
  #onLog: (lines: string[]) => void;

  /**
   * `adopt`: the same command already spawned this way (pipes, own process group) by bin/early_agent.js
   * before this module loaded, with the error it reported meanwhile if any.
   */
  constructor(argv: string[], opts: { cwd: string; env?: Record<string, string | undefined>; onStderr?: (lines: string[]) => void; onLog?: (lines: string[]) => void; adopt?: { child: ChildProcess; error?: Error } }) {
    this.#onStderr = opts.onStderr ?? (() => {});
    this.#onLog = opts.onLog ?? (() => {});
    const [cmd, ...args] = argv;
    this.child = opts.adopt?.child ?? spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const earlyError = opts.adopt?.error;
    this.child.stderr?.setEncoding('utf8').on('data', (d: string) => this.#stderr(d));
    // A dead agent's stdin must not crash us with EPIPE; the exit is reported instead.
    this.child.stdin?.on('error', () => {});
    this.exited = new Promise((resolve) => {
      let error: string | undefined;
      const failed = (err: Error) => {
        error = err.message;
        resolve({ code: null, signal: null, error, ...((err as NodeJS.ErrnoException).code === 'ENOENT' ? { missing: cmd } : {}) });
      };
      if (earlyError) failed(earlyError);
      this.child.on('error', failed);
      this.child.on('close', (code, signal) => {
        if (this.#partial) this.#push(this.#partial);
        this.#partial = '';
        this.#onLog(this.log());
        resolve({ code, signal: signal ?? null, error });
      });
    });
  }

  /** Who hears stderr from now on (a process spawned before its client existed); told at once what came so far. */
  listen(o: { onStderr?: (lines: string[]) => void; onLog?: (lines: string[]) => void }): void {
    if (o.onStderr) this.#onStderr = o.onStderr;
    if (o.onLog) this.#onLog = o.onLog;
    if (this.#log.length || this.#partial) {
      this.#onStderr(this.stderrTail());
      this.#onLog(this.log());
    }
  }

  #push(line: string): void {
    this.#tail.push(line);
    if (this.#tail.length > STDERR_TAIL_LINES) this.#tail.shift();
    this.#log.push(line);
    if (this.#log.length > LOG_LINES + 100) this.#log.splice(0, this.#log.length - LOG_LINES);
  }

  #stderr(d: string): void {
    const parts = (this.#partial + d).split('\n');
    this.#partial = parts.pop() ?? '';
    if (this.#partial.length > 4096) {
      this.#push(this.#partial.slice(0, 4096));
      this.#partial = '';
    }
    for (const p of parts) this.#push(p.replace(/\r$/, ''));
    this.#onStderr(this.stderrTail());
    this.#onLog(this.log());
  }

  /**
   * A line of the client's own about this agent (what it sent that could not be read, what the
   * SDK reported), kept in the log among its stderr, marked as ours.
   */
  note(line: string): void {
    for (const l of line.split('\n')) {
      this.#log.push(`[cxl] ${l}`);
      if (this.#log.length > LOG_LINES + 100) this.#log.splice(0, this.#log.length - LOG_LINES);
    }
    this.#onLog(this.log());
  }

  /** Everything kept of stderr, oldest first, with the line still being written. */
  log(): string[] {
    const all = this.#partial ? [...this.#log, this.#partial] : [...this.#log];
    return all.slice(-LOG_LINES);
  }

  stderrTail(): string[] {
    return this.#partial ? [...this.#tail, this.#partial].slice(-STDERR_TAIL_LINES) : [...this.#tail];
  }

  streams() {
    return childStreams(this.child);
  }

  /** End the agent and everything in its process group. */
  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.child.pid && this.child.exitCode === null && this.child.signalCode === null) killProcessGroup(this.child.pid, signal);
  }
}
