// Terminals that are child processes on this machine. Each program is the leader of its own
// process group (spawned detached), so a timeout, a cancel or the end of the leader kills
// everything it started, not just the leader. Output is kept head-and-tail within a byte cap.
import { spawn, type ChildProcess } from 'node:child_process';
import process from 'node:process';
import { killProcessGroup, onTerminate } from '../runtime.ts';
import { HeadTailBuffer } from './output_limit.ts';
import type { Terminal, TerminalExit, TerminalHost, TerminalOutput, TerminalRequest } from './terminal.ts';

// After the leader exits, how long to wait for its pipes to close before giving up on them (a
// program that moved itself out of our process group can hold them open forever).
const PIPE_GRACE_MS = 500;

let counter = 0;

// Groups still running. Our children are not in the terminal's foreground group, so a Ctrl-C
// or a kill of this process would not reach them: kill them ourselves on the way out.
const live = new Set<number>();
let hooked = false;

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  const killAll = () => {
    for (const pid of live) killProcessGroup(pid, 'SIGKILL');
    live.clear();
  };
  process.on('exit', killAll);
  onTerminate((signal) => {
    killAll();
    // Keep the default of dying on the signal unless someone else handles it too.
    if (process.listenerCount(signal) <= 1) process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

export class LocalTerminalHost implements TerminalHost {
  readonly kind = 'local' as const;

  async create(req: TerminalRequest): Promise<Terminal> {
    return new LocalTerminal(req, `local-${process.pid}-${++counter}`);
  }
}

class LocalTerminal implements Terminal {
  private readonly child: ChildProcess;
  private readonly out: HeadTailBuffer;
  private readonly err: HeadTailBuffer;
  private exitStatus?: TerminalExit;
  private readonly exited: Promise<TerminalExit>;
  private spawnError?: string;
  private exitSeen = false;

  constructor(
    req: TerminalRequest,
    readonly id: string,
  ) {
    this.out = new HeadTailBuffer(req.outputByteLimit);
    this.err = new HeadTailBuffer(req.outputByteLimit);
    // Hook before spawning: a signal that lands right after the spawn (the child can run before
    // this thread does) must still find the handler; JS handlers run only after this constructor,
    // by which time the pid is in `live`.
    hookExit();
    this.child = spawn(req.command, req.args, {
      cwd: req.cwd,
      env: req.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: false,
    });
    if (this.child.pid !== undefined) live.add(this.child.pid);
    this.child.stdout!.on('data', (c: Uint8Array) => this.out.push(c));
    this.child.stderr!.on('data', (c: Uint8Array) => this.err.push(c));
    this.exited = new Promise<TerminalExit>((resolve) => {
      let settled = false;
      const settle = (exit: TerminalExit) => {
        if (settled) return;
        settled = true;
        this.exitStatus = exit;
        resolve(exit);
      };
      this.child.on('error', (e: NodeJS.ErrnoException) => {
        this.spawnError = `cannot run ${req.command}: ${e.code === 'ENOENT' ? 'not found' : e.message}`;
        this.err.push(new TextEncoder().encode(`${this.spawnError}\n`));
        settle({ exitCode: e.code === 'ENOENT' ? 127 : 126, signal: null });
      });
      this.child.on('exit', (code, signal) => {
        // The leader is gone; whatever it left behind in its group goes with it.
        this.exitSeen = true;
        this.killGroup();
        if (this.child.pid !== undefined) live.delete(this.child.pid);
        const exit = { exitCode: code, signal: signal ?? null };
        const timer = setTimeout(() => {
          this.child.stdout?.destroy();
          this.child.stderr?.destroy();
          settle(exit);
        }, PIPE_GRACE_MS);
        this.child.on('close', () => {
          clearTimeout(timer);
          settle(exit);
        });
      });
    });
  }

  /** pid of the group leader (for tests and diagnostics) */
  get pid(): number | undefined {
    return this.child.pid;
  }

  private killGroup(): void {
    if (this.child.pid === undefined) return;
    // Once the leader is reaped its pid may be reused: then signal the group only, never the pid.
    killProcessGroup(this.child.pid, 'SIGKILL', { groupOnly: this.exitSeen });
  }

  async output(): Promise<TerminalOutput> {
    const o = this.out.result();
    const e = this.err.result();
    return {
      stdout: o.text,
      stderr: e.text,
      truncated: o.truncated || e.truncated,
      omittedBytes: o.omittedBytes + e.omittedBytes,
      ...(this.exitStatus ? { exitStatus: this.exitStatus } : {}),
    };
  }

  waitForExit(): Promise<TerminalExit> {
    return this.exited;
  }

  async kill(): Promise<void> {
    if (this.exitStatus) return;
    this.killGroup();
    await this.exited;
  }

  async release(): Promise<void> {
    await this.kill();
  }
}
