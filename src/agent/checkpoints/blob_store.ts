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
   * a stat. Why it was not kept, or undefined once it is. Written whole (temp file, rename), not
   * synced: a crash loses a checkpoint at worst, never the workspace.
   */
  async put(hash: string, data: Uint8Array | readonly Uint8Array[]): Promise<string | undefined> {
    const file = this.#file(hash);
    if (fs.existsSync(file)) return undefined;
    const size = Array.isArray(data) ? data.reduce((n, d) => n + d.length, 0) : (data as Uint8Array).length;
    const { blobBytes, sessionBytes } = this.limits;
    if (size > blobBytes) return `${size} bytes, over the ${blobBytes} a checkpoint keeps of one file`;
    if (this.bytes() + size > sessionBytes) return `the session's checkpoints already hold ${this.bytes()} bytes (the cap is ${sessionBytes})`;
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      const fh = await fs.promises.open(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
      try {
        if (Array.isArray(data)) await fh.writev(data as Uint8Array[]);
        else await fh.writeFile(data as Uint8Array);
      } finally {
        await fh.close();
      }
      fs.renameSync(temp, file);
    } catch (err) {
      fs.rmSync(temp, { force: true });
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

  /** The content kept under `hash`, or undefined when it is gone. */
  get(hash: string): Buffer | undefined {
    try {
      return fs.readFileSync(this.#file(hash));
    } catch {
      return undefined;
    }
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
