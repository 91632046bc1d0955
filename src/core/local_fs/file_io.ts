// The content half of local_fs (read, write, edit, sed) reads and writes through a FileIO:
// workspace-backed (this machine's disk: `cxl run`, `cxl tool`, the TUI's serving side) or
// client-backed (an ACP client's fs/read_text_file and fs/write_text_file). Paths arrive already
// confined; the workspace side closes the check-to-use window at open time.
import type { Hash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ToolError } from '../errors.ts';
import { nodeCrypto } from '../platform/runtime.ts';
import { isWithin, type ConfinedPath } from '../paths.ts';
import { AtomicFile, syncDir } from '../platform/atomic_file.ts';
import { serialised, withFileLock } from '../platform/write_lock.ts';

/** What a read returns: the bytes and their hash (computed on first use). */
export interface FileSnapshot {
  bytes: Buffer;
  readonly sha256: string;
  /**
   * The sha256 of `parts`, content whose first `shared` bytes are this snapshot's: the hashing
   * of that prefix (done while reading, or now together with `sha256`) is not repeated.
   */
  sha256Of(parts: readonly Uint8Array[], shared: number): string;
  /**
   * The file's identity when it was read, present only when it vouches for `bytes` (see
   * `vouches`); a write's last check then compares identities instead of re-reading the file.
   */
  readonly identity?: FileIdentity;
  /** the temp file a read with `early` began writing (WorkspaceFileIO); hand it to write() or discard it */
  readonly early?: EarlyTemp;
}

/**
 * A temp file beside the one being read, already holding the start of the new content: a big
 * edit's write starts while the file is still being read, so the disk absorbs it during the read
 * instead of all of it after (an fdatasync of 50 MB was ~100 ms, most of an edit).
 */
export interface EarlyTemp {
  /** bytes [0, written) of the content the read's `early` answers describe are in the temp file once `settled` resolves */
  readonly written: number;
  /** every write (and flush) issued so far is done; rejects with the first that failed */
  settled(): Promise<void>;
  /** closes and removes the temp file (no-op once a write() took it over) */
  discard(): void;
}

