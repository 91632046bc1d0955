// The content half of local_fs (read, write, edit, sed) reads and writes through a FileIO:
// workspace-backed (this machine's disk: `cxl run`, `cxl tool`, the TUI's serving side) or
// client-backed (an ACP client's fs/read_text_file and fs/write_text_file). Paths arrive already
// confined; the workspace side closes the check-to-use window at open time.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ToolError } from './errors.ts';
import { isWithin, type ConfinedPath } from './paths.ts';
import { serialised, withFileLock } from './write_lock.ts';

/** What a read returns: the bytes and their hash (computed on first use). */
export interface FileSnapshot {
  bytes: Buffer;
  readonly sha256: string;
}

export interface FileIO {
  readonly kind: 'workspace' | 'client';
  /** Whole content of an existing confined file; `too_large` past `maxBytes`. */
  read(file: ConfinedPath, opts: { maxBytes: number }): Promise<FileSnapshot>;
  /**
   * Replaces or creates `file` with `data` (one Buffer or pieces), but only if its current content
   * still hashes to `expectSha256` (null: it must still not exist); otherwise `stale`, nothing
   * written. `expectBytes`, the content that hash was taken of, lets the check compare bytes.
   */
  write(file: ConfinedPath, data: Buffer | readonly Buffer[], opts: WriteGuard): Promise<void>;
}

export interface WriteGuard {
  expectSha256: string | null;
  expectBytes?: Buffer;
  /**
   * Called once the data is durable in the temp file, before the final check and the rename;
   * throwing aborts the write (the temp file is removed). Lets a caller check while data goes out.
   */
  beforeCommit?: () => void;
  /** the mode an existing file gets (default: its own); a client-backed write cannot set one */
  mode?: number;
}

/** A snapshot whose hash is computed only when first asked for. */
export function snapshot(bytes: Buffer): FileSnapshot {
  let h: string | undefined;
  return {
    bytes,
    get sha256() {
      h ??= sha256(bytes);
      return h;
    },
  };
}

