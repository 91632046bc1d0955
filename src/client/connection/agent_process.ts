// The agent as a child process: stdio pipes for ACP, stderr kept as its last lines (shown when
// it dies, and in the agent log pane while it runs), its own process group so quitting takes
// down whatever it started.
import { spawn, type ChildProcess } from 'node:child_process';
import { childStreams, killProcessGroup, type DenoChild } from '../../core/platform/runtime.ts';

const isDenoChild = (c: ChildProcess | DenoChild): c is DenoChild => 'status' in c && typeof (c as DenoChild).status?.then === 'function';

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

/** The agent's process as AgentProcess drives it, whichever API spawned it. */
interface AgentChild {
  readonly pid: number | undefined;
  streams(): { input: ReadableStream<Uint8Array>; output: WritableStream<Uint8Array> };
  /** its stdin ended, once what was written to it has gone */
  endStdin(): void;
  running(): boolean;
}

/** A Node ChildProcess (spawned here, or by dist/early_agent.cjs under Node). */
function nodeChild(child: ChildProcess, adopted: boolean, cmd: string, onStderr: (text: string) => void, earlyError: Error | undefined): { child: AgentChild; exit: Promise<AgentExit & { flush?: true }> } {
  if (adopted) {
    // spawned early, unref'd until now (under Deno ref() throws for a process that never started)
    try {
      child.ref();
      for (const pipe of [child.stdin, child.stdout, child.stderr]) (pipe as { ref?(): void } | null)?.ref?.();
    } catch {
      /* its 'error' event says why */
    }
  }
  child.stderr?.setEncoding('utf8').on('data', onStderr);
  // stdout is read from now on, not once the client connects: Node discards the unread stdout of
  // a child that exits (its exit resumes a stream nobody listens to), and what an agent printed
  // before it ended (`echo hello`) is what its exit report shows
  const streams = childStreams(child);
  // A dead agent's stdin must not crash us with EPIPE; the exit is reported instead.
  child.stdin?.on('error', () => {});
  const exit = new Promise<AgentExit & { flush?: true }>((resolve) => {
    const failed = (err: Error) => resolve({ code: null, signal: null, error: err.message, ...((err as NodeJS.ErrnoException).code === 'ENOENT' ? { missing: cmd } : {}) });
    if (earlyError) failed(earlyError);
    child.on('error', failed);
    child.on('close', (code, signal) => resolve({ code, signal: signal ?? null, flush: true }));
  });
  return {
    exit,
    child: {
      pid: child.pid,
      streams: () => streams,
      endStdin: () => child.stdin?.end(),
      running: () => child.exitCode === null && child.signalCode === null,
    },
  };
}

/**
 * A process Deno's own API spawned (src/cli/early_agent.ts, before Deno's Node layer loaded):
 * its web streams as they are; stdin behind a writer held here, so it can be ended while the
 * connection writes to it.
 */
function denoChild(child: DenoChild, onStderr: (text: string) => void): { child: AgentChild; exit: Promise<AgentExit & { flush?: true }> } {
  let done = false;
  child.ref(); // unref'd until now
  const writer = child.stdin.getWriter();
  // a dead agent's stdin fails its writes; the exit is reported instead (an unobserved rejection would end the UI)
  writer.closed.catch(() => {});
  let last: Promise<void> = Promise.resolve();
  const output = new WritableStream<Uint8Array>({
    write: (chunk) => (last = writer.write(chunk)),
    // ended already by endStdin, or the agent gone: nothing left to close
    close: () => writer.close().catch(() => {}),
    abort: (reason) => writer.abort(reason),
  });
  const stderrRead = (async () => {
    try {
      for await (const text of child.stderr.pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)) onStderr(text);
    } catch {
      /* the pipe broke: the exit says why */
    }
  })();
  const exit = child.status.then(async (s) => {
    done = true;
    await stderrRead; // as Node's 'close': its last words are in
    return { code: s.signal ? null : s.code, signal: s.signal, flush: true as const };
  });
  return {
    exit,
    child: {
      pid: child.pid,
      streams: () => ({ input: child.stdout, output }),
      endStdin: () => void last.then(() => writer.close()).catch(() => {}),
      running: () => !done,
    },
  };
}

export class AgentProcess {
  readonly exited: Promise<AgentExit>;
  #child: AgentChild;
  #tail: string[] = [];
  #log: string[] = [];
  #partial = '';
  #onStderr: (lines: string[]) => void;
  #onLog: (lines: string[]) => void;

  /**
   * `adopt`: the same command already spawned this way (pipes, own process group) before this
   * module loaded (src/cli/early_agent.ts): a Node ChildProcess, or under Deno a process of Deno's
   * own API; with the error it reported meanwhile, if any.
   */
  constructor(argv: string[], opts: { cwd: string; env?: Record<string, string | undefined>; onStderr?: (lines: string[]) => void; onLog?: (lines: string[]) => void; adopt?: { child: ChildProcess | DenoChild; error?: Error } }) {
    this.#onStderr = opts.onStderr ?? (() => {});
    this.#onLog = opts.onLog ?? (() => {});
    const [cmd, ...args] = argv;
    const adopted = opts.adopt?.child;
    const onStderr = (d: string) => this.#stderr(d);
    const { child, exit } =
      adopted !== undefined && isDenoChild(adopted)
        ? denoChild(adopted, onStderr)
        : nodeChild(adopted ?? spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true }), adopted !== undefined, cmd, onStderr, opts.adopt?.error);
    this.#child = child;
    this.exited = exit.then(({ flush, ...e }) => {
      if (flush) {
        if (this.#partial) this.#push(this.#partial);
        this.#partial = '';
        this.#onLog(this.log());
      }
      return e;
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
    return this.#child.streams();
  }

  /** The agent's stdin ended (what was written goes first): an agent that reads it ends its session. */
  endStdin(): void {
    try {
      this.#child.endStdin();
    } catch {
      /* already gone */
    }
  }

  /** End the agent and everything in its process group. */
  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.#child.pid && this.#child.running()) killProcessGroup(this.#child.pid, signal);
  }
}
