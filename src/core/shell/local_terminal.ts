// Terminals that are child processes on this machine. Each program is the leader of its own
// process group (spawned detached), so a timeout, a cancel or the end of the leader kills
// everything it started, not just the leader. Output is kept head-and-tail within a byte cap
// (or, for ACP's terminal/*, one interleaved stream keeping the tail). A request carrying a
// sandbox runs inside it (bubblewrap or Seatbelt): the view is built for that command, now; a
// sandbox started ahead with that same view on the same files is taken instead (sandbox/ahead.ts).
// The client's terminal host (client/hosts/terminal_host.ts) is a thin layer over this file.
import type { ChildProcess, StdioOptions } from 'node:child_process';
import process from 'node:process';
import { childProcess, killProcessGroup, onTerminate, signalExitCode } from '../platform/runtime.ts';
import { HeadTailBuffer, TailBuffer } from './output_limit.ts';
import { AheadPool, launchMarks, type Ahead } from './sandbox/ahead.ts';
import { bwrapFailure, CONTROL_FD, feedSeccomp, INFO_FD, sandboxLaunch, SECCOMP_FD, type Launch } from './sandbox/launcher.ts';
import { probeSandbox, probeSandboxAsync, type Probe, type ProbeOptions } from './sandbox/probe.ts';
import type { SandboxState } from './sandbox/settings.ts';
import type { Terminal, TerminalExit, TerminalHost, TerminalOutput, TerminalRequest } from './terminal.ts';

// After the leader exits, how long to wait for its pipes to close before giving up on them (a
// program that moved itself out of our process group can hold them open forever).
const PIPE_GRACE_MS = 500;

let counter = 0;

// Groups still running. Our children are not in the terminal's foreground group, so a Ctrl-C
// or a kill of this process would not reach them: kill them ourselves on the way out.
const live = new Set<number>();
// Host pids of running sandboxes' init processes: killing one ends everything inside it.
const liveSandboxes = new Set<number>();
let hooked = false;

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  const killAll = () => {
    for (const pid of live) killProcessGroup(pid, 'SIGKILL');
    live.clear();
    for (const pid of liveSandboxes) signalPid(pid);
    liveSandboxes.clear();
  };
  process.on('exit', killAll);
  onTerminate((signal) => {
    killAll();
    // Keep the default of dying on the signal unless someone else handles it too.
    if (process.listenerCount(signal) <= 1) process.exit(signalExitCode(signal));
  });
}

