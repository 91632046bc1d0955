// Who may run a prompt turn of a session: one process at a time. Several processes may hold one
// session (each appends to its log under the log's lock), but two turns at once would interleave
// their messages and each model would answer a conversation the other is changing. So a turn
// takes the session's lease first: a file `<id>.turn` in the locks directory beside the sessions
// (the sessions directory's own mtime stays the index's), naming the holder's pid and host (and,
// on Linux, when that pid started: a pid the kernel reused for another process is not the holder).
// - Free, or held by a process that is gone (same host, its pid dead or started at another time), or not touched for
//   LEASE_STALE_MS (another host; the holder touches it every LEASE_TOUCH_MS): taken.
// - Held by a live process: refused at once, naming it; the client prompts again once that turn
//   is over (nothing waits behind another process's turn, which may run for hours).
// Inside one process, turns of a session are already one at a time (a new prompt cancels the
// running one); the lease is counted, so the new turn holds it while the old winds down.
// Taking and releasing hold the lease's own write lock (write_lock.ts), so two takers never both win.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { holderAlive, ownStartTime, withFileLock } from '../../core/platform/write_lock.ts';

/** A lease from another host not touched for this long is abandoned. */
export const LEASE_STALE_MS = 5 * 60_000;
const LEASE_TOUCH_MS = 60_000;
const HOST = os.hostname();

export interface LeaseHolder {
  pid: number;
  host: string;
  /** the holder's process start time (write_lock.ts processStartTime), where it can be read */
  start?: string;
  at: string;
}

/** The lease is held by another live process. */
export class TurnHeld extends Error {
  constructor(readonly holder: LeaseHolder) {
    super(`a turn of this session is running in another cxl process (pid ${holder.pid}${holder.host !== HOST ? ` on ${holder.host}` : ''}, since ${holder.at})`);
  }
}

function readHolder(file: string): { holder: LeaseHolder; mtimeMs: number } | undefined {
  try {
    const st = fs.lstatSync(file);
    const holder = JSON.parse(fs.readFileSync(file, 'utf8')) as LeaseHolder;
    if (typeof holder?.pid !== 'number' || typeof holder.host !== 'string') return { holder: { pid: 0, host: '', at: '' }, mtimeMs: 0 };
    return { holder, mtimeMs: st.mtimeMs };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // unreadable or not JSON (a taker killed mid-write): abandoned
    return { holder: { pid: 0, host: '', at: '' }, mtimeMs: 0 };
  }
}

function live(h: { holder: LeaseHolder; mtimeMs: number }): boolean {
  if (h.holder.host === HOST) return h.holder.pid !== process.pid && holderAlive(h.holder.pid, h.holder.start);
  return h.holder.host !== '' && Date.now() - h.mtimeMs < LEASE_STALE_MS;
}

/** One session's lease, as this process holds it (counted: overlapping turns of one session here share it). */
export class TurnLease {
  readonly file: string;
  #count = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #taking: Promise<void> | undefined;

  /** `sessionsDir`: the store's directory; the lease lives in the locks directory beside it. */
  constructor(sessionsDir: string, sessionId: string) {
    this.file = path.join(`${sessionsDir}.locks`, `${sessionId}.turn`);
  }

  /** Takes the lease (or counts one more use of it here); throws TurnHeld when another live process has it. */
  async take(): Promise<void> {
    if (this.#count > 0) {
      this.#count++;
      return;
    }
    this.#taking ??= this.#acquire().finally(() => (this.#taking = undefined));
    await this.#taking;
    this.#count++;
  }

  async #acquire(): Promise<void> {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    await withFileLock(this.file, 'the turn lease', () => {
      const h = readHolder(this.file);
      if (h && live(h)) throw new TurnHeld(h.holder);
      const start = ownStartTime();
      const mine: LeaseHolder = { pid: process.pid, host: HOST, ...(start ? { start } : {}), at: new Date().toISOString() };
      fs.writeFileSync(this.file, JSON.stringify(mine), { mode: 0o600 });
    });
    // another host tells a live lease from an abandoned one by its age
    this.#timer = setInterval(() => {
      const now = new Date();
      try {
        fs.utimesSync(this.file, now, now);
      } catch {
        /* gone: released or broken; the turn goes on */
      }
    }, LEASE_TOUCH_MS);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** One use fewer; the last removes the lease (only if it is still this process's). Never throws. */
  async release(): Promise<void> {
    if (this.#count === 0 || --this.#count > 0) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    await withFileLock(this.file, 'the turn lease', () => {
      const h = readHolder(this.file);
      if (h?.holder.pid === process.pid && h.holder.host === HOST) fs.rmSync(this.file, { force: true });
    }).catch(() => {
      /* left behind: the next taker sees this process gone, or the lease old */
    });
  }

  /** Who holds it now, if anyone live does (for status and tests). */
  holder(): LeaseHolder | undefined {
    const h = readHolder(this.file);
    return h && (live(h) || (h.holder.pid === process.pid && h.holder.host === HOST && this.#count > 0)) ? h.holder : undefined;
  }
}
