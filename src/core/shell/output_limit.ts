// A byte cap on a stream of output that keeps the head and the tail and drops the middle, without
// ever holding more than the cap (plus one incoming chunk): a 50 MB producer costs the cap, not
// 50 MB. The cut is moved to UTF-8 character boundaries so no character is split.

export const DEFAULT_OUTPUT_LIMIT = 2 * 1024 * 1024;

export interface CappedText {
  text: string;
  /** bytes seen in total */
  totalBytes: number;
  /** bytes dropped from the middle (0 when everything fit) */
  omittedBytes: number;
  truncated: boolean;
}

function isContinuation(b: number): boolean {
  return (b & 0xc0) === 0x80;
}

/** Largest n <= buf.length such that buf[0, n) does not end inside a UTF-8 character. */
function headBoundary(buf: Uint8Array): number {
  let n = buf.length;
  // Walk back over at most 3 continuation bytes to the lead byte and see if its sequence fits.
  let i = n - 1;
  let back = 0;
  while (i >= 0 && back < 3 && isContinuation(buf[i])) {
    i--;
    back++;
  }
  if (i < 0) return n;
  const lead = buf[i];
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  if (i + need > n) n = i;
  return n;
}

/** Smallest n such that buf[n..] starts on a character (skips up to 3 continuation bytes). */
function tailBoundary(buf: Uint8Array): number {
  let n = 0;
  while (n < buf.length && n < 3 && isContinuation(buf[n])) n++;
  return n;
}

export class HeadTailBuffer {
  private readonly headCap: number;
  private readonly tailCap: number;
  private head: Uint8Array[] = [];
  private headLen = 0;
  private tail: Uint8Array[] = [];
  private tailLen = 0;
  private total = 0;

  /** `limit` <= 0 means unlimited. */
  constructor(readonly limit: number = DEFAULT_OUTPUT_LIMIT) {
    this.headCap = limit > 0 ? Math.ceil(limit / 2) : Infinity;
    this.tailCap = limit > 0 ? limit - this.headCap : 0;
  }

  /** bytes currently held (bounded by the limit plus one chunk) */
  get retainedBytes(): number {
    return this.headLen + this.tailLen;
  }

  get totalBytes(): number {
    return this.total;
  }

  push(chunk: Uint8Array): void {
    this.total += chunk.length;
    let c = chunk;
    if (this.headLen < this.headCap) {
      const take = Math.min(c.length, this.headCap - this.headLen);
      this.head.push(c.subarray(0, take));
      this.headLen += take;
      c = c.subarray(take);
    }
    if (c.length === 0 || this.tailCap === 0) return;
    this.tail.push(c);
    this.tailLen += c.length;
    // Drop whole chunks from the front while what remains still covers the tail cap.
    while (this.tail.length > 1 && this.tailLen - this.tail[0].length >= this.tailCap) {
      this.tailLen -= this.tail[0].length;
      this.tail.shift();
    }
    // Keep the array short when chunks are tiny: compact into one chunk of exactly tailCap.
    if (this.tail.length > 64) {
      const joined = concat(this.tail, this.tailLen);
      const keep = joined.subarray(joined.length - Math.min(joined.length, this.tailCap));
      this.tail = [keep];
      this.tailLen = keep.length;
    }
  }

  /** The kept text: everything when it fit, else head + a notice naming the cut + tail. */
  result(): CappedText {
    const head = concat(this.head, this.headLen);
    const dec = new TextDecoder();
    if (this.limit <= 0 || this.total <= this.limit) {
      const all = concat([head, concat(this.tail, this.tailLen)], this.headLen + this.tailLen);
      return { text: dec.decode(all), totalBytes: this.total, omittedBytes: 0, truncated: false };
    }
    let tail = concat(this.tail, this.tailLen);
    if (tail.length > this.tailCap) tail = tail.subarray(tail.length - this.tailCap);
    const h = head.subarray(0, headBoundary(head));
    const t = tail.subarray(tailBoundary(tail));
    const omitted = this.total - h.length - t.length;
    return {
      text: `${dec.decode(h)}\n[... ${omitted} bytes of output cut; showing the first ${h.length} and last ${t.length} bytes ...]\n${dec.decode(t)}`,
      totalBytes: this.total,
      omittedBytes: omitted,
      truncated: true,
    };
  }
}

function concat(parts: Uint8Array[], len: number): Uint8Array {
  if (parts.length === 1 && parts[0].length === len) return parts[0];
  const out = new Uint8Array(len);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Caps an already-assembled string the same way (used for the joined output of several steps). */
export function capText(text: string, limit: number): CappedText {
  const bytes = new TextEncoder().encode(text);
  const b = new HeadTailBuffer(limit);
  b.push(bytes);
  return b.result();
}

/**
 * Bytes kept from the end of a stream, never more than `limit`, cut on a character start: ACP's
 * terminal/* truncates from the beginning. `limit` <= 0 means unlimited.
 */
export class TailBuffer {
  #chunks: Uint8Array[] = [];
  #len = 0;
  #dropped = 0;
  truncated = false;
  constructor(readonly limit: number) {}

  push(chunk: Uint8Array): void {
    this.#chunks.push(chunk);
    this.#len += chunk.length;
    while (this.limit > 0 && this.#len > this.limit) {
      this.truncated = true;
      const over = this.#len - this.limit;
      const first = this.#chunks[0];
      if (first.length <= over) {
        this.#chunks.shift();
        this.#len -= first.length;
        this.#dropped += first.length;
      } else {
        let cut = over;
        while (cut < first.length && isContinuation(first[cut])) cut++;
        this.#chunks[0] = first.subarray(cut);
        this.#len -= cut;
        this.#dropped += cut;
      }
    }
  }

  /** bytes seen in total */
  get totalBytes(): number {
    return this.#dropped + this.#len;
  }

  text(): string {
    const buf = concat(this.#chunks, this.#len);
    const start = this.truncated ? tailBoundary(buf) : 0;
    return new TextDecoder().decode(buf.subarray(start));
  }

  result(): CappedText {
    return { text: this.text(), totalBytes: this.#dropped + this.#len, omittedBytes: this.#dropped, truncated: this.truncated };
  }
}
