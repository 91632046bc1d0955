// Git objects read by oid the way git reads them: a loose object's file, or a packed one found by
// a binary search of the pack's .idx and read at its offset (deltas applied). isomorphic-git
// instead parses every pack index whole and reads the whole pack into memory on the first packed
// object of a call: on a 60,000-file repository that alone cost more per file than git's whole
// status. Used by status and diff for HEAD's commit, trees and the few blobs a diff shows; any
// object this reader does not find (an alternate object store, a pack index it does not know)
// is answered null and the caller asks isomorphic-git, so answers never depend on it.
import fs from 'node:fs';
import { setImmediate } from 'node:timers';
import { lazyBuiltin } from '../platform/runtime.ts';

// node:zlib loads Node's stream modules with it: a cold `cxl tool` call that reads no git object
// should not pay for them
const zlib = lazyBuiltin<typeof import('node:zlib')>('node:zlib');

export interface GitObject {
  type: 'commit' | 'tree' | 'blob' | 'tag';
  body: Buffer;
}

const TYPES = [undefined, 'commit', 'tree', 'blob', 'tag'] as const;
const OFS_DELTA = 6;
const REF_DELTA = 7;

interface Pack {
  idx: string;
  pack: string;
  /** objects with a first byte up to each value (the idx's fanout table) */
  fanout: Uint32Array;
  count: number;
}

export class ObjectStore {
  readonly #dir: string;
  #packs?: Pack[];
  /** open pack and index files, closed at the next turn of the event loop (a tree walk reads hundreds of objects in one go) */
  readonly #fds = new Map<string, number>();

  constructor(gitdir: string) {
    this.#dir = `${gitdir}/objects`;
  }

  /** The object, or null when it is not here as this reader knows objects. */
  read(oid: string): GitObject | null {
    try {
      return this.#loose(oid) ?? this.#packed(oid, 0);
    } catch {
      return null;
    }
  }

  #loose(oid: string): GitObject | null {
    let raw: Buffer;
    try {
      raw = zlib().inflateSync(fs.readFileSync(`${this.#dir}/${oid.slice(0, 2)}/${oid.slice(2)}`));
    } catch {
      return null;
    }
    const sp = raw.indexOf(32);
    const nul = raw.indexOf(0, sp);
    const type = raw.toString('latin1', 0, sp);
    if (type !== 'commit' && type !== 'tree' && type !== 'blob' && type !== 'tag') return null;
    return { type, body: raw.subarray(nul + 1) };
  }

  #openPacks(): Pack[] {
    if (this.#packs) return this.#packs;
    this.#packs = [];
    let names: string[];
    try {
      names = fs.readdirSync(`${this.#dir}/pack`);
    } catch {
      return this.#packs;
    }
    for (const name of names) {
      if (!name.endsWith('.idx') || !names.includes(`${name.slice(0, -4)}.pack`)) continue;
      const idx = `${this.#dir}/pack/${name}`;
      const head = Buffer.alloc(8 + 256 * 4);
      if (this.#readAt(idx, head, 0) < head.length) continue;
      // version 2 only (git's default since 2006); a version 1 index is left to isomorphic-git
      if (head.readUInt32BE(0) !== 0xff744f63 || head.readUInt32BE(4) !== 2) continue;
      const fanout = new Uint32Array(256);
      for (let i = 0; i < 256; i++) fanout[i] = head.readUInt32BE(8 + i * 4);
      // a repository is someone else's bytes: a fanout that is not rising, or that counts more
      // objects than the file can hold (oid, crc and offset each), would size reads from a lie
      if (fanout.some((n, i) => i > 0 && n < fanout[i - 1])) continue;
      if (head.length + fanout[255] * 28 > fs.statSync(idx).size) continue;
      this.#packs.push({ idx, pack: `${idx.slice(0, -4)}.pack`, fanout, count: fanout[255] });
    }
    return this.#packs;
  }

  /** Where `oid` is in a pack: its pack and offset. */
  #find(oid: string): { pack: Pack; offset: number } | null {
    const want = Buffer.from(oid, 'hex');
    for (const pack of this.#openPacks()) {
      const first = want[0];
      let lo = first ? pack.fanout[first - 1] : 0;
      let hi = pack.fanout[first];
      if (lo >= hi) continue;
      // the bucket's oids in one read, then a binary search over them
      const names = Buffer.alloc((hi - lo) * 20);
      const at = lo;
      this.#readAt(pack.idx, names, 8 + 1024 + lo * 20);
      lo = 0;
      hi -= at;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const c = names.compare(want, 0, 20, mid * 20, mid * 20 + 20);
        if (c === 0) return { pack, offset: this.#offset(pack, at + mid) };
        if (c > 0) hi = mid;
        else lo = mid + 1;
      }
    }
    return null;
  }

  #offset(pack: Pack, n: number): number {
    const b = Buffer.alloc(8);
    const offsets = 8 + 1024 + pack.count * 24;
    this.#readAt(pack.idx, b.subarray(0, 4), offsets + n * 4);
    const small = b.readUInt32BE(0);
    if (!(small & 0x80000000)) return small;
    this.#readAt(pack.idx, b, offsets + pack.count * 4 + (small & 0x7fffffff) * 8);
    return Number(b.readBigUInt64BE(0));
  }

  #packed(oid: string, depth: number): GitObject | null {
    const at = this.#find(oid);
    return at ? this.#at(at.pack, at.offset, depth) : null;
  }

  /** The object at `offset` in `pack`, its delta chain applied. */
  #at(pack: Pack, offset: number, depth: number): GitObject | null {
    if (depth > 64) return null;
    const head = Buffer.alloc(32);
    this.#readAt(pack.pack, head, offset);
    let i = 0;
    let byte = head[i++];
    const type = (byte >> 4) & 7;
    let size = byte & 15;
    for (let shift = 4; byte & 0x80; shift += 7) {
      byte = head[i++];
      size += (byte & 0x7f) * 2 ** shift;
    }
    let base: GitObject | null = null;
    if (type === OFS_DELTA) {
      byte = head[i++];
      let back = byte & 0x7f;
      while (byte & 0x80) {
        byte = head[i++];
        back = (back + 1) * 128 + (byte & 0x7f);
      }
      base = this.#at(pack, offset - back, depth + 1);
    } else if (type === REF_DELTA) {
      const baseOid = head.toString('hex', i, i + 20);
      i += 20;
      base = this.#loose(baseOid) ?? this.#packed(baseOid, depth + 1);
    } else if (!TYPES[type]) return null;
    const data = this.#inflate(pack, offset + i, size);
    if (type !== OFS_DELTA && type !== REF_DELTA) return { type: TYPES[type]!, body: data };
    return base ? { type: base.type, body: applyDelta(base.body, data) } : null;
  }

  /** Bytes of `file` at `position` into `buf`; how many there were. */
  #readAt(file: string, buf: Buffer, position: number): number {
    let fd = this.#fds.get(file);
    if (fd === undefined) {
      // the store lives as long as its call's cache object, which has no end to hook: the files
      // are held for this synchronous stretch of reads only (opening one per read was ~5 opens an object)
      if (this.#fds.size === 0) setImmediate(() => this.#closeAll()).unref();
      fd = fs.openSync(file, 'r');
      this.#fds.set(file, fd);
    }
    return fs.readSync(fd, buf, 0, buf.length, position);
  }

  #closeAll(): void {
    for (const fd of this.#fds.values()) {
      try {
        fs.closeSync(fd);
      } catch {
        // already closed: nothing held
      }
    }
    this.#fds.clear();
  }

  /** `size` bytes inflated from the zlib stream at `offset` (its compressed length is not stored). */
  #inflate(pack: Pack, offset: number, size: number): Buffer {
    for (let room = size + 64 + (size >> 6); ; room *= 2) {
      const chunk = Buffer.alloc(room);
      const got = this.#readAt(pack.pack, chunk, offset);
      try {
        // zlib stops at the stream's end, so what follows in the pack is left alone
        const out = zlib().inflateSync(chunk.subarray(0, got));
        if (out.length === size) return out;
      } catch (err) {
        if (got < room) throw err;
        continue;
      }
      throw new Error('pack object size mismatch');
    }
  }
}

