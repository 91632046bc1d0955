// Counting newlines and finding a byte string in big Buffers at memory speed. Buffer.indexOf
// pays a call per hit (a newline count over 200,000 lines is 200,000 calls), its substring search
// slows to ~2.5 GB/s on needles of common bytes, and under Deno both run in JavaScript. So a tiny
// WebAssembly SIMD kernel, assembled below from its instructions, scans 16 bytes per step over
// 64 KiB chunks copied into its memory (a copy that stays in cache). Where WebAssembly SIMD is
// missing the Buffer methods are used as before; the answers are the same either way. A file
// read into the arena (borrowScanBuffer, the approval diff's read) is scanned where it lies.

// node:timers: its timers can be unref'd under Deno as well (a global one there is a number)
import { clearTimeout, setTimeout } from 'node:timers';

/** Inputs shorter than this are scanned with the Buffer methods (the copy would not pay). */
const MIN_KERNEL_BYTES = 16 * 1024;
/** Needles longer than this are searched with Buffer.indexOf (long needles skip far there). */
const MAX_NEEDLE = 4096;
/** Bytes copied into the kernel's memory per call. */
const CHUNK = 64 * 1024;
/** Kernel memory: the needle at 0, the chunk (and the needle's overlap and 64 bytes of slack) at DATA. */
const DATA = MAX_NEEDLE;

// ---- the module, in WebAssembly's binary format (spec §5); `0xfd n` are the SIMD instructions
const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};
const sleb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
};
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];

const I32 = 0x7f;
const V128 = 0x7b;
const EMPTY = 0x40;
const get = (i: number) => [0x20, i];
const set = (i: number) => [0x21, i];
const tee = (i: number) => [0x22, i];
const i32 = (n: number) => [0x41, ...sleb(n)];
const block = [0x02, EMPTY];
const loop = [0x03, EMPTY];
const iff = [0x04, EMPTY];
const end = [0x0b];
const br = (d: number) => [0x0c, d];
const brIf = (d: number) => [0x0d, d];
const ret = [0x0f];
const select = [0x1b];
const load8 = [0x2d, 0, 0];
const [eqz, eq, ne, ltS, ltU, gtS, geU] = [[0x45], [0x46], [0x47], [0x48], [0x49], [0x4a], [0x4f]];
const [ctz, add, sub, and] = [[0x68], [0x6a], [0x6b], [0x71]];
const simd = (op: number, ...imm: number[]) => [0xfd, ...uleb(op), ...imm];
const vload = (offset: number) => simd(0x00, 0, ...uleb(offset));
const vzero = simd(0x0c, ...new Array<number>(16).fill(0));
const splat8 = simd(0x0f);
const lane32 = (l: number) => simd(0x1b, l);
const eq8 = simd(0x23);
const vand = simd(0x4e);
const vor = simd(0x50);
const anyTrue = simd(0x53);
const bitmask8 = simd(0x64);
const sub8 = simd(0x71);
const pairs8 = simd(0x7d); // i16x8.extadd_pairwise_i8x16_u
const pairs16 = simd(0x7f); // i32x4.extadd_pairwise_i16x8_u

/** count(p, n): how many bytes of [p, p+n) are '\n'. Locals: 2 end, 3 total, 4 stop, 5 acc, 6 nl. */
const countBody = [
  ...i32(10), ...splat8, ...set(6),
  ...get(0), ...get(1), ...i32(-16), ...and, ...add, ...set(2), // end of the whole 16-byte blocks
  ...block,
  ...loop,
  ...get(0), ...get(2), ...geU, ...brIf(1),
  // up to 255 blocks per round, so no byte lane of acc overflows
  ...get(0), ...i32(255 * 16), ...add, ...tee(4), ...get(2), ...get(4), ...get(2), ...ltU, ...select, ...set(4),
  ...vzero, ...set(5),
  ...loop,
  ...get(5), ...get(0), ...vload(0), ...get(6), ...eq8, ...sub8, ...set(5), // a match is -1: acc - -1
  ...get(0), ...i32(16), ...add, ...tee(0), ...get(4), ...ltU, ...brIf(0),
  ...end,
  ...get(3), ...get(5), ...pairs8, ...pairs16, ...tee(5), ...lane32(0),
  ...get(5), ...lane32(1), ...add, ...get(5), ...lane32(2), ...add, ...get(5), ...lane32(3), ...add,
  ...add, ...set(3),
  ...br(0),
  ...end,
  ...end,
  ...get(2), ...get(1), ...i32(15), ...and, ...add, ...set(2), // the last n % 16 bytes, one by one
  ...block,
  ...loop,
  ...get(0), ...get(2), ...geU, ...brIf(1),
  ...get(3), ...get(0), ...load8, ...i32(10), ...eq, ...add, ...set(3),
  ...get(0), ...i32(1), ...add, ...set(0),
  ...br(0),
  ...end,
  ...end,
  ...get(3),
  ...end,
];

