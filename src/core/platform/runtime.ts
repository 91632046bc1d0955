// The one place that knows whether we run on Node or Deno. Everything else imports from here
// instead of branching on the runtime itself.
import type { SpawnSyncOptions, SpawnSyncOptionsWithStringEncoding, SpawnSyncReturns } from 'node:child_process';
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import process from 'node:process';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { CoalescingSink } from './coalescing_sink.ts';

declare const Deno:
  | {
      execPath(): string;
      lstatSync(p: string): { isFile: boolean; dev: number | null; ino: number | null; nlink: number | null };
    }
  | undefined;

export type RuntimeName = 'node' | 'deno';

export const runtimeName: RuntimeName = typeof Deno !== 'undefined' ? 'deno' : 'node';

type BuiltinLoader = (id: string) => unknown;
// Node ≥ 20.16 and Deno 2 have process.getBuiltinModule; older Node 20 releases require() it
const loadBuiltin: BuiltinLoader =
  typeof (process as { getBuiltinModule?: BuiltinLoader }).getBuiltinModule === 'function'
    ? (id) => (process as unknown as { getBuiltinModule: BuiltinLoader }).getBuiltinModule(id)
    : createRequire(process.execPath);

/**
 * A built-in module loaded on its first use. For the heavy ones a short command may never touch:
 * node:child_process costs ~6 ms and node:crypto ~5 ms of a cold start on Node 20 (`cxl tool
 * stat_file` needs neither). `const cp = lazyBuiltin<typeof import('node:child_process')>('node:child_process')`.
 */
export function lazyBuiltin<T>(id: `node:${string}`): () => T {
  let mod: T | undefined;
  return () => (mod ??= loadBuiltin(id) as T);
}

export const childProcess = lazyBuiltin<typeof import('node:child_process')>('node:child_process');
export const nodeCrypto = lazyBuiltin<typeof import('node:crypto')>('node:crypto');


/**
 * spawnSync with an answer that always says what happened. A program file still open for writing
 * somewhere (a fork in another thread inherited the descriptor between write and close) fails
 * with ETXTBSY for a moment: tried again, a few times, as Go's os/exec does. Deno answers that
 * failure, and a program that ended before reading all of `input`, with an empty object (no
 * status, no error): tried again too, then named (ENOSTATUS) so no caller reads it as an exit.
 * Node answers the second with the exit and EPIPE: the program ran, and its exit is the answer.
 */
export function spawnSyncSettled(file: string, args: readonly string[], options: SpawnSyncOptionsWithStringEncoding): SpawnSyncReturns<string>;
export function spawnSyncSettled(file: string, args: readonly string[], options: SpawnSyncOptions): SpawnSyncReturns<string | Buffer>;
export function spawnSyncSettled(file: string, args: readonly string[], options: SpawnSyncOptions): SpawnSyncReturns<string | Buffer> {
  type SpawnSyncAnswer = SpawnSyncReturns<string | Buffer>;
  for (let attempt = 0; ; attempt++) {
    const r = childProcess().spawnSync(file, args as string[], options) as SpawnSyncAnswer;
    const silent = r.status == null && r.signal == null && !r.error;
    const busy = silent || (r.error as NodeJS.ErrnoException | undefined)?.code === 'ETXTBSY';
    if (busy && attempt < 4) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 * (attempt + 1));
      continue;
    }
    // a program that ended without reading all its input (Node reports EPIPE beside the exit):
    // it ran, and its exit and output say what it did
    if ((r.error as NodeJS.ErrnoException | undefined)?.code === 'EPIPE' && (r.status !== null || r.signal !== null)) return { ...r, error: undefined } as SpawnSyncAnswer;
    if (silent) return { ...r, status: null, signal: null, error: Object.assign(new Error(`spawnSync ${file}: no exit status (the program did not start, as when its file is being written, or ended before reading its input)`), { code: 'ENOSTATUS' }) } as SpawnSyncAnswer;
    return r;
  }
}

/** Path of the binary running this process (node or deno). */
export function runtimeBinary(): string {
  return runtimeName === 'deno' ? Deno!.execPath() : process.execPath;
}

// A bare loader name (`tsx`) is resolved from the child's cwd, which may be any directory:
// hand the child the resolved URL instead.
function absoluteSpecifier(spec: string): string {
  if (/^(?:[./]|file:|data:|node:)/.test(spec)) return spec;
  try {
    return import.meta.resolve(spec);
  } catch {
    return spec;
  }
}

/**
 * argv that starts `entry` (a module URL or path) under the current runtime with the same loader:
 * Deno needs `run -A`; Node keeps its loader flags (`--import tsx`) when running TypeScript.
 */
export function moduleCommand(entry: string): string[] {
  const file = entry.startsWith('file:') ? fileURLToPath(entry) : entry;
  if (runtimeName === 'deno') return [runtimeBinary(), 'run', '-A', '--no-check', file];
  const loader: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if ((a === '--import' || a === '--loader') && i + 1 < argv.length) {
      loader.push(a, absoluteSpecifier(argv[++i]));
    } else if (a.startsWith('--import=') || a.startsWith('--loader=')) {
      const eq = a.indexOf('=');
      loader.push(`${a.slice(0, eq + 1)}${absoluteSpecifier(a.slice(eq + 1))}`);
    }
  }
  return [runtimeBinary(), ...loader, file];
}

