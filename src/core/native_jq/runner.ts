// Runs one jq program on one input in the jq worker (worker.ts), and ends the worker when the
// deadline passes: a filter that never finishes (`def f: f; f`, `repeat(1)`) is stopped, not
// waited for. One warm worker is kept between calls (starting one costs ~150 ms) and does not
// keep the process alive while idle; after a deadline or a crash the next call starts a new one.
// Calls wait their turn: jq runs one program at a time.
import type { Worker } from 'node:worker_threads';
import { lazyBuiltin } from '../platform/runtime.ts';

/** What the worker (jq_worker.js) is sent and answers. */
export interface JqRequest {
  id: number;
  program: string;
  input: string;
  flags: string[];
}

export type JqReply = { id: number; ok: true; out: string } | { id: number; ok: false; err: string; crashed?: boolean };

const workerThreads = lazyBuiltin<typeof import('node:worker_threads')>('node:worker_threads');

/** The worker's module: beside this source file, or, from a bundle in dist/, in the package's src/ beside it. */
export function workerUrl(): URL {
  const here = import.meta.url;
  return /\/src\/core\/native_jq\/[^/]+$/.test(new URL(here).pathname) ? new URL('./jq_worker.js', here) : new URL('../src/core/native_jq/jq_worker.js', here);
}

export type JqOutcome = { kind: 'done'; out: string } | { kind: 'error'; err: string } | { kind: 'deadline' } | { kind: 'crashed'; err: string };

let worker: Worker | undefined;
let nextId = 1;
let queue: Promise<unknown> = Promise.resolve();

function spawn(): Worker {
  const w = new (workerThreads().Worker)(workerUrl());
  w.unref();
  w.on('error', () => {
    if (worker === w) worker = undefined;
  });
  w.on('exit', () => {
    if (worker === w) worker = undefined;
  });
  return w;
}

function runOnce(program: string, input: string, flags: string[], deadlineMs: number): Promise<JqOutcome> {
  const w = (worker ??= spawn());
  const id = nextId++;
  return new Promise<JqOutcome>((resolve) => {
    const done = (o: JqOutcome) => {
      clearTimeout(timer);
      w.off('message', onMessage);
      w.off('exit', onExit);
      w.unref();
      resolve(o);
    };
    const onMessage = (r: JqReply) => {
      if (r.id !== id) return;
      if (r.ok) return done({ kind: 'done', out: r.out });
      if (r.crashed) {
        // the module is unusable after a trap: this worker is done
        if (worker === w) worker = undefined;
        void w.terminate();
      }
      done(r.crashed ? { kind: 'crashed', err: r.err } : { kind: 'error', err: r.err });
    };
    const onExit = () => done({ kind: 'crashed', err: 'the jq worker ended unexpectedly' });
    const timer = setTimeout(() => {
      if (worker === w) worker = undefined;
      done({ kind: 'deadline' }); // first: ending a worker may say it exited before terminate() returns
      void w.terminate();
    }, deadlineMs);
    w.on('message', onMessage);
    w.on('exit', onExit);
    w.ref();
    w.postMessage({ id, program, input, flags } satisfies JqRequest);
  });
}

/** Runs `program` on `input` with jq's `flags`, stopped after `deadlineMs` (counted from when its turn comes). */
export function runJq(program: string, input: string, flags: string[], deadlineMs: number): Promise<JqOutcome> {
  const turn = queue.then(() => runOnce(program, input, flags, deadlineMs));
  queue = turn.catch(() => undefined);
  return turn;
}

/** Whether a worker is running now (tests: a deadline leaves none behind). */
export function workerAlive(): boolean {
  return worker !== undefined;
}

/** Ends the warm worker, if any. */
export async function stopJqWorker(): Promise<void> {
  const w = worker;
  worker = undefined;
  if (w) await w.terminate();
}