/**
 * find(hay, len, nlen, k1, b1, k2, b2): offset in [hay, hay+len) of the first copy of the needle
 * (nlen bytes at address 0), or -1. Candidates are the offsets i where hay[i+k1] is b1 and
 * hay[i+k2] is b2 (two rare bytes of the needle): 64 offsets are ruled out at a time, and a
 * stretch with a candidate is taken 16 at a time, each candidate compared whole.
 * Locals: 7 last start, 8 i, 9 mask, 10 pos, 11 j, 12 v1, 13 v2, 14 hay+k1, 15 hay+k2,
 * 16 hay+k1+i, 17 hay+k2+i, 18 the 16 offsets being looked at.
 */
const candidates = (off: number) => [...get(16), ...vload(off), ...get(12), ...eq8, ...get(17), ...vload(off), ...get(13), ...eq8, ...vand];
const findBody = [
  ...get(1), ...get(2), ...sub, ...tee(7), ...i32(0), ...ltS, ...iff, ...i32(-1), ...ret, ...end,
  ...get(4), ...splat8, ...set(12),
  ...get(6), ...splat8, ...set(13),
  ...get(0), ...get(3), ...add, ...set(14),
  ...get(0), ...get(5), ...add, ...set(15),
  ...i32(0), ...set(8),
  ...block, // none found
  ...loop, // scan, 64 offsets a round
  ...get(8), ...get(7), ...gtS, ...brIf(1),
  ...get(14), ...get(8), ...add, ...set(16),
  ...get(15), ...get(8), ...add, ...set(17),
  ...candidates(0), ...candidates(16), ...vor, ...candidates(32), ...vor, ...candidates(48), ...vor,
  ...anyTrue, ...eqz, ...iff, ...get(8), ...i32(64), ...add, ...set(8), ...br(1), ...end,
  ...get(8), ...set(18),
  ...block, // the four sixteens done
  ...loop, // each sixteen
  ...get(18), ...get(8), ...i32(64), ...add, ...geU, ...brIf(1),
  ...get(18), ...get(7), ...gtS, ...brIf(3), // past the last start
  ...get(0), ...get(18), ...add, ...get(3), ...add, ...vload(0), ...get(12), ...eq8,
  ...get(0), ...get(18), ...add, ...get(5), ...add, ...vload(0), ...get(13), ...eq8,
  ...vand, ...bitmask8, ...set(9),
  ...block, // next sixteen
  ...loop, // each candidate
  ...get(9), ...eqz, ...brIf(1),
  ...get(18), ...get(9), ...ctz, ...add, ...tee(10), ...get(7), ...gtS, ...brIf(5), // past the last start
  ...i32(0), ...set(11),
  ...block, // mismatch
  ...loop, // compare
  ...get(11), ...get(2), ...geU, ...iff, ...get(10), ...ret, ...end,
  ...get(0), ...get(10), ...add, ...get(11), ...add, ...load8, ...get(11), ...load8, ...ne, ...brIf(1),
  ...get(11), ...i32(1), ...add, ...set(11),
  ...br(0),
  ...end,
  ...end,
  ...get(9), ...get(9), ...i32(1), ...sub, ...and, ...set(9), // the next candidate of the sixteen
  ...br(0),
  ...end,
  ...end,
  ...get(18), ...i32(16), ...add, ...set(18),
  ...br(0),
  ...end,
  ...end,
  ...get(8), ...i32(64), ...add, ...set(8),
  ...br(0),
  ...end,
  ...end,
  ...i32(-1),
  ...end,
];