/** This process's stdin as a Web Stream. */
export function stdinStream(): ReadableStream<Uint8Array> {
  return Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>;
}

/** This process's stdin/stdout as Web Streams (what the ACP SDK's ndJsonStream takes). */
export function stdioStreams(): { input: ReadableStream<Uint8Array>; output: WritableStream<Uint8Array> } {
  return {
    input: stdinStream(),
    output: Writable.toWeb(process.stdout) as unknown as WritableStream<Uint8Array>,
  };
}

let stdoutStreaming = false;

/**
 * Writes `text` to fd 1 at once, for the short commands that print an answer and exit (`cxl tool`,
 * `cxl check`, `cxl config`): process.stdout on a pipe is a net.Socket, and making it loads net and
 * Node's stream modules, ~20 built-ins of a cold start that nothing else there needs. What a
 * plain write cannot take (a full pipe left non-blocking by whoever made it, a closed reader) goes
 * to process.stdout, as before, and so does every later write, keeping their order.
 */
export function writeStdout(text: string): void {
  if (stdoutStreaming) {
    process.stdout.write(text);
    return;
  }
  const bytes = Buffer.from(text, 'utf8');
  let done = 0;
  try {
    while (done < bytes.length) done += fs.writeSync(1, bytes, done);
  } catch {
    stdoutStreaming = true;
    process.stdout.write(bytes.subarray(done));
  }
}

let stdout: CoalescingSink | undefined;

/**
 * This process's stdout with writes batched per event-loop turn (coalescing_sink.ts). One per
 * process: two would interleave their batches. Flush it before process.exit().
 */
export function stdoutSink(): CoalescingSink {
  stdout ??= new CoalescingSink(process.stdout);
  return stdout;
}

/** A process Deno's own API spawned with piped stdio (a Deno.ChildProcess), as cxl uses one. */
export interface DenoChild {
  readonly pid: number;
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly status: Promise<{ code: number; signal: string | null }>;
  kill(signal?: string): void;
  ref(): void;
  unref(): void;
}

/** A child's pipes as Web Streams. */
export function childStreams(child: { stdin: Writable | null; stdout: Readable | null }): {
  input: ReadableStream<Uint8Array>;
  output: WritableStream<Uint8Array>;
} {
  if (!child.stdin || !child.stdout) throw new Error('child was spawned without piped stdin/stdout');
  return {
    input: Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>,
    output: Writable.toWeb(child.stdin) as unknown as WritableStream<Uint8Array>,
  };
}

/** Signal the whole process group led by `pid` (children were spawned `detached`). */
export function killProcessGroup(pid: number, signal: NodeJS.Signals = 'SIGKILL', opts: { groupOnly?: boolean } = {}): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    // groupOnly: the leader is already reaped and its pid may belong to someone else by now
    if (opts.groupOnly) return false;
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

type GlobalEvents = { addEventListener?(type: string, fn: () => void): void; removeEventListener?(type: string, fn: () => void): void };

/**
 * Run `fn` when the process ends in a way that still runs code: a normal end, process.exit(), an
 * uncaught error. Node emits 'exit' for all three; Deno skips 'exit' after an uncaught error, so
 * there its global error events are watched too (only watched: the error still ends the process).
 * Returns a function that removes the hooks.
 */
export function onProcessEnd(fn: () => void): () => void {
  process.on('exit', fn);
  const g = globalThis as unknown as GlobalEvents;
  const deno = runtimeName === 'deno' && typeof g.addEventListener === 'function';
  if (deno) for (const t of ['error', 'unhandledrejection']) g.addEventListener!(t, fn);
  return () => {
    process.off('exit', fn);
    if (deno) for (const t of ['error', 'unhandledrejection']) g.removeEventListener?.(t, fn);
  };
}

/**
 * Run `handler` on SIGINT, SIGTERM or SIGHUP (the terminal closed: what was started from it must
 * end too, its children included); returns a function that removes it.
 */
export function onTerminate(handler: (signal: NodeJS.Signals) => void): () => void {
  const sigs: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of sigs) process.on(s, handler);
  return () => {
    for (const s of sigs) process.off(s, handler);
  };
}

/** What the hard-link scans need of an lstat (path_identity.ts). */
export interface IdentityStat {
  dev: number;
  ino: number;
  nlink: number;
  file: boolean;
}

/**
 * lstat for the hard-link scans, which stat thousands of files: Deno's own call is several times
 * faster than its node:fs one (and gives the same dev and ino). Undefined when it cannot be read.
 */
export const identityStat: (p: string) => IdentityStat | undefined =
  runtimeName === 'deno'
    ? (p) => {
        try {
          const st = Deno!.lstatSync(p);
          return { dev: st.dev ?? 0, ino: st.ino ?? 0, nlink: st.nlink ?? 1, file: st.isFile };
        } catch {
          return undefined;
        }
      }
    : (p) => {
        try {
          const st = fs.lstatSync(p, { throwIfNoEntry: false });
          return st ? { dev: st.dev, ino: st.ino, nlink: st.nlink, file: st.isFile() } : undefined;
        } catch {
          return undefined;
        }
      };

/** The exit code of a process ended by `signal`, as a shell reports it (128 + its number). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return signal === 'SIGINT' ? 130 : signal === 'SIGHUP' ? 129 : 143;
}