export const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** sha256 of the concatenation of `parts`, without joining them. */
export function sha256Parts(parts: readonly Uint8Array[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
}

const asParts = (d: Buffer | readonly Buffer[]): readonly Buffer[] => (Buffer.isBuffer(d) ? [d] : d);

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL } = fs.constants;
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
function readFd(fd: number, sizeHint: number, max: number, shown: string): Buffer {
  let buf = Buffer.allocUnsafe(Math.max(sizeHint, 1) + 1);
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

/** Direct disk access for the workspace shapes. */
export class WorkspaceFileIO implements FileIO {
  readonly kind = 'workspace' as const;
  readonly #root: string;

  /** `root` is the canonical root every path was confined to. */
  constructor(root: string) {
    this.#root = root;
  }

  async read(file: ConfinedPath, opts: { maxBytes: number }): Promise<FileSnapshot> {
    const checked = fs.lstatSync(file.real, { throwIfNoEntry: false });
    if (!checked) throw notFound(file);
    if (checked.isSymbolicLink()) throw becameLink(file);
    const { fd, st } = openSame(file, checked);
    try {
      if (st.size > opts.maxBytes) throw tooLarge(file.rel, st.size, opts.maxBytes);
      const bytes = readFd(fd, st.size, opts.maxBytes, file.rel);
      return snapshot(bytes);
    } finally {
      fs.closeSync(fd);
    }
  }

  async write(file: ConfinedPath, data: Buffer | readonly Buffer[], opts: WriteGuard): Promise<void> {
    const parts = asParts(data);
    const dir = path.dirname(file.real);
    fs.mkdirSync(dir, { recursive: true });
    // a directory swapped for a symlink while we created parents must not take the write outside
    let realDir: string;
    try {
      realDir = fs.realpathSync.native(dir);
    } catch (err) {
      throw new ToolError('io_error', `Cannot resolve the directory of ${file.rel}: ${(err as Error).message}.`);
    }
    if (realDir !== dir || !isWithin(this.#root, realDir)) {
      throw new ToolError('escape', `The directory of ${file.rel} changed into a link after it was checked; refused.`);
    }
    let mode: number | undefined;
    if (opts.expectSha256 !== null) {
      const st = fs.lstatSync(file.real, { throwIfNoEntry: false });
      if (!st) throw new ToolError('stale', `${file.rel} was deleted since this session read it. Read the path again, then retry.`);
      if (st.isSymbolicLink()) throw becameLink(file);
      if (!st.isFile()) throw new ToolError('not_regular', `${file.rel} is no longer a regular file; refused.`);
      mode = opts.mode ?? st.mode & 0o7777;
    }
    const tmp = path.join(dir, `.${path.basename(file.real)}.cxl-${randomBytes(6).toString('hex')}.tmp`);
    let renamed = false;
    let fd = -1;
    try {
      fd = fs.openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode ?? 0o666);
      if (mode !== undefined) fs.fchmodSync(fd, mode); // the umask must not narrow an existing mode
      // issued before the first await, so the data goes out on a worker thread while the caller
      // (still on this thread) hashes it
      await writeAll(fd, parts);
      await new Promise<void>((res, rej) => fs.fdatasync(fd, (err) => (err ? rej(err) : res()))); // data and size
      fs.closeSync(fd);
      fd = -1;
      opts.beforeCommit?.();
      // the last check and the rename under the path's lock: another writer (this process or
      // another) re-verifies only after this rename, so it sees this version and gets `stale`
      await withFileLock(file.real, file.rel, () => {
        this.#verify(file, opts);
        fs.renameSync(tmp, file.real);
        renamed = true;
      });
      syncDir(dir); // the rename itself
    } finally {
      if (fd !== -1) fs.closeSync(fd);
      if (!renamed) fs.rmSync(tmp, { force: true });
    }
  }

  /** The last look before the rename: the content must still be the version the caller read. */
  #verify(file: ConfinedPath, opts: WriteGuard): void {
    if (opts.expectSha256 === null) {
      if (fs.lstatSync(file.real, { throwIfNoEntry: false })) {
        throw new ToolError('stale', `${file.rel} appeared while it was being written. Read it, then retry.`);
      }
      return;
    }
    const { fd, st } = openChecked(file);
    try {
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
    } finally {
      fs.closeSync(fd);
    }
  }
}

/** Writes all of `parts` at the fd's position; the first vectored write is issued synchronously. */
function writeAll(fd: number, parts: readonly Buffer[]): Promise<void> {
  const writev = (bufs: Buffer[]) => new Promise<number>((res, rej) => fs.writev(fd, bufs, (err, n) => (err ? rej(err) : res(n))));
  const total = parts.reduce((n, p) => n + p.length, 0);
  const first = writev(parts as Buffer[]);
  return (async () => {
    let done = await first;
    // a short vectored write: continue from where it stopped
    while (done < total) {
      let skip = done;
      const rest: Buffer[] = [];
      for (const p of parts) {
        if (skip >= p.length) skip -= p.length;
        else {
          rest.push(skip > 0 ? p.subarray(skip) : p);
          skip = 0;
        }
      }
      done += await writev(rest);
    }
  })();
}

function syncDir(dir: string): void {
  // durability of the rename itself; some platforms cannot fsync a directory, which is fine
  try {
    const fd = fs.openSync(dir, O_RDONLY);
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    /* best effort */
  }
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

/** Content through the client's fs/* methods; paths handed over are the confined absolute ones. */
export class ClientFileIO implements FileIO {
  readonly kind = 'client' as const;
  readonly #client: FsClient;

  constructor(client: FsClient) {
    this.#client = client;
  }

  async read(file: ConfinedPath, opts: { maxBytes: number }): Promise<FileSnapshot> {
    const read = this.#client.readTextFile;
    if (!read) throw new ToolError('capability_missing', 'The connected client does not offer fs.readTextFile, so files cannot be read through it.');
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