/** Which inode, of what size, last changed when (nanoseconds as the runtime reports them). */
export interface FileIdentity {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

export interface FileIO {
  readonly kind: 'workspace' | 'client';
  /**
   * Whole content of an existing confined file; `too_large` past `maxBytes`. `hashing`: the
   * caller will want `sha256`, so a big file is hashed while it is read.
   */
  read(file: ConfinedPath, opts: ReadOptions): Promise<FileSnapshot>;
  /**
   * Replaces or creates `file` with `data` (one Buffer or pieces), but only if its current content
   * still hashes to `expectSha256` (null: it must still not exist); otherwise `stale`, nothing
   * written. `expectBytes`, the content that hash was taken of, lets the check compare bytes.
   */
  write(file: ConfinedPath, data: Buffer | readonly Buffer[], opts: WriteGuard): Promise<void>;
  /**
   * Lines `start` to `end` (1-based, inclusive) of a file too big to be read whole this way (the
   * client's fs/read_text_file with line/limit); at most `maxLines` of them. Undefined: the file
   * is read whole (read()) and cut here, which also gives the hash an edit checks against.
   */
  readLines?(file: ConfinedPath, start: number, end: number, maxLines: number): Promise<LinesRead | undefined>;
}

/** Lines a client sent of a file too big for one message: `lines` of them from the start asked. */
export interface LinesRead {
  bytes: Buffer;
  /** how many lines were asked for (fewer than wanted: the caller says where to go on) */
  asked: number;
  /** the file's size on this machine, in bytes */
  size: number;
}

export interface ReadOptions {
  maxBytes: number;
  hashing?: boolean;
  /**
   * For an edit about to be written, asked as the read goes (`bytes[0, len)` read so far): what
   * the new content will likely be. A workspace read of a big file writes that to a temp file as
   * it reads (FileSnapshot.early); other readers ignore it. A guess that proves wrong costs only
   * the rewrite of what followed it: write() keeps what the plan it is given confirms.
   */
  early?: (bytes: Buffer, len: number) => EarlyGuess;
  /**
   * A buffer to read into, given the size the file has at its open (a workspace read without
   * hashing uses it when it fits; the snapshot's bytes are then a view of it).
   */
  into?: (size: number) => Buffer | undefined;
}

/**
 * The new content, as far as an early guess goes: the first `keep` bytes of the file, then (once
 * `replace` is given, fixed from then on) `replace.with` instead of the `replace.length` bytes
 * after them, then the rest of the file.
 */
export interface EarlyGuess {
  keep: number;
  replace?: { with: Buffer; length: number };
}

/** The shape of a planned change (MutationPlan's): new = old[0, changeStart) + new[changeStart, newChangeEnd) + old[oldChangeEnd, ...). */
export interface ChangeShape {
  changeStart: number;
  oldChangeEnd: number;
  newChangeEnd: number;
}

export interface WriteGuard {
  expectSha256: string | null;
  expectBytes?: Buffer;
  /**
   * The identity `expectBytes` were read with (FileSnapshot.identity): while the file still has
   * exactly it, the last check needs no second read; any difference falls back to the bytes.
   */
  expectIdentity?: FileIdentity;
  /**
   * Called once the data is durable in the temp file, before the final check and the rename;
   * throwing aborts the write (the temp file is removed). Lets a caller check while data goes out.
   */
  beforeCommit?: () => void;
  /** the mode the file gets (default: an existing file's own, a new file's from the umask); a client-backed write cannot set one */
  mode?: number;
  /**
   * The snapshot's early temp file (FileSnapshot.early) and the shape of the change `data` makes
   * to the snapshot: the write keeps what of the temp file that shape confirms and continues it.
   */
  early?: { temp: EarlyTemp; change: ChangeShape };
}

/** A hash state after the first `at` bytes of a snapshot. */
interface HashMark {
  at: number;
  state: Hash;
}

/**
 * A snapshot whose hash is computed only when first asked for, or was while reading (`sha`,
 * with `marks` of the hash state at chunk boundaries for sha256Of).
 */
export function snapshot(bytes: Buffer, identity?: FileIdentity, sha?: string, marks: readonly HashMark[] = [], early?: EarlyTemp): FileSnapshot {
  let h = sha;
  return {
    bytes,
    get sha256() {
      h ??= sha256(bytes);
      return h;
    },
    sha256Of(parts, shared) {
      let from: HashMark | undefined;
      for (const m of marks) if (m.at <= shared && (!from || m.at > from.at)) from = m;
      const base = from ? from.state.copy() : nodeCrypto().createHash('sha256');
      base.update(bytes.subarray(from?.at ?? 0, shared));
      // not hashed yet: the prefix is hashed once for both
      if (h === undefined) h = base.copy().update(bytes.subarray(shared)).digest('hex');
      let off = 0;
      for (const p of parts) {
        if (off + p.length > shared) base.update(off >= shared ? p : p.subarray(shared - off));
        off += p.length;
      }
      return base.digest('hex');
    },
    ...(identity ? { identity } : {}),
    ...(early ? { early } : {}),
  };
}

/*
 * What an equal identity (same dev, ino, size, mtime and ctime) guarantees, and what it does not.
 * Every write(2), truncate and first write to a page of a shared mapping sets the inode's mtime
 * and ctime to the clock of that moment; a rename over the path brings another inode; putting
 * the mtime back (touch -r, cp -p) sets the ctime, which POSIX gives no call to set. So a change
 * made after the fstat that precedes the read shows in the identity, unless its timestamps equal
 * those read. That happens when it falls in the same clock tick as the change before the read
 * (file timestamps come from a coarse clock: up to 10 ms on Linux, 15.6 ms on Windows; whole
 * seconds on some file systems; Deno reports mtime in ms and ctime in whole seconds), hence
 * `vouches`: a file whose mtime or ctime is less than RACY_NS (plus that timestamp's resolution)
 * older than the read is "racy" and gets no identity, so its write compares bytes (git's
 * racy-clean rule, with the clock before the stat standing in for the index's mtime).
 * Not seen by an equal identity, and seen by the byte comparison only when they land before it:
 * stores through a shared mapping into pages already dirtied before the read (no new fault, no
 * new timestamp), and one write(2) that began before the read and is still copying data. Both
 * are a writer that ignores the write lock racing the edit; such a writer can as well write
 * between the last check and the rename, which no check closes. The ledger check still compares
 * the bytes read with the version the session read, so a read torn by such a writer is stale.
 */
const RACY_NS = 50_000_000n;

/** Resolution a timestamp seems to have: whole seconds (taken as 2 s, for FAT), milliseconds, or fine. */
const resolution = (t: bigint): bigint => (t % 1_000_000_000n === 0n ? 2_000_000_000n : t % 1_000_000n === 0n ? 1_000_000n : 0n);

/**
 * The identity of a file read right after `st` was taken (`nowMs` read before it), or undefined
 * when it cannot vouch for the `length` bytes read: the size moved, or the last change was too
 * recent for a later one to be told apart by its timestamps.
 */
function vouches(st: fs.BigIntStats, nowMs: number, length: number): FileIdentity | undefined {
  if (st.size !== BigInt(length)) return undefined;
  const settled = BigInt(nowMs) * 1_000_000n - RACY_NS;
  if (st.mtimeNs + resolution(st.mtimeNs) >= settled || st.ctimeNs + resolution(st.ctimeNs) >= settled) return undefined;
  return { dev: st.dev, ino: st.ino, size: st.size, mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs };
}

const sameIdentity = (st: fs.BigIntStats, id: FileIdentity): boolean =>
  st.dev === id.dev && st.ino === id.ino && st.size === id.size && st.mtimeNs === id.mtimeNs && st.ctimeNs === id.ctimeNs;

export const sha256 = (b: Uint8Array): string => nodeCrypto().createHash('sha256').update(b).digest('hex');

/** sha256 of the concatenation of `parts`, without joining them. */
export function sha256Parts(parts: readonly Uint8Array[]): string {
  const h = nodeCrypto().createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
}

const asParts = (d: Buffer | readonly Buffer[]): readonly Buffer[] => (Buffer.isBuffer(d) ? [d] : d);

const { O_RDONLY } = fs.constants;
// O_NOFOLLOW / O_NONBLOCK are absent on Windows; there the identity check below still holds
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

// the refusals more than one path below can give, worded once
const notFound = (f: ConfinedPath) => new ToolError('not_found', `${f.rel} does not exist. Check the path with list_dir or find_files.`);
const becameLink = (f: ConfinedPath) => new ToolError('escape', `${f.rel} became a symlink after it was checked; refused.`);
const isDirectory = (f: ConfinedPath) => new ToolError('is_directory', `${f.rel} is a directory. Use list_dir for directories.`);
const changed = (f: ConfinedPath) => new ToolError('stale', `${f.rel} changed since this session read it. Read it again, then retry against the current text.`);

const tooLarge = (shown: string, size: number, max: number) =>
  new ToolError('too_large', `${shown} is ${size} bytes, over the ${max}-byte read limit. Read it in parts with read_file_range (start_line/end_line), or raise tools_policies.local_fs._max_read_bytes.`, { size, limit: max });

/** Opens an existing regular file for reading without following a final symlink. */
function openChecked(file: ConfinedPath): { fd: number; st: fs.Stats } {
  let fd: number;
  try {
    // NONBLOCK: opening a FIFO swapped in after the check must not hang
    fd = fs.openSync(file.real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') throw becameLink(file);
    if (code === 'ENOENT') throw notFound(file);
    if (code === 'EISDIR') throw isDirectory(file);
    throw new ToolError('io_error', `Cannot open ${file.rel}: ${(err as Error).message}.`);
  }
  const st = fs.fstatSync(fd);
  if (!st.isFile()) {
    fs.closeSync(fd);
    if (st.isDirectory()) throw isDirectory(file);
    throw new ToolError('not_regular', `${file.rel} is not a regular file (a FIFO, socket or device); only regular files are read or written.`);
  }
  return { fd, st };
}

/**
 * Opens a checked regular file; the opened inode must be the one confine() recorded (or, when
 * it recorded none, the one `checked` saw), so nothing swapped in between is read.
 */
export function openSame(file: ConfinedPath, checked: fs.Stats): { fd: number; st: fs.Stats } {
  const opened = openChecked(file);
  const { st } = opened;
  if (st.dev !== (file.dev ?? checked.dev) || st.ino !== (file.ino ?? checked.ino) || checked.ino !== (file.ino ?? checked.ino)) {
    fs.closeSync(opened.fd);
    // a file with no other name, in a directory that is still itself, is another writer's atomic
    // replace, not a link to elsewhere: the content changed under us (refused all the same, but
    // as what it is). Anything else (a parent swapped for a link, a hard link) is an escape.
    if (st.nlink === 1 && st.dev === (file.dev ?? checked.dev) && sameDir(path.dirname(file.real))) {
      throw new ToolError('stale', `${file.rel} was replaced by another writer while it was being opened. Read it again, then retry.`);
    }
    throw new ToolError('escape', `${file.rel} was replaced while it was being opened; refused. Retry.`);
  }
  return opened;
}

/** Whether `dir` still resolves to itself (no component turned into a link). */
function sameDir(dir: string): boolean {
  try {
    return fs.realpathSync.native(dir) === dir;
  } catch {
    return false;
  }
}

/** Reads an open fd to EOF (the size is a hint: the file may grow or shrink meanwhile). */
function readFd(fd: number, sizeHint: number, max: number, shown: string, into?: Buffer): Buffer {
  let buf = into && into.length > sizeHint ? into : Buffer.allocUnsafe(Math.max(sizeHint, 1) + 1);
  let len = 0;
  for (;;) {
    if (len === buf.length) {
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, len);
      buf = bigger;
    }
    const n = fs.readSync(fd, buf, len, buf.length - len, null);
    if (n === 0) break;
    len += n;
    if (len > max) throw tooLarge(shown, len, max);
  }
  return buf.subarray(0, len);
}

/** Files this big are read in chunks on a worker thread, each hashed while the next is read. */
const HASH_WHILE_READING = 4 << 20;
const READ_CHUNK = 1 << 20;

/**
 * readFd for a caller that wants the hash: reads go out one chunk ahead on the thread pool while
 * this thread hashes the chunk before, keeping a copy of the hash state at each boundary.
 */
async function readHashing(fd: number, sizeHint: number, max: number, shown: string, onRead?: (buf: Buffer, len: number) => void): Promise<{ bytes: Buffer; sha: string; marks: HashMark[] }> {
  let buf = Buffer.allocUnsafe(Math.max(sizeHint, 1) + 1);
  let len = 0;
  let hashed = 0;
  const h = nodeCrypto().createHash('sha256');
  const marks: HashMark[] = [];
  for (;;) {
    if (len === buf.length) {
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, len);
      buf = bigger;
    }
    const target = buf;
    const pending = new Promise<number>((res, rej) => fs.read(fd, target, len, Math.min(READ_CHUNK, target.length - len), len, (err, n) => (err ? rej(err) : res(n))));
    if (hashed < len) {
      marks.push({ at: hashed, state: h.copy() });
      h.update(buf.subarray(hashed, len));
      hashed = len;
    }
    const n = await pending;
    if (n === 0) break;
    len += n;
    if (len > max) throw tooLarge(shown, len, max);
    onRead?.(buf, len);
  }
  return { bytes: buf.subarray(0, len), sha: h.digest('hex'), marks };
}

