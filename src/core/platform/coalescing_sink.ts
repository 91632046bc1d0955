// Batches writes to a byte stream (stdout of `cxl acp`) per event-loop turn: the chunks written
// during one turn go out joined, as one write, instead of one system call per protocol message
// (a streamed answer is tens of thousands of small messages). Order is kept exactly: one queue,
// written in the order it was filled. Past a high-water mark of bytes queued or handed to the
// target and not yet confirmed by its write callback (which a Node Writable calls once the data
// has left its buffer, i.e. after a drain), a write waits, so a slow reader slows the writer
// instead of filling memory. A failed write fails every later one.
import { setImmediate } from 'node:timers';

/** What the sink writes to: a Node Writable (process.stdout), on Node or Deno. */
export interface ByteTarget {
  write(chunk: string | Uint8Array, cb: (err?: Error | null) => void): unknown;
  on(event: 'error', fn: (err: Error) => void): unknown;
}

export interface CoalescingOptions {
  /** queued plus unconfirmed bytes (characters, for text) past which a write waits; default 64 KiB */
  highWaterMark?: number;
}

export const DEFAULT_HIGH_WATER_MARK = 64 * 1024;

interface Waiter {
  resolve(): void;
  reject(err: Error): void;
}

export class CoalescingSink {
  readonly highWaterMark: number;
  readonly #target: ByteTarget;
  #queue: Array<string | Uint8Array> = [];
  #queued = 0;
  /** handed to the target, its callback not yet called */
  #unconfirmed = 0;
  #scheduled = false;
  #error: Error | undefined;
  /** writes waiting for room */
  #room: Waiter[] = [];
  /** flush() calls waiting for everything to be confirmed */
  #flushed: Waiter[] = [];

  constructor(target: ByteTarget, o: CoalescingOptions = {}) {
    this.#target = target;
    this.highWaterMark = o.highWaterMark ?? DEFAULT_HIGH_WATER_MARK;
    // an EPIPE (the reader went away) arrives as an event too; unheard it would end the process
    target.on('error', (err) => this.#fail(err));
  }

  /** bytes queued or in flight, not yet confirmed by the target */
  get pending(): number {
    return this.#queued + this.#unconfirmed;
  }

  /**
   * Queues `chunk` for the next batch. Resolves at once while under the high-water mark, else once
   * the target has taken enough to be under it again; rejects once a write has failed.
   */
  write(chunk: string | Uint8Array): Promise<void> | undefined {
    if (this.#error) return Promise.reject(this.#error);
    const n = typeof chunk === 'string' ? chunk.length : chunk.byteLength;
    if (n === 0) return undefined;
    this.#queue.push(chunk);
    this.#queued += n;
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        this.#send();
      });
    }
    if (this.pending < this.highWaterMark) return undefined;
    return new Promise<void>((resolve, reject) => this.#room.push({ resolve, reject }));
  }

  /** Resolves once everything written so far has been taken by the target (call before exiting). */
  flush(): Promise<void> {
    if (this.#error) return Promise.reject(this.#error);
    this.#send();
    if (this.pending === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => this.#flushed.push({ resolve, reject }));
  }

  /** The sink as a byte stream; closing it flushes (the target stays open: other views share it). */
  bytes(): WritableStream<Uint8Array> {
    return new WritableStream<Uint8Array>({ write: (c) => this.write(c), close: () => this.flush() });
  }

  /** The sink as a stream of values, each written as one line of JSON (JSON-RPC over stdio). */
  jsonLines<T>(): WritableStream<T> {
    return new WritableStream<T>({ write: (m) => this.write(`${JSON.stringify(m)}\n`), close: () => this.flush() });
  }

  /** Hands the queue to the target as one write. */
  #send(): void {
    if (this.#error || this.#queue.length === 0) return;
    const q = this.#queue;
    const n = this.#queued;
    this.#queue = [];
    this.#queued = 0;
    this.#unconfirmed += n;
    const data = q.length === 1 ? q[0] : q.every((c) => typeof c === 'string') ? q.join('') : joinBytes(q);
    try {
      this.#target.write(data, (err) => {
        if (err) return this.#fail(err);
        this.#unconfirmed -= n;
        this.#settle();
      });
    } catch (err) {
      this.#fail(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Wakes the writes waiting for room and the flushes waiting for the end. */
  #settle(): void {
    if (this.#error) return;
    if (this.pending < this.highWaterMark) for (const w of this.#room.splice(0)) w.resolve();
    if (this.pending === 0) for (const w of this.#flushed.splice(0)) w.resolve();
  }

  #fail(err: Error): void {
    if (this.#error) return;
    this.#error = err;
    this.#queue = [];
    this.#queued = 0;
    for (const w of [...this.#room.splice(0), ...this.#flushed.splice(0)]) w.reject(err);
  }
}

function joinBytes(chunks: Array<string | Uint8Array>): Uint8Array {
  const enc = new TextEncoder();
  const parts = chunks.map((c) => (typeof c === 'string' ? enc.encode(c) : c));
  const out = new Uint8Array(parts.reduce((a, p) => a + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