/** A function body: its locals (count, type) and code, prefixed with its size. */
const func = (locals: number[][], code: number[]) => {
  const body = [...vec(locals), ...code];
  return [...uleb(body.length), ...body];
};
const str = (s: string) => vec([...s].map((c) => [c.charCodeAt(0)]));
const moduleBytes = (): Uint8Array<ArrayBuffer> =>
  new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, ...vec([[I32], [I32]]), ...vec([[I32]])], [0x60, ...vec(new Array(7).fill([I32])), ...vec([[I32]])]])),
    ...section(3, vec([[0], [1]])),
    ...section(5, vec([[0x00, ...uleb(Math.ceil((DATA + CHUNK + MAX_NEEDLE + 64) / 65536))]])),
    ...section(7, vec([[...str('count'), 0x00, 0], [...str('find'), 0x00, 1], [...str('mem'), 0x02, 0]])),
    ...section(10, vec([func([[3, I32], [2, V128]], countBody), func([[5, I32], [2, V128], [5, I32]], findBody)])),
  ]);

interface Kernel {
  mem: Uint8Array;
  count(p: number, n: number): number;
  find(hay: number, len: number, nlen: number, k1: number, b1: number, k2: number, b2: number): number;
}

let kernel: Kernel | null | undefined;
let compiled: WebAssembly.Module | null | undefined;

/** A new instance of the kernel (its own memory), or null where WebAssembly SIMD is missing. */
function instantiate(): (Kernel & { memory: WebAssembly.Memory }) | null {
  try {
    if (compiled === undefined) {
      const bytes = moduleBytes();
      compiled = typeof WebAssembly !== 'undefined' && WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
    }
    if (!compiled) return null;
    const e = new WebAssembly.Instance(compiled).exports as unknown as Omit<Kernel, 'mem'> & { mem: WebAssembly.Memory };
    return { memory: e.mem, mem: new Uint8Array(e.mem.buffer), count: e.count, find: e.find };
  } catch {
    compiled = null;
    return null;
  }
}

/** The instantiated kernel, or null where WebAssembly (with SIMD) is not available. */
function load(): Kernel | null {
  if (kernel === undefined) kernel = instantiate();
  return kernel;
}

// ---- the arena: a kernel instance whose memory holds a whole file, scanned where it lies

/** Files up to this size can be read into the arena; bigger ones get their own Buffer. */
const ARENA_MAX = 64 << 20;
/** The arena's memory is dropped this long after its last use. */
const ARENA_IDLE_MS = 10_000;

interface Arena extends Kernel {
  memory: WebAssembly.Memory;
  busy: boolean;
  idle?: ReturnType<typeof setTimeout>;
}
let arena: Arena | undefined;

/** A borrowed arena buffer: scanned in place by findAll and countNewlines until released. */
export interface ScanLease {
  buf: Buffer;
  release(): void;
}

/**
 * A buffer of at least `size` bytes in the arena, or undefined (in use, too big, no WebAssembly
 * SIMD). findAll and countNewlines scan a Buffer lying there without copying it into the kernel,
 * and reading a file into memory already mapped takes no page faults: a 12 MB read was 0.4 ms
 * there against 0.9 ms into a new Buffer. One holder at a time: what it keeps of the bytes must be
 * copied (decoded) before release().
 */
export function borrowScanBuffer(size: number): ScanLease | undefined {
  if (size > ARENA_MAX || arena?.busy) return undefined;
  const need = DATA + size + MAX_NEEDLE + 64;
  if (!arena) {
    const k = instantiate();
    if (!k) return undefined;
    arena = { ...k, busy: false };
  }
  const a = arena;
  if (a.memory.buffer.byteLength < need) {
    try {
      a.memory.grow(Math.ceil((need - a.memory.buffer.byteLength) / 65536));
    } catch {
      return undefined; // no memory for it: the caller allocates as before
    }
    a.mem = new Uint8Array(a.memory.buffer);
  }
  if (a.idle) clearTimeout(a.idle);
  a.busy = true;
  const buf = Buffer.from(a.memory.buffer, DATA, a.memory.buffer.byteLength - DATA - MAX_NEEDLE - 64);
  let released = false;
  return {
    buf,
    release() {
      if (released) return;
      released = true;
      a.busy = false;
      a.idle = setTimeout(() => {
        if (arena === a && !a.busy) arena = undefined;
      }, ARENA_IDLE_MS).unref();
    },
  };
}

/** The kernel `b` lies in the memory of (the arena's, while borrowed), or null. */
const inArena = (b: Uint8Array): Arena | null => (arena?.busy && b.buffer === arena.memory.buffer ? arena : null);