/** Direct disk access for the workspace shapes. */
export class WorkspaceFileIO implements FileIO {
  readonly kind = 'workspace' as const;
  readonly #roots: readonly string[];

  /** `root` is the canonical root every path was confined to; `extra`: the session's additional roots (canonical). */
  constructor(root: string, extra: readonly string[] = []) {
    this.#roots = [root, ...extra];
  }

  async read(file: ConfinedPath, opts: ReadOptions): Promise<FileSnapshot> {
    const checked = fs.lstatSync(file.real, { throwIfNoEntry: false });
    if (!checked) throw notFound(file);
    if (checked.isSymbolicLink()) throw becameLink(file);
    const { fd, st } = openSame(file, checked);
    try {
      if (st.size > opts.maxBytes) throw tooLarge(file.rel, st.size, opts.maxBytes);
      // the clock, then the identity, then the bytes: a change after this stat shows in it
      const nowMs = Date.now();
      const id = fs.fstatSync(fd, { bigint: true });
      if (opts.hashing && st.size >= HASH_WHILE_READING) {
        const early = opts.early ? new SpillingTemp(this.#openTemp(file, st.mode & 0o7777)) : undefined;
        try {
          const offer = opts.early;
          const { bytes, sha, marks } = await readHashing(fd, st.size, opts.maxBytes, file.rel, early && offer ? (buf, len) => early.offer(buf, len, offer(buf, len)) : undefined);
          return snapshot(bytes, vouches(id, nowMs, bytes.length), sha, marks, early);
        } catch (err) {
          early?.discard();
          throw err;
        }
      }
      const bytes = readFd(fd, st.size, opts.maxBytes, file.rel, st.size <= opts.maxBytes ? opts.into?.(st.size + 1) : undefined);
      return snapshot(bytes, vouches(id, nowMs, bytes.length));
    } finally {
      fs.closeSync(fd);
    }
  }

  /** The directory `file` is in, checked to be itself and inside the root (created when missing, unless `create` is false). */
  #checkedDir(file: ConfinedPath, create = true): string {
    const dir = path.dirname(file.real);
    if (create) fs.mkdirSync(dir, { recursive: true });
    // a directory swapped for a symlink while we created parents must not take the write outside
    let realDir: string;
    try {
      realDir = fs.realpathSync.native(dir);
    } catch (err) {
      throw new ToolError('io_error', `Cannot resolve the directory of ${file.rel}: ${(err as Error).message}.`);
    }
    if (realDir !== dir || !this.#roots.some((r) => isWithin(r, realDir))) {
      throw new ToolError('escape', `The directory of ${file.rel} changed into a link after it was checked; refused.`);
    }
    return dir;
  }

