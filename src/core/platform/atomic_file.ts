// Replacing a file whole, so a reader sees the old content or the new and never a mix, and a crash
// leaves one of the two: the file tools' writes, the session log's compaction, the session index,
// the saved read ledger. Written once because each copy chose its own durability and its own
// clean-up, and a security rule that lives in four places drifts.
//
// The one durability: every byte is written to a temp file beside the target (same directory, so
// the same file system), the temp file is fdatasync'd (its bytes and its size: all a reader of the
// renamed file needs; fsync would also wait for its timestamps), closed, renamed over the target,
// and the directory is fsync'd so the rename itself survives a crash (where the platform can open
// a directory for that: not on Windows; on a journalled file system this also commits the new
// file's mode). A temp file never outlives a failure: whatever step fails (open, mode, write,
// sync, close, the caller's last check, the rename), it is closed and removed before the error
// goes on.
import fs from 'node:fs';
import path from 'node:path';

const { O_WRONLY, O_CREAT, O_EXCL, O_RDONLY } = fs.constants;
// absent on Windows; there a planted link is refused by O_EXCL all the same
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/**
 * The steps only a sick disk makes fail (EIO from a flush, EPERM from a mode change on some
 * network file systems): one object, so a test can make them fail for real in this process.
 */
export const diskSteps = {
  fdatasync: (fd: number, cb: (err: NodeJS.ErrnoException | null) => void): void => fs.fdatasync(fd, cb),
  fdatasyncSync: (fd: number): void => fs.fdatasyncSync(fd),
  fchmodSync: (fd: number, mode: number): void => fs.fchmodSync(fd, mode),
};

export interface AtomicOptions {
  /** the new file's mode, exactly (set on the open file: the umask does not narrow it); default: a new file's (0o666 less the umask) */
  mode?: number;
}

export interface CommitOptions {
  /** runs once the data is durable in the temp file, before the rename; throwing aborts it */
  beforeRename?: () => void;
  /**
   * Wraps the rename (`move` does it): a caller's last check and the rename under its lock.
   * Throwing, or returning without calling `move`, aborts the replace.
   */
  rename?: (move: () => void) => void | Promise<void>;
}

/** The temp file's name beside `target`: hidden, and saying whose it is. */
function tempName(target: string): string {
  const suffix = Math.floor(Math.random() * 2 ** 48)
    .toString(16)
    .padStart(12, '0');
  return path.join(path.dirname(target), `.${path.basename(target)}.cxl-${suffix}.tmp`);
}

function removeQuietly(p: string): void {
  try {
    fs.rmSync(p, { force: true });
  } catch {
    /* already gone, or not removable now; the caller's error is the one that matters */
  }
}

/** fsync of a directory, where the platform allows one (the rename itself becomes durable). */
export function syncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, O_RDONLY);
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    /* Windows cannot open a directory for this; nothing more can be done there */
  }
}

/**
 * A temp file that will replace `target`: write into it (here, or through `fd` at offsets), then
 * commit() or discard(). Each step that fails discards it before it throws; a caller that gives
 * up between steps (its own check refused) calls discard(). A caller that begins writing before
 * it knows it will commit (the file tools start a big edit's write while still reading) holds one
 * open across both.
 */
export class AtomicFile {
  readonly target: string;
  readonly tmp: string;
  #fd: number;
  #mode: number | undefined;
  #state: 'open' | 'closed' | 'renamed' | 'discarded' = 'open';

  private constructor(target: string, tmp: string, fd: number, mode: number | undefined) {
    this.target = target;
    this.tmp = tmp;
    this.#fd = fd;
    this.#mode = mode;
  }