function signalPid(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

/** stdin closed, stdout and stderr piped; bwrap's info pipe, its seccomp filter's pipe and the command's line in their slots. */
function stdioOf(launch: Launch | undefined): StdioOptions {
  const stdio: string[] = ['ignore', 'pipe', 'pipe'];
  if (launch?.infoFd === INFO_FD) stdio[INFO_FD] = 'pipe';
  if (launch?.seccomp !== undefined) {
    stdio[INFO_FD] ??= 'ignore';
    stdio[SECCOMP_FD] = 'pipe';
  }
  if (launch?.line !== undefined) {
    stdio[INFO_FD] ??= 'ignore';
    stdio[SECCOMP_FD] ??= 'ignore';
    stdio[CONTROL_FD] = 'pipe';
  }
  return stdio as StdioOptions;
}

/** The sandbox (or, with no launch, the command itself), the leader of its own process group. */
function spawnLaunch(launch: Launch | undefined, req: Pick<TerminalRequest, 'command' | 'args' | 'cwd' | 'env'>): ChildProcess {
  const child = childProcess().spawn(launch?.command ?? req.command, launch?.args ?? req.args, {
    cwd: req.cwd,
    env: req.env,
    detached: true,
    stdio: stdioOf(launch),
    shell: false,
  });
  // a spawn that failed has no pipes: its 'error' event says why
  if (launch && child.pid !== undefined) feedSeccomp(launch, child.stdio as unknown[]);
  return child;
}

/** bwrap's `{"child-pid": N, …}` on its info pipe: the host pid of the sandbox's init, once. */
function watchInfo(stream: NodeJS.ReadableStream | null | undefined, onPid: (pid: number) => void): void {
  if (!stream) return;
  let text = '';
  let said = false;
  stream.on('data', (c: Uint8Array) => {
    if (said || text.length > 4096) return;
    text += new TextDecoder().decode(c);
    const m = /"child-pid"\s*:\s*(\d+)/.exec(text);
    if (!m) return;
    said = true;
    onPid(Number(m[1]));
  });
  stream.on('error', () => {});
}

/** The pipe the sandbox's shell reads its command line from. */
function controlOf(child: ChildProcess): NodeJS.WritableStream | undefined {
  return ((child.stdio as unknown[])[CONTROL_FD] ?? undefined) as NodeJS.WritableStream | undefined;
}

type Handle = { ref?: () => void; unref?: () => void };

/**
 * A sandbox started with no command yet (sandbox/ahead.ts): its shell waits for a line on
 * CONTROL_FD. Until a command takes it, it does not keep this process running; stopping it
 * closes that pipe (the shell reads EOF and exits, nothing else runs inside), then kills it if
 * it is still there a moment later.
 */
class StartedSandbox implements Ahead {
  readonly child: ChildProcess;
  sandboxPid?: number;
  #onPid?: (pid: number) => void;
  #gone = false;
  #taken = false;

  constructor(
    readonly launch: Launch,
    readonly marks: string[],
    req: Pick<TerminalRequest, 'command' | 'args' | 'cwd' | 'env'>,
  ) {
    hookExit();
    this.child = spawnLaunch(launch, req);
    const pid = this.child.pid;
    if (pid !== undefined) live.add(pid);
    else this.#gone = true; // it did not start (its 'error' event follows)
    this.#holdOn(false);
    controlOf(this.child)?.on('error', () => {}); // closed by a sandbox that died: gone() says so
    watchInfo(this.child.stdio[INFO_FD] as NodeJS.ReadableStream | null, (p) => {
      this.sandboxPid = p;
      if (!this.#gone) liveSandboxes.add(p);
      this.#onPid?.(p);
    });
    this.child.on('error', () => (this.#gone = true));
    this.child.once('exit', () => {
      this.#gone = true;
      if (this.#taken) return; // the terminal's own exit handling
      if (pid !== undefined) live.delete(pid);
      if (this.sandboxPid !== undefined) liveSandboxes.delete(this.sandboxPid);
      this.launch.cleanup?.();
    });
  }

  gone(): boolean {
    return this.#gone;
  }

  /** The command's terminal takes it over: it keeps this process running again and hears of the sandbox's init. */
  takeover(onPid: (pid: number) => void): void {
    this.#taken = true;
    this.#holdOn(true);
    if (this.sandboxPid !== undefined) onPid(this.sandboxPid);
    else this.#onPid = onPid;
  }

  stop(): void {
    if (this.#gone) return;
    controlOf(this.child)?.end();
    const timer = setTimeout(() => {
      if (this.#gone || this.child.pid === undefined) return;
      killProcessGroup(this.child.pid, 'SIGKILL');
      if (this.sandboxPid !== undefined) signalPid(this.sandboxPid);
    }, INFO_WAIT_MS);
    (timer as Handle).unref?.();
  }

  #holdOn(on: boolean): void {
    for (const h of [this.child, ...this.child.stdio] as (Handle | null)[]) {
      try {
        (on ? h?.ref : h?.unref)?.call(h);
      } catch {
        // Deno's throws for a process that never started (its 'error' event says so, and gone() then holds)
      }
    }
  }
}

// one pool for the process: hosts come and go (one per shell tool), the sandboxes they start stay valid across them
const ahead = new AheadPool();

/** Stops the sandboxes started ahead (a process about to end; tests). */
export function stopSandboxesAhead(): void {
  ahead.clear();
}

/** How many commands took a sandbox started ahead, how many found one they could not take, how many are held now. */
export function sandboxesAheadCounts(): { taken: number; refused: number; held: number } {
  return { ...ahead.counts, held: ahead.size };
}

// If a kill comes before bwrap has said where its init is, how long to wait for that before
// killing bwrap alone.
const INFO_WAIT_MS = 1000;

export interface LocalTerminalHostOptions {
  /** where to look for the sandbox program (default: this process's PATH and platform) */
  probe?: Omit<ProbeOptions, 'network'>;
  /** start the next command's sandbox once a command ends (default: yes; sandbox/ahead.ts) */
  ahead?: boolean;
}

/** How one terminal keeps its output. */
export interface LocalTerminalOptions {
  /** one stream, stdout and stderr interleaved as they arrive, keeping the tail (ACP terminal/*) */
  interleave?: boolean;
  /** called after each chunk of output and once at exit (for a live view) */
  onChange?: () => void;
}

/** A probe as the client and agent are told it: without the programs' paths and the filter. */
function stateOf({ program: _program, seccomp: _seccomp, prlimit: _prlimit, ...state }: Probe): SandboxState {
  return state;
}

export class LocalTerminalHost implements TerminalHost {
  readonly kind = 'local' as const;

  constructor(private readonly opts: LocalTerminalHostOptions = {}) {}

  /** The sandbox this host runs commands in, probed once per process (and network setting). */
  sandboxState(network = true): SandboxState {
    return stateOf(this.#probe(network));
  }

  /** sandboxState() without blocking the thread while the first probe runs. */
  async sandboxStateAsync(network = true): Promise<SandboxState> {
    return stateOf(await probeSandboxAsync({ ...this.opts.probe, network }));
  }

  #probe(network: boolean, roots?: readonly string[]): Probe {
    return probeSandbox({ ...this.opts.probe, network, ...(roots ? { roots } : {}) });
  }

  async create(req: TerminalRequest, opts: LocalTerminalOptions = {}): Promise<LocalTerminal> {
    return this.createSync(req, opts);
  }

  /** create(), without waiting: the client host answers terminal/create with the id at once. */
  createSync(req: TerminalRequest, opts: LocalTerminalOptions = {}): LocalTerminal {
    if (!req.sandbox) return new LocalTerminal(req, `local-${process.pid}-${++counter}`, undefined, opts);
    const { sandbox } = req;
    // the programs the sandbox starts come from outside the directories this command may write
    const probe = this.#probe(sandbox.network, sandbox.roots);
    const launch = sandboxLaunch(probe, req, sandbox, { byLine: true });
    const started = ahead.take(launch) as StartedSandbox | undefined;
    // the one taken brings its own launch (and pids group): the one just built was for comparing
    if (started) launch.cleanup?.();
    // …with this command's line
    const term = new LocalTerminal(req, `local-${process.pid}-${++counter}`, started ? { ...started.launch, line: launch.line } : launch, opts, started);
    const key = launch.key;
    if (key !== undefined && this.opts.ahead !== false) {
      // the next command's sandbox, once this one is done (and what the runner does after it);
      // not for a process that has nothing left to do (`cxl tool`), which would only kill it
      void term.waitForExit().then(() => {
        const timer = setTimeout(() => {
          ahead.hold(key, () => {
            const next = sandboxLaunch(probe, req, sandbox, { byLine: true });
            if (next.key !== key) {
              next.cleanup?.();
              return undefined; // the workspace changed meanwhile: the next command builds its own
            }
            return new StartedSandbox(next, launchMarks(next), req);
          });
        }, 0);
        (timer as Handle).unref?.();
      });
    }
    return term;
  }
}

export class LocalTerminal implements Terminal {
  private readonly child: ChildProcess;
  private out: HeadTailBuffer | TailBuffer;
  private err: HeadTailBuffer;
  private exitStatus?: TerminalExit;
  private readonly exited: Promise<TerminalExit>;
  private exitSeen = false;
  // the first bytes of stderr: where bwrap says why it could not start the command
  private errHead = '';
  // bwrap's init, once bwrap reported it; a kill asked for before that waits for it
  private sandboxPid?: number;
  private killWanted?: ReturnType<typeof setTimeout>;
  // the command was ended because its output passed the cap (endAtOutputLimit)
  private endedAtLimit = false;

  constructor(
    private readonly req: TerminalRequest,
    readonly id: string,
    /** the sandbox wrapping the command, when it runs in one */
    readonly launch: Launch | undefined,
    private readonly opts: LocalTerminalOptions = {},
    /** a sandbox started ahead for this launch (sandbox/ahead.ts), taken instead of spawning one */
    started?: StartedSandbox,
  ) {
    this.out = opts.interleave ? new TailBuffer(req.outputByteLimit) : new HeadTailBuffer(req.outputByteLimit);
    this.err = new HeadTailBuffer(req.outputByteLimit);
    // Hook before spawning: a signal that lands right after the spawn (the child can run before
    // this thread does) must still find the handler; JS handlers run only after this constructor,
    // by which time the pid is in `live`.
    hookExit();
    this.child = started ? started.child : spawnLaunch(launch, req);
    if (this.child.pid !== undefined) live.add(this.child.pid);
    if (started) started.takeover((pid) => this.#gotSandboxPid(pid));
    else if (launch?.infoFd === INFO_FD) watchInfo(this.child.stdio[INFO_FD] as NodeJS.ReadableStream | null, (pid) => this.#gotSandboxPid(pid));
    const changed = () => this.opts.onChange?.();
    this.child.stdout!.on('data', (c: Uint8Array) => {
      this.out.push(c);
      this.#overLimit(this.out);
      changed();
    });
    this.child.stderr!.on('data', (c: Uint8Array) => {
      if (this.errHead.length < 1024) this.errHead += new TextDecoder().decode(c.subarray(0, 1024));
      const into = opts.interleave ? this.out : this.err;
      into.push(c);
      this.#overLimit(into);
      changed();
    });
    this.exited = new Promise<TerminalExit>((resolve) => {
      let settled = false;
      const settle = (exit: TerminalExit) => {
        if (settled) return;
        settled = true;
        this.exitStatus = this.launch?.kind === 'bubblewrap' ? this.readBwrap(exit) : exit;
        resolve(this.exitStatus);
        changed();
      };
      this.child.on('error', (e: NodeJS.ErrnoException) => {
        this.launch?.cleanup?.();
        this.replaceOutput(`cannot run ${launch?.command ?? req.command}: ${e.code === 'ENOENT' ? 'not found' : e.message}\n`);
        settle({ exitCode: e.code === 'ENOENT' ? 127 : 126, signal: null });
      });
      this.child.on('exit', (code, signal) => {
        // The leader is gone; whatever it left behind in its group goes with it.
        this.exitSeen = true;
        this.killGroup();
        this.launch?.cleanup?.();
        clearTimeout(this.killWanted);
        if (this.sandboxPid !== undefined) liveSandboxes.delete(this.sandboxPid);
        if (this.child.pid !== undefined) live.delete(this.child.pid);
        const exit: TerminalExit = { exitCode: code, signal: signal ?? null, ...(this.endedAtLimit ? { outputLimit: req.outputByteLimit } : {}) };
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
    // the command, for the sandbox's shell to become (launcher.ts, TRAMPOLINE)
    if (launch?.line !== undefined) {
      const control = controlOf(this.child);
      control?.on('error', () => {}); // a sandbox that failed to start reads nothing: its exit says why
      control?.end(launch.line);
    }
  }

  /** A stream past the cap ends the command, when the request says so: once, the way a timeout does. */
  #overLimit(buf: HeadTailBuffer | TailBuffer): void {
    if (!this.req.endAtOutputLimit || this.endedAtLimit || this.req.outputByteLimit <= 0 || buf.totalBytes <= this.req.outputByteLimit || this.exitSeen) return;
    this.endedAtLimit = true;
    this.killGroup();
  }

  /** bwrap's own failure (the command never ran) reported in the command's words. */
  private readBwrap(exit: TerminalExit): TerminalExit {
    const f = bwrapFailure(exit.exitCode, this.errHead, this.req.command);
    if (!f) return exit;
    if (f.exitCode !== null) {
      this.replaceOutput(`${f.message}\n`);
      return { exitCode: f.exitCode, signal: null };
    }
    this.replaceOutput(`the sandbox could not start ${this.req.command}: ${f.message}\n`);
    return { ...exit, sandboxError: f.message };
  }

  private replaceOutput(text: string): void {
    const bytes = new TextEncoder().encode(text);
    if (this.opts.interleave) {
      this.out = new TailBuffer(this.req.outputByteLimit);
      this.out.push(bytes);
    } else {
      this.err = new HeadTailBuffer(this.req.outputByteLimit);
      this.err.push(bytes);
    }
  }

  /** pid of the group leader (for tests and diagnostics) */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The host pid of the sandbox's init, as bwrap reported it. */
  #gotSandboxPid(pid: number): void {
    if (this.sandboxPid !== undefined) return;
    this.sandboxPid = pid;
    if (!this.exitSeen) liveSandboxes.add(pid);
    if (this.killWanted !== undefined) {
      clearTimeout(this.killWanted);
      this.killGroup();
    }
  }

  private killGroup(): void {
    if (this.child.pid === undefined) return;
    if (this.launch?.kind === 'bubblewrap' && !this.exitSeen) {
      if (this.sandboxPid === undefined) {
        // Killing bwrap now, mid-setup, could leave its child running (its die-with-parent is
        // not armed yet): wait for bwrap to say where its init is, a moment later.
        this.killWanted ??= setTimeout(() => killProcessGroup(this.child.pid!, 'SIGKILL', { groupOnly: this.exitSeen }), INFO_WAIT_MS);
        return;
      }
      // bwrap first (so it is reported killed, not exiting with its child's status), then the
      // sandbox's init, whose death ends every process inside the sandbox
      killProcessGroup(this.child.pid, 'SIGKILL');
      signalPid(this.sandboxPid);
      return;
    }
    // Once the leader is reaped its pid may be reused: then signal the group only, never the pid.
    killProcessGroup(this.child.pid, 'SIGKILL', { groupOnly: this.exitSeen });
  }

  /** The output so far, synchronously (for a live view). */
  snapshot(): { stdout: string; stderr: string; truncated: boolean; omittedBytes: number; exitStatus?: TerminalExit } {
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

  async output(): Promise<TerminalOutput> {
    return this.snapshot();
  }

  /** the exit status once it exited */
  get exit(): TerminalExit | undefined {
    return this.exitStatus;
  }

  waitForExit(): Promise<TerminalExit> {
    return this.exited;
  }

  /** Kill without waiting (the client host answers terminal/kill at once). */
  killNow(): void {
    if (!this.exitStatus) this.killGroup();
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