  /** A new temp file beside `file` (in its checked directory), with `mode` (undefined: the umask's). */
  #openTemp(file: ConfinedPath, mode: number | undefined): AtomicFile {
    this.#checkedDir(file);
    return AtomicFile.create(file.real, { mode });
  }

  async write(file: ConfinedPath, data: Buffer | readonly Buffer[], opts: WriteGuard): Promise<void> {
    const parts = asParts(data);
    const early = opts.early?.temp instanceof SpillingTemp ? opts.early.temp : undefined;
    let mode: number | undefined;
    try {
      this.#checkedDir(file);
      if (opts.expectSha256 !== null) {
        const st = fs.lstatSync(file.real, { throwIfNoEntry: false });
        if (!st) throw new ToolError('stale', `${file.rel} was deleted since this session read it. Read the path again, then retry.`);
        if (st.isSymbolicLink()) throw becameLink(file);
        if (!st.isFile()) throw new ToolError('not_regular', `${file.rel} is no longer a regular file; refused.`);
        mode = opts.mode ?? st.mode & 0o7777;
      } else mode = opts.mode;
    } catch (err) {
      early?.discard();
      throw err;
    }
    let temp: AtomicFile | undefined;
    let replaced: number | undefined;
    try {
      let from = 0;
      if (early) {
        temp = early.take();
        if (mode !== undefined) temp.setMode(mode);
        await early.settled();
        from = early.confirmed(opts.early!.change, parts);
      } else {
        temp = this.#openTemp(file, mode);
      }
      // the first write is issued before the first await, so the data goes out on a worker
      // thread while the caller (still on this thread) hashes it; an early temp file may hold
      // read bytes past a shorter new content (trimmed)
      await temp.write(parts, { from, trim: early !== undefined });
      await temp.commit({
        beforeRename: opts.beforeCommit,
        // the last check and the rename under the path's lock: another writer (this process or
        // another) re-verifies only after this rename, so it sees this version and gets `stale`
        rename: (move) =>
          withFileLock(file.real, file.rel, () => {
            replaced = this.#verify(file, opts);
            move();
          }),
      });
    } finally {
      // a failed write leaves no temp file (writes of the early read still queued finish first)
      temp?.discard(early?.idle());
      // the replaced version stays open over the rename, so freeing its pages and blocks happens
      // at this close, on a worker thread, not inside the rename the caller waits for
      if (replaced !== undefined) fs.close(replaced, () => {});
    }
  }

  /**
   * Removes `file`, but only while it is still the version the caller read (`expectSha256`, its
   * bytes in `expectBytes`): otherwise `stale`, nothing removed. The same checks as a write: its
   * directory still itself inside the root, the file opened without following a link, compared
   * and unlinked under the path's lock. A restore (checkpoints) removes what a prompt created so.
   */
  async remove(file: ConfinedPath, opts: Pick<WriteGuard, 'expectBytes'> & { expectSha256: string }): Promise<void> {
    this.#checkedDir(file, false);
    await withFileLock(file.real, file.rel, () => {
      const fd = this.#verify(file, opts);
      try {
        fs.unlinkSync(file.real);
      } finally {
        if (fd !== undefined) fs.closeSync(fd);
      }
    });
    syncDir(path.dirname(file.real));
  }

  /**
   * The last look before the rename: the content must still be the version the caller read.
   * Returns the replaced file, still open (the caller closes it).
   */
  #verify(file: ConfinedPath, opts: WriteGuard): number | undefined {
    if (opts.expectSha256 === null) {
      if (fs.lstatSync(file.real, { throwIfNoEntry: false })) {
        throw new ToolError('stale', `${file.rel} appeared while it was being written. Read it, then retry.`);
      }
      return undefined;
    }
    // opened, not just stat'ed: an NFS client revalidates its cached attributes at open
    const { fd, st } = openChecked(file);
    try {
      // still the very inode, size and timestamps the bytes were read with: nothing wrote since
      if (opts.expectIdentity && sameIdentity(fs.fstatSync(fd, { bigint: true }), opts.expectIdentity)) return fd;
      const want = opts.expectBytes;
      if (want) {
        // byte-for-byte against the content whose hash was checked: as strong as re-hashing, cheaper
        if (st.size !== want.length) throw changed(file);
        const buf = Buffer.allocUnsafe(Math.min(1 << 20, Math.max(want.length, 1)));
        let off = 0;
        for (;;) {
          const n = fs.readSync(fd, buf, 0, buf.length, null);
          if (n === 0) break;
          if (off + n > want.length || !buf.subarray(0, n).equals(want.subarray(off, off + n))) throw changed(file);
          off += n;
        }
        if (off !== want.length) throw changed(file);
      } else if (sha256(readFd(fd, st.size, Number.MAX_SAFE_INTEGER, file.rel)) !== opts.expectSha256) {
        throw changed(file);
      }
      return fd;
    } catch (err) {
      fs.closeSync(fd);
      throw err;
    }
  }
}

