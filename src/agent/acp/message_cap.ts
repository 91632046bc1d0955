// One message from the client over the cap an ACP message may carry (the SDK's
// DEFAULT_MAX_MESSAGE_BYTES, 32 MiB) ends only the call it belongs to, not the agent: the SDK's
// own reader errors the whole stream on such a line, and `cxl acp` then ended with exit 0 and
// nothing said. This sits in front of it on stdin, cuts such a line out and puts in its place
// what the SDK should see: the error answer to the agent's request it answered (its id is at the
// line's head or tail), or nothing for a notification. A request from the client that is too big
// is answered with an error here, through `answer`.

import { Buffer } from 'node:buffer';

/** What the filter does with a line over the cap. */
export interface MessageCapOptions {
  maxBytes: number;
  /** writes one JSON-RPC message to the client (an error answer to its oversized request) */
  answer(message: unknown): void;
  log(message: string): void;
}

/** The head and tail kept of a line being cut out, to find its id and method. */
const KEEP = 4096;
const NL = 0x0a;
const MiB = 1024 * 1024;

/** `input` with every line longer than `maxBytes` replaced as the file's head says. */
export function capMessages(input: ReadableStream<Uint8Array>, o: MessageCapOptions): ReadableStream<Uint8Array> {
  const cap = new LineCap(o);
  return input.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform: (chunk, out) => cap.push(chunk, (b) => out.enqueue(b)),
      flush: (out) => cap.end((b) => out.enqueue(b)),
    }),
  );
}

class LineCap {
  /** the start of the current line, while it is within the cap */
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  /** set once the current line passed the cap: its head, its last KEEP bytes, its length */
  #over: { head: Uint8Array; tail: Uint8Array; bytes: number } | undefined;

  constructor(private readonly o: MessageCapOptions) {}

  push(chunk: Uint8Array, emit: (b: Uint8Array) => void): void {
    let at = 0;
    while (at < chunk.length) {
      const nl = chunk.indexOf(NL, at);
      const end = nl === -1 ? chunk.length : nl + 1;
      const piece = chunk.subarray(at, end);
      if (this.#over) this.#grow(piece);
      else if (this.#pendingBytes + piece.length - (nl === -1 ? 0 : 1) > this.o.maxBytes) this.#start(piece);
      else if (nl !== -1 && this.#pendingBytes === 0) emit(piece); // a whole line in one piece: passed as it is
      else {
        this.#pending.push(piece.slice());
        this.#pendingBytes += piece.length;
      }
      if (nl !== -1) this.#lineEnded(emit);
      at = end;
    }
  }

  end(emit: (b: Uint8Array) => void): void {
    this.#lineEnded(emit);
  }

  #start(piece: Uint8Array): void {
    const all = concat([...this.#pending, piece]);
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#over = { head: all.slice(0, KEEP), tail: all.slice(Math.max(0, all.length - KEEP)), bytes: all.length };
  }

  #grow(piece: Uint8Array): void {
    const o = this.#over!;
    o.bytes += piece.length;
    o.tail = piece.length >= KEEP ? piece.slice(piece.length - KEEP) : concat([o.tail, piece]).slice(-KEEP);
  }

  #lineEnded(emit: (b: Uint8Array) => void): void {
    if (this.#over) {
      const o = this.#over;
      this.#over = undefined;
      const line = this.#replace(o);
      if (line) emit(new TextEncoder().encode(`${line}\n`));
      return;
    }
    if (this.#pendingBytes === 0) return;
    emit(concat(this.#pending));
    this.#pending = [];
    this.#pendingBytes = 0;
  }

  /** What the SDK reads instead of an oversized line (undefined: nothing). */
  #replace(o: { head: Uint8Array; tail: Uint8Array; bytes: number }): string | undefined {
    const dec = new TextDecoder();
    const head = dec.decode(o.head);
    const tail = dec.decode(o.tail);
    const id = topLevel(head, tail, 'id');
    const m = topLevel(head, tail, 'method');
    const method = typeof m === 'string' ? m : undefined;
    const size = `${o.bytes} bytes (${(o.bytes / MiB).toFixed(1)} MiB), over the ${this.o.maxBytes / MiB} MiB one ACP message may carry`;
    if (method && id !== undefined) {
      this.o.log(`a ${method} request of ${size}: answered with an error`);
      this.o.answer({ jsonrpc: '2.0', id, error: { code: -32600, message: `The ${method} request was ${size}. Send less in one request.` } });
      return undefined;
    }
    if (method) {
      this.o.log(`a ${method} notification of ${size}: dropped`);
      return undefined;
    }
    if (id === undefined) {
      this.o.log(`a message of ${size} with no id this agent could find: dropped`);
      return undefined;
    }
    // the answer to one of this agent's requests (fs/read_text_file of a big range): that call fails, saying why
    this.o.log(`the client's answer to request ${id} was ${size}: that request failed`);
    return JSON.stringify({
      jsonrpc: '2.0',
      id,
      error: { code: -32603, message: `The client's answer was ${size}, so it was not read. Ask for less: a smaller line range.`, data: { code: 'too_large', size: o.bytes, limit: this.o.maxBytes } },
    });
  }
}

const SCALAR = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;

/**
 * A top-level scalar member (`id`, `method`) of a message known only by its first and last
 * bytes: before its params/result/error at the head, or after them at the tail, where every
 * encoder seen puts them.
 */
function topLevel(head: string, tail: string, key: string): number | string | undefined {
  const body = head.search(/"(?:params|result|error)"\s*:/);
  const lead = new RegExp(`"${key}"\\s*:\\s*${SCALAR}`).exec(body === -1 ? head : head.slice(0, body));
  const last = new RegExp(`"${key}"\\s*:\\s*${SCALAR}\\s*(?:,\\s*"[a-z]+"\\s*:\\s*${SCALAR}\\s*)*\\}\\s*$`).exec(tail);
  const raw = lead?.[1] ?? last?.[1];
  return raw === undefined ? undefined : (JSON.parse(raw) as number | string);
}

function concat(parts: Uint8Array[]): Uint8Array {
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}
