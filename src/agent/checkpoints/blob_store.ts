// The content a session's checkpoints keep: each version of a file once, named by its sha256,
// under the data dir (`checkpoints/<session id>/ab/cdef…`, mode 0600 in 0700 directories), with
// a cap on what one session may keep. A session's store goes with the session: removed when the
// session is, copied (hard links where the file system allows) when it is forked.
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { nodeCrypto } from '../../core/platform/runtime.ts';

/** One file's content kept at most this big; a bigger one is noted as not kept. */
export const MAX_BLOB_BYTES = 128 * 1024 * 1024;
/** All of one session's kept content. */
export const MAX_SESSION_BYTES = 1024 * 1024 * 1024;

const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;
const HASH = /^[0-9a-f]{64}$/;

export function sha256(data: Uint8Array): string {
  return nodeCrypto().createHash('sha256').update(data).digest('hex');
}

/** Where all sessions' checkpoints live. */
export function checkpointsDir(dataDir: string): string {
  return path.join(dataDir, 'checkpoints');
}

/** What one session's store may keep (the defaults above; smaller in tests). */
export interface BlobLimits {
  blobBytes: number;
  sessionBytes: number;
}

export class BlobStore {
  readonly dir: string;
  readonly limits: BlobLimits;
  /** bytes kept, counted once per process from the directory, then kept up to date */
  #bytes: number | undefined;

  constructor(root: string, sessionId: string, limits: Partial<BlobLimits> = {}) {
    if (!SESSION_ID.test(sessionId)) throw new Error(`invalid session id ${JSON.stringify(sessionId)}`);
    this.dir = path.join(root, sessionId);
    this.limits = { blobBytes: limits.blobBytes ?? MAX_BLOB_BYTES, sessionBytes: limits.sessionBytes ?? MAX_SESSION_BYTES };
  }