/** An fdatasync every this many bytes of an early temp file, so the disk starts on them at once. */
const FLUSH_EVERY = 8 << 20;

/**
 * The early temp file of a read (EarlyTemp): the new content as guessed (EarlyGuess) is written
 * in order as the bytes it needs are read, one write at a time on the thread pool, with an
 * fdatasync after every FLUSH_EVERY bytes; the first error is kept for settled(). write() takes
 * the file over; until then discard() removes it.
 */
class SpillingTemp implements EarlyTemp {
  written = 0;
  readonly #temp: AtomicFile;
  #fd: number;
  /** bytes of the file queued (a replaced span counts as queued) and of the new content */
  #oldQueued = 0;
  #newQueued = 0;
  #guess: { keep: number; with: Buffer; length: number } | undefined;
  #flushedAt = 0;
  #chain: Promise<void> = Promise.resolve();
  /** the fdatasync in flight: one at a time, and the writes do not wait for it */
  #flushing: Promise<void> | undefined;
  #error: unknown;
  #taken = false;

  constructor(temp: AtomicFile) {
    this.#temp = temp;
    this.#fd = temp.fd;
  }

  /** `buf[0, len)` is read and `guess` is the latest: queue what it makes final. */
  offer(buf: Buffer, len: number, guess: EarlyGuess): void {
    if (this.#taken || this.#error !== undefined) return;
    if (!this.#guess && guess.replace && guess.keep >= this.#oldQueued && guess.keep + guess.replace.length <= len) {
      this.#guess = { keep: guess.keep, with: guess.replace.with, length: guess.replace.length };
    }
    const g = this.#guess;
    // the unchanged head
    const head = Math.min(g ? g.keep : guess.keep, len);
    if (head > this.#oldQueued) this.#queue(buf.subarray(this.#oldQueued, head), head - this.#oldQueued);
    if (!g) return;
    if (this.#oldQueued === g.keep) {
      this.#queue(g.with, g.length);
    }
    // the file after the replaced span, shifted
    if (len > this.#oldQueued) this.#queue(buf.subarray(this.#oldQueued, len), len - this.#oldQueued);
  }

  /** Queues `bytes` at the new content's end; `consumed` bytes of the file are accounted for. */
  #queue(bytes: Buffer, consumed: number): void {
    const at = this.#newQueued;
    this.#newQueued += bytes.length;
    this.#oldQueued += consumed;
    const end = this.#newQueued;
    const fd = this.#fd;
    const flush = end - this.#flushedAt >= FLUSH_EVERY;
    if (flush) this.#flushedAt = end;
    this.#chain = this.#chain.then(async () => {
      if (this.#error !== undefined) return;
      try {
        let off = 0;
        while (off < bytes.length) off += await new Promise<number>((res, rej) => fs.write(fd, bytes, off, bytes.length - off, at + off, (err, n) => (err ? rej(err) : res(n))));
        this.written = end;
        if (flush && !this.#flushing) {
          this.#flushing = new Promise<void>((res) =>
            fs.fdatasync(fd, (err) => {
              if (err && this.#error === undefined) this.#error = err;
              this.#flushing = undefined;
              res();
            }),
          );
        }
      } catch (err) {
        this.#error = err;
      }
    });
  }

  /**
   * How many leading bytes of `parts` (the planned content, of shape `change`) the temp file
   * holds once settled: all it has when the plan is the guessed replacement, else the unchanged
   * head both share.
   */
  confirmed(change: ChangeShape, parts: readonly Buffer[]): number {
    const g = this.#guess;
    if (g && change.changeStart === g.keep && change.oldChangeEnd === g.keep + g.length && change.newChangeEnd === g.keep + g.with.length && partsEqual(parts, g.keep, g.with)) {
      return this.written;
    }
    return Math.min(this.written, change.changeStart, g ? g.keep : Infinity);
  }

  async settled(): Promise<void> {
    await this.#chain;
    await this.#flushing;
    if (this.#error !== undefined) throw new ToolError('io_error', `Cannot write the temp file: ${(this.#error as Error).message}.`);
  }

  /** Every write (and flush) queued so far has finished, failed or not. */
  idle(): Promise<void> {
    return this.#chain.then(() => this.#flushing);
  }

  /** Hands the open temp file to write(), which commits or discards it. */
  take(): AtomicFile {
    this.#taken = true;
    return this.#temp;
  }

  discard(): void {
    if (this.#taken) return;
    this.#taken = true;
    this.#temp.discard(this.idle());
  }
}

/** Whether the concatenation of `parts` holds `want` at byte `at`. */
function partsEqual(parts: readonly Buffer[], at: number, want: Buffer): boolean {
  let off = 0;
  let i = 0;
  for (const p of parts) {
    const end = off + p.length;
    for (; i < want.length && at + i < end; i++) if (at + i < off || p[at + i - off] !== want[i]) return false;
    off = end;
  }
  return i === want.length;
}

/** The two calls of an ACP client's fs capability (either may be absent). */
export interface FsClient {
  readTextFile?(path: string, line?: number, limit?: number): Promise<string>;
  writeTextFile?(path: string, content: string): Promise<void>;
}

function clientError(err: unknown, file: ConfinedPath, what: string): ToolError {
  if (err instanceof ToolError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  if ((err as NodeJS.ErrnoException)?.code === 'ENOENT' || /not found|no such file|ENOENT/i.test(msg)) {
    return new ToolError('not_found', `${file.rel} does not exist (the client says: ${msg}).`);
  }
  return new ToolError('io_error', `The client could not ${what} ${file.rel}: ${msg}.`);
}

/** What ClientFileIO must know of the connection: the most one message may carry (the SDK's cap). */
export interface ClientFileIOOptions {
  maxMessageBytes: number;
}

/**
 * Files up to this share of the message cap are asked for whole: JSON escaping (quotes, tabs,
 * backslashes, newlines) makes an answer larger than the file (~10% for source code, double for
 * a file of quotes), and the cxl client serves whole files up to the same 16 MiB.
 */
const WHOLE_SHARE = 0.5;

/** The size of `file` on this machine (where the agent runs beside its client), if it can be seen. */
function localSize(file: ConfinedPath): number | undefined {
  try {
    return fs.statSync(file.real).size;
  } catch {
    return undefined;
  }
}

const MiB = 1024 * 1024;

/** A whole file the client cannot send in one message: no edit of it can work through the client. */
export class TooBigForMessage extends ToolError {}

/** A whole file the client cannot send in one message, said before asking it. */
export function tooBigForMessage(rel: string, size: number, maxMessageBytes: number): ToolError {
  return new TooBigForMessage(
    'too_large',
    `${rel} is ${size} bytes (${(size / MiB).toFixed(1)} MiB): too big for the client to send whole in one ACP message (at most ${maxMessageBytes / MiB} MiB). Read it in parts with read_file_range (start_line/end_line); edit_file, sed and write_file need the whole file, so change a file this big with local_shell or in an editor.`,
    { size, limit: maxMessageBytes },
  );
}

/** Content through the client's fs/* methods; paths handed over are the confined absolute ones. */
export class ClientFileIO implements FileIO {
  readonly kind = 'client' as const;
  readonly #client: FsClient;
  /** the largest local size asked for whole */
  readonly #wholeMax: number;
  readonly #maxMessage: number;

  constructor(client: FsClient, o: ClientFileIOOptions = { maxMessageBytes: 32 * MiB }) {
    this.#client = client;
    this.#maxMessage = o.maxMessageBytes;
    this.#wholeMax = Math.floor(o.maxMessageBytes * WHOLE_SHARE);
  }

  async read(file: ConfinedPath, opts: { maxBytes: number }): Promise<FileSnapshot> {
    const read = this.#client.readTextFile;
    if (!read) throw new ToolError('capability_missing', 'The connected client does not offer fs.readTextFile, so files cannot be read through it.');
    // refused before the client is asked: an answer past the cap cannot arrive
    const size = localSize(file);
    if (size !== undefined && size > this.#wholeMax) throw tooBigForMessage(file.rel, size, this.#maxMessage);
    if (size !== undefined && size > opts.maxBytes) throw tooLarge(file.rel, size, opts.maxBytes);
    let text: string;
    try {
      text = await read.call(this.#client, file.real);
    } catch (err) {
      throw clientError(err, file, 'read');
    }
    const bytes = Buffer.from(text, 'utf8');
    if (bytes.length > opts.maxBytes) throw tooLarge(file.rel, bytes.length, opts.maxBytes);
    return snapshot(bytes);
  }

  async readLines(file: ConfinedPath, start: number, end: number, maxLines: number): Promise<LinesRead | undefined> {
    const size = localSize(file);
    if (size === undefined || size <= this.#wholeMax) return undefined;
    const read = this.#client.readTextFile;
    if (!read) throw new ToolError('capability_missing', 'The connected client does not offer fs.readTextFile, so files cannot be read through it.');
    const asked = Math.max(1, Math.min(end - start + 1, maxLines));
    let text: string;
    try {
      text = await read.call(this.#client, file.real, start, asked);
    } catch (err) {
      throw clientError(err, file, 'read');
    }
    return { bytes: Buffer.from(text, 'utf8'), asked, size };
  }

  async write(file: ConfinedPath, data: Buffer | readonly Buffer[], opts: WriteGuard): Promise<void> {
    const write = this.#client.writeTextFile;
    if (!write) throw new ToolError('capability_missing', 'The connected client does not offer fs.writeTextFile, so files cannot be written through it.');
    // the re-check and the write are two requests: every session of this agent writing the path
    // queues here, so none re-checks between another's check and its write
    await serialised(file.real, async () => {
      // the client's view is the truth here (it may hold unsaved edits): re-check through it
      if (opts.expectSha256 !== null) {
        const now = await this.read(file, { maxBytes: Number.MAX_SAFE_INTEGER });
        if (now.sha256 !== opts.expectSha256) throw changed(file);
      } else if (await this.#exists(file)) {
        throw new ToolError('stale', `${file.rel} appeared while it was being written. Read it, then retry.`);
      }
      const parts = asParts(data);
      opts.beforeCommit?.();
      try {
        await write.call(this.#client, file.real, Buffer.concat(parts as Buffer[]).toString('utf8'));
      } catch (err) {
        throw clientError(err, file, 'write');
      }
    });
  }

  /** Whether the client can read `file` now (a new file must still be missing when it is created). */
  async #exists(file: ConfinedPath): Promise<boolean> {
    try {
      await this.read(file, { maxBytes: Number.MAX_SAFE_INTEGER });
      return true;
    } catch (err) {
      if (err instanceof ToolError && err.code === 'not_found') return false;
      throw err;
    }
  }
}