  /** Creates the temp file beside `target` (never following a link planted in its name). */
  static create(target: string, o: AtomicOptions = {}): AtomicFile {
    let fd = -1;
    let tmp = '';
    for (let attempt = 0; fd === -1; attempt++) {
      tmp = tempName(target);
      try {
        fd = fs.openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, o.mode ?? 0o666);
      } catch (err) {
        // a name taken (by chance, or planted): another one; anything else is the caller's to hear
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 8) throw err;
      }
    }
    const file = new AtomicFile(target, tmp, fd, undefined);
    if (o.mode !== undefined) file.setMode(o.mode);
    return file;
  }

  /** The open temp file, for writes at offsets by the caller (-1 once closed). */
  get fd(): number {
    return this.#fd;
  }

  /** The mode set on it (undefined: a new file's). */
  get mode(): number | undefined {
    return this.#mode;
  }

  /** Sets the temp file's mode exactly (the target's, kept across the replace). */
  setMode(mode: number): void {
    if (mode === this.#mode) return;
    this.#orDiscard(() => diskSteps.fchmodSync(this.#fd, mode));
    this.#mode = mode;
  }

  /** Writes all of `data` from the start (a fresh temp file). */
  writeSync(data: string | Uint8Array): void {
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    this.#orDiscard(() => {
      let done = 0;
      while (done < buf.length) done += fs.writeSync(this.#fd, buf, done, buf.length - done);
    });
  }

  /**
   * Writes `parts` from byte `from` of their concatenation on, at that offset of the file (what is
   * before it is there already); `trim` cuts off whatever the file held past their end. The first
   * vectored write is issued before this returns, so the data goes out on a worker thread while
   * the caller goes on. Resolves with the concatenation's length.
   */
  write(parts: readonly Buffer[], o: { from?: number; trim?: boolean } = {}): Promise<number> {
    const fd = this.#fd;
    const from = o.from ?? 0;
    const writev = (bufs: Buffer[], at: number) => new Promise<number>((res, rej) => fs.writev(fd, bufs, at, (err, n) => (err ? rej(err) : res(n))));
    const total = parts.reduce((n, p) => n + p.length, 0);
    const rest = (skip: number): Buffer[] => {
      const out: Buffer[] = [];
      for (const p of parts) {
        if (skip >= p.length) skip -= p.length;
        else {
          out.push(skip > 0 ? p.subarray(skip) : p);
          skip = 0;
        }
      }
      return out;
    };
    const first = from < total ? writev(rest(from), from) : Promise.resolve(0);
    return (async () => {
      try {
        let done = from + (await first);
        // a short vectored write: continue from where it stopped
        while (done < total) done += await writev(rest(done), done);
        if (o.trim) fs.ftruncateSync(fd, total);
        return total;
      } catch (err) {
        this.discard();
        throw err;
      }
    })();
  }

  /** Makes the data durable, renames the temp file over the target, syncs the directory. */
  async commit(o: CommitOptions = {}): Promise<void> {
    try {
      const fd = this.#fd;
      await new Promise<void>((res, rej) => diskSteps.fdatasync(fd, (err) => (err ? rej(err) : res())));
      this.#close();
      o.beforeRename?.();
      if (o.rename) await o.rename(() => this.#rename());
      else this.#rename();
      this.#renamed();
    } catch (err) {
      this.discard();
      throw err;
    }
    syncDir(path.dirname(this.target));
  }

  /** commit() for callers that cannot wait (a rename wrapper must then not either). */
  commitSync(o: { beforeRename?: () => void; rename?: (move: () => void) => void } = {}): void {
    try {
      diskSteps.fdatasyncSync(this.#fd);
      this.#close();
      o.beforeRename?.();
      if (o.rename) o.rename(() => this.#rename());
      else this.#rename();
      this.#renamed();
    } catch (err) {
      this.discard();
      throw err;
    }
    syncDir(path.dirname(this.target));
  }

  /**
   * Closes and removes the temp file (nothing once committed). `after`: writes of the caller's
   * still in flight on `fd`; the name goes now, the descriptor once they settle, so none of them
   * lands on a closed (or reused) descriptor.
   */
  discard(after?: Promise<unknown>): void {
    if (this.#state === 'renamed' || this.#state === 'discarded') return;
    this.#state = 'discarded';
    const fd = this.#fd;
    this.#fd = -1;
    removeQuietly(this.tmp); // gone from the directory now, where an open file can be unlinked
    if (fd === -1) return;
    const close = () => {
      try {
        fs.closeSync(fd);
      } catch {
        /* closing is all that was left to do */
      }
      removeQuietly(this.tmp); // where it could not be unlinked while open
    };
    if (after) void after.then(close, close);
    else close();
  }

  /** Runs a step; a step that fails takes the temp file with it. */
  #orDiscard(step: () => void): void {
    try {
      step();
    } catch (err) {
      this.discard();
      throw err;
    }
  }

  #close(): void {
    const fd = this.#fd;
    this.#fd = -1;
    this.#state = 'closed';
    fs.closeSync(fd);
  }

  #rename(): void {
    if (this.#state !== 'closed') throw new Error(`the temp file of ${this.target} is ${this.#state}, not ready to rename`);
    fs.renameSync(this.tmp, this.target);
    this.#state = 'renamed';
  }

  /** A rename wrapper that returned without renaming (its check refused silently): aborted. */
  #renamed(): void {
    if (this.#state !== 'renamed') throw new Error(`${this.target} was not replaced: the rename step returned without renaming`);
  }
}

/** Replaces `target` with `data` (the whole sequence, for callers that have all of it at hand). */
export function replaceFileSync(target: string, data: string | Uint8Array, o: AtomicOptions = {}): void {
  const file = AtomicFile.create(target, o);
  file.writeSync(data);
  file.commitSync();
}