  #file(hash: string): string {
    if (!HASH.test(hash)) throw new Error(`not a sha256: ${hash}`);
    return path.join(this.dir, hash.slice(0, 2), hash.slice(2));
  }

  has(hash: string): boolean {
    return fs.existsSync(this.#file(hash));
  }

  /** Whether `hash` is kept as a regular file of `size` bytes (a cut-short or planted one is not). */
  #keptAs(hash: string, size: number): boolean {
    const st = fs.lstatSync(this.#file(hash), { throwIfNoEntry: false });
    return !!st && st.isFile() && st.size === size;
  }

  /** The bytes this session keeps. */
  bytes(): number {
    if (this.#bytes === undefined) {
      let n = 0;
      for (const sub of safeList(this.dir)) for (const f of safeList(path.join(this.dir, sub))) n += fs.statSync(path.join(this.dir, sub, f), { throwIfNoEntry: false })?.size ?? 0;
      this.#bytes = n;
    }
    return this.#bytes;
  }

  /**
   * Keeps `data` under `hash` (its sha256, which the caller knows); a version kept already costs
   * a stat (one of another size, cut short by a crash or a full disk, is written again). Why it
   * was not kept, or undefined once it is. Written whole and synced before it counts (temp file,
   * fdatasync, rename): a power loss leaves it whole or absent, never a short file under its
   * name; a read checks it against its name all the same (read).
   */
  async put(hash: string, data: Uint8Array | readonly Uint8Array[]): Promise<string | undefined> {
    const file = this.#file(hash);
    const size = Array.isArray(data) ? data.reduce((n, d) => n + d.length, 0) : (data as Uint8Array).length;
    if (this.#keptAs(hash, size)) return undefined;
    const { blobBytes, sessionBytes } = this.limits;
    if (size > blobBytes) return `${size} bytes, over the ${blobBytes} a checkpoint keeps of one file`;
    if (this.bytes() + size > sessionBytes) return `${CAP_REACHED}: the session's checkpoints already hold ${this.bytes()} bytes (the cap is ${sessionBytes})`;
    const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      const fh = await fs.promises.open(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | O_NOFOLLOW, 0o600);
      try {
        if (Array.isArray(data)) await fh.writev(data as Uint8Array[]);
        else await fh.writeFile(data as Uint8Array);
        await fh.datasync();
      } finally {
        await fh.close();
      }
      // no fsync of the directory: a rename lost to a power cut leaves the version absent, which a
      // rewind says it cannot restore; the sync above is what keeps a short file from its name
      fs.renameSync(temp, file);
    } catch (err) {
      fs.rmSync(temp, { force: true });
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC' || code === 'EDQUOT') return `${NO_SPACE}: no space left on the device holding ${this.dir} (${code})`;
      return `it could not be written: ${(err as Error).message}`;
    }
    this.#bytes = this.bytes() + size;
    return undefined;
  }

  /** A file's content kept, read and hashed from disk (commands' changes: the caller has no bytes). */
  async putFile(abs: string, maxBytes = this.limits.blobBytes): Promise<{ hash: string } | { why: string }> {
    let data: Buffer;
    try {
      const st = fs.lstatSync(abs);
      if (!st.isFile()) return { why: 'not a regular file' };
      if (st.size > maxBytes) return { why: `${st.size} bytes, over the ${maxBytes} a checkpoint keeps of one file` };
      data = await fs.promises.readFile(abs);
    } catch (err) {
      return { why: `it could not be read: ${(err as Error).message}` };
    }
    const hash = sha256(data);
    const why = await this.put(hash, data);
    return why ? { why } : { hash };
  }

  /** The content kept under `hash`, or undefined when it is gone or is not that content (read). */
  get(hash: string): Buffer | undefined {
    const r = readVerified(this.#file(hash), hash, fs.readFileSync);
    return 'data' in r ? r.data : undefined;
  }

  /**
   * The content kept under `hash`, read off the event loop and checked against its name: a file
   * cut short, emptied, altered, or a link planted under its name (read through O_NOFOLLOW: never
   * followed out of the store) is not content to restore. Why, when it is not.
   */
  async read(hash: string): Promise<{ data: Buffer } | { why: string }> {
    const file = this.#file(hash);
    let data: Buffer;
    try {
      const fh = await fs.promises.open(file, fs.constants.O_RDONLY | O_NOFOLLOW);
      try {
        const st = await fh.stat();
        if (!st.isFile()) return { why: 'its kept content is not a regular file' };
        data = await fh.readFile();
      } finally {
        await fh.close();
      }
    } catch (err) {
      return { why: whyUnread(err) };
    }
    return sha256(data) === hash ? { data } : { why: damagedWhy(data.length) };
  }

  /** Everything of this session's store into `other`'s (a fork): hard links, copies across file systems. */
  copyTo(other: BlobStore): void {
    for (const sub of safeList(this.dir)) {
      fs.mkdirSync(path.join(other.dir, sub), { recursive: true, mode: 0o700 });
      for (const f of safeList(path.join(this.dir, sub))) {
        if (f.endsWith('.tmp')) continue;
        const from = path.join(this.dir, sub, f);
        const to = path.join(other.dir, sub, f);
        if (fs.existsSync(to)) continue;
        try {
          fs.linkSync(from, to);
        } catch {
          fs.copyFileSync(from, to);
        }
      }
    }
    other.#bytes = undefined;
  }

  /** The whole store, gone (the session was deleted). */
  remove(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
    this.#bytes = 0;
  }
}

/** The reasons a content is not kept that a person is told of when they happen (recorder.ts). */
export const CAP_REACHED = "the session's checkpoint cap is reached";
export const NO_SPACE = 'the disk is full';

const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

function whyUnread(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'its kept content is gone from the checkpoint store';
  if (code === 'ELOOP') return 'its kept content was replaced by a symbolic link, which a restore never follows';
  return `its kept content cannot be read (${code ?? (err as Error).message})`;
}

function damagedWhy(size: number): string {
  return size === 0 ? 'its kept content is damaged: emptied (0 bytes)' : `its kept content is damaged: ${size} bytes that are not the version it names (cut short or altered)`;
}

/** A blob read without following a link, checked against its name. */
function readVerified(file: string, hash: string, read: typeof fs.readFileSync): { data: Buffer } | { why: string } {
  let data: Buffer;
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | O_NOFOLLOW);
    try {
      if (!fs.fstatSync(fd).isFile()) return { why: 'its kept content is not a regular file' };
      data = read(fd) as Buffer;
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    return { why: whyUnread(err) };
  }
  return sha256(data) === hash ? { data } : { why: damagedWhy(data.length) };
}

function safeList(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * Removes the stores of sessions that are gone: a directory under `root` whose session has no
 * file in `sessionsDir` (deleted by session/delete, by hand, or never saved). Returns their ids.
 */
export function pruneOrphans(root: string, sessionsDir: string): string[] {
  const gone: string[] = [];
  for (const id of safeList(root)) {
    if (!SESSION_ID.test(id)) continue;
    if (fs.existsSync(path.join(sessionsDir, `${id}.jsonl`)) || fs.existsSync(path.join(sessionsDir, `${id}.json`))) continue;
    fs.rmSync(path.join(root, id), { recursive: true, force: true });
    gone.push(id);
  }
  return gone;
}