/** Whether the SIMD kernel runs here (else the Buffer methods do all the work). */
export const kernelAvailable = (): boolean => load() !== null;

/** Number of '\n' bytes in `b`. */
export function countNewlines(b: Uint8Array): number {
  const here = inArena(b);
  if (here) return here.count(b.byteOffset, b.length);
  const k = b.length >= MIN_KERNEL_BYTES ? load() : null;
  if (!k) {
    let n = 0;
    let i = -1;
    const buf = b as Buffer;
    while ((i = buf.indexOf(10, i + 1)) !== -1) n++;
    return n;
  }
  let n = 0;
  for (let off = 0; off < b.length; off += CHUNK) {
    const part = b.subarray(off, Math.min(off + CHUNK, b.length));
    k.mem.set(part, DATA);
    n += k.count(DATA, part.length);
  }
  return n;
}

/**
 * Offsets of the two rarest bytes of `needle` in a sample of `hay[from, to)` (differing bytes
 * when it has two), and the share of offsets the pair would make candidates.
 */
function rareBytes(hay: Uint8Array, needle: Uint8Array, from: number, to: number): [number, number, number] {
  const seen = new Uint32Array(256);
  const span = to - from;
  let sampled = 0;
  for (let s = 0; s < 4; s++) {
    const start = from + Math.floor((span * s) / 4);
    const stop = Math.min(start + 1024, to);
    for (let i = start; i < stop; i++) seen[hay[i]]++;
    sampled += stop - start;
  }
  let k1 = 0;
  for (let k = 1; k < needle.length; k++) if (seen[needle[k]] < seen[needle[k1]]) k1 = k;
  let k2 = -1;
  for (let k = 0; k < needle.length; k++) {
    if (needle[k] === needle[k1]) continue;
    if (k2 === -1 || seen[needle[k]] < seen[needle[k2]]) k2 = k;
  }
  if (k2 === -1) k2 = k1 === 0 ? needle.length - 1 : 0;
  const share = (seen[needle[k1]] / sampled) * (k2 === k1 || needle[k2] === needle[k1] ? 1 : seen[needle[k2]] / sampled);
  return [k1, k2, share];
}

/** Above this share of candidate offsets (a needle of common bytes only) Buffer.indexOf's skips win. */
const MAX_CANDIDATES = 1 / 64;

/**
 * Offsets of non-overlapping copies of `needle` lying wholly in `hay[from, to)`, ascending, at
 * most `limit` of them.
 */
export function findAll(hay: Buffer, needle: Buffer, from = 0, to = hay.length, limit = Infinity): number[] {
  const out: number[] = [];
  const n = needle.length;
  if (n === 0 || limit <= 0) return out;
  const k = n <= MAX_NEEDLE && to - from >= MIN_KERNEL_BYTES ? load() : null;
  const [k1, k2, share] = k ? rareBytes(hay, needle, from, to) : [0, 0, 1];
  if (!k || share > MAX_CANDIDATES) {
    let i = hay.indexOf(needle, from);
    while (i !== -1 && i + n <= to && out.length < limit) {
      out.push(i);
      i = hay.indexOf(needle, i + n);
    }
    return out;
  }
  const here = inArena(hay);
  if (here) {
    here.mem.set(needle, 0);
    const base = hay.byteOffset;
    for (let at = from; at + n <= to && out.length < limit; ) {
      const r = here.find(base + at, to - at, n, k1, needle[k1], k2, needle[k2]);
      if (r === -1) break;
      out.push(at + r);
      at += r + n;
    }
    return out;
  }
  k.mem.set(needle, 0);
  // each round copies the starts [pos, pos + CHUNK) and the n - 1 bytes after them
  let pos = from;
  while (pos + n <= to && out.length < limit) {
    const len = Math.min(CHUNK + n - 1, to - pos);
    k.mem.set(hay.subarray(pos, pos + len), DATA);
    let at = 0;
    for (;;) {
      const r = k.find(DATA + at, len - at, n, k1, needle[k1], k2, needle[k2]);
      if (r === -1 || at + r >= CHUNK) break;
      out.push(pos + at + r);
      if (out.length >= limit) return out;
      at += r + n;
    }
    pos = Math.max(pos + CHUNK, pos + at);
  }
  return out;
}