const stores = new WeakMap<object, ObjectStore>();

/** One store per call (keyed by the call's isomorphic-git cache object), so packs are listed once a call. */
export function objectStore(key: object, gitdir: string): ObjectStore {
  let s = stores.get(key);
  if (!s) stores.set(key, (s = new ObjectStore(gitdir)));
  return s;
}

/** Git's delta format: the base's and the result's sizes, then copies from the base and inserts. */
export function applyDelta(base: Buffer, delta: Buffer): Buffer {
  let i = 0;
  const varint = () => {
    let n = 0;
    let byte: number;
    let shift = 0;
    do {
      byte = delta[i++];
      n += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return n;
  };
  if (varint() !== base.length) throw new Error('delta base size mismatch');
  const size = varint();
  // each op is at least one byte and yields at most the base (a copy) or 127 bytes (an insert):
  // a declared size beyond that is a lie that would allocate gigabytes
  if (size > delta.length * Math.max(base.length, 127)) throw new Error('delta result size beyond what its ops can make');
  const out = Buffer.alloc(size);
  let o = 0;
  while (i < delta.length) {
    const op = delta[i++];
    if (op & 0x80) {
      let off = 0;
      let len = 0;
      for (let b = 0; b < 4; b++) if (op & (1 << b)) off += delta[i++] * 2 ** (8 * b);
      for (let b = 0; b < 3; b++) if (op & (0x10 << b)) len += delta[i++] * 2 ** (8 * b);
      if (len === 0) len = 0x10000;
      o += base.copy(out, o, off, off + len);
    } else if (op) {
      o += delta.copy(out, o, i, i + op);
      i += op;
    } else throw new Error('delta opcode 0');
  }
  if (o !== out.length) throw new Error('delta result size mismatch');
  return out;
}

/** A commit's tree oid and subject (its message's first line). */
export function parseCommit(body: Buffer): { tree: string; subject: string } {
  const text = body.toString('utf8');
  const end = text.indexOf('\n\n');
  const tree = /^tree ([0-9a-f]{40})$/m.exec(end < 0 ? text : text.slice(0, end));
  if (!tree) throw new Error('commit without a tree');
  return { tree: tree[1], subject: end < 0 ? '' : text.slice(end + 2).split('\n')[0] };
}

/** A tree's entries in its order: name, mode (octal text) and oid. */
export function parseTree(body: Buffer): { path: string; mode: string; oid: string }[] {
  const out: { path: string; mode: string; oid: string }[] = [];
  let i = 0;
  while (i < body.length) {
    const sp = body.indexOf(32, i);
    const nul = sp < 0 ? -1 : body.indexOf(0, sp);
    // a cut or crafted tree must not loop or reach outside its entry; a name git's fsck refuses
    // (empty, `.`, `..`, with a slash) is never turned into a path
    if (sp <= i || nul < 0 || nul + 21 > body.length) throw new Error('malformed tree object');
    const path = body.toString('utf8', sp + 1, nul);
    if (path === '' || path === '.' || path === '..' || path.includes('/')) throw new Error(`tree entry with a name git refuses: ${JSON.stringify(path)}`);
    out.push({ mode: body.toString('latin1', i, sp), path, oid: body.toString('hex', nul + 1, nul + 21) });
    i = nul + 21;
  }
  return out;
}
