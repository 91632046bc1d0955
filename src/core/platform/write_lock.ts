// One writer at a time per real path. Without it, two writers that both re-verified the same old
// version both "succeed" and one update is silently lost. Inside a process, writers of a path
// queue behind each other; across processes, the workspace side also holds a lock file beside the
// target (created exclusively, removed after the rename), so the second writer re-verifies only
// after the first has renamed and gets `stale` instead of overwriting. A lock file left by a
// process that died is recovered: its pid is gone (same host), or it is older than any real write.
// A holder file (`<lock>.<pid>.<n>.new`) left by a writer killed before it was linked and removed
// is swept on a later acquire in that directory once its pid is dead.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { ToolError } from '../errors.ts';

const queues = new Map<string, Promise<void>>();

/** Runs `fn` after every earlier call for the same `key` in this process has finished. */
export async function serialised<T>(key: string, fn: () => T | Promise<T>): Promise<T> {
  const prev = queues.get(key);
  let done!: () => void;
  const mine = new Promise<void>((r) => (done = r));
  const tail = prev ? prev.then(() => mine) : mine;
  queues.set(key, tail);
  if (prev) await prev;
  try {
    return await fn();
  } finally {
    done();
    if (queues.get(key) === tail) queues.delete(key);
  }
}

/** A lock file older than this is abandoned whoever wrote it: a real write holds it for milliseconds. */
export const STALE_LOCK_MS = 10_000;
/** How long a writer waits for another one's lock before giving up. */
export const LOCK_WAIT_MS = 15_000;

const { O_WRONLY, O_CREAT, O_EXCL } = fs.constants;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const HOST = os.hostname();

/** The lock file that guards `target` (beside it, hidden, so it is on the same file system). */
export function lockFileOf(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.cxl-lock`);
}

/** Whether a process of this pid exists on this host (signal 0; EPERM: it exists, owned by someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, owned by someone else
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * When process `pid` started, as Linux counts it (clock ticks since boot: field 22 of
 * /proc/<pid>/stat), or undefined where that cannot be read (another system, or the process is
 * gone). With the pid it names one process: a pid the kernel reused names another.
 */
export function processStartTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // field 2, the command, is in parentheses and may hold spaces and ')': count after the last ')'
  const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[22 - 3];
  return start && /^\d+$/.test(start) ? start : undefined;
}

let ownStart: string | undefined | null = null;
/** This process's start time (read once). */
export function ownStartTime(): string | undefined {
  if (ownStart === null) ownStart = processStartTime(process.pid);
  return ownStart;
}

/**
 * Whether the process that recorded `pid` (and `start`, its processStartTime then) still runs:
 * its pid is alive and, where start times can be read, it started when it said (a dead holder's
 * pid reused by a new process is not the holder).
 */
export function holderAlive(pid: number, start?: unknown): boolean {
  if (!processAlive(pid)) return false;
  // a record without a readable start (another system, an older cxl) is judged by its pid alone
  if (typeof start !== 'string') return true;
  const now = processStartTime(pid);
  return now === undefined || now === start;
}

interface Holder {
  pid?: number;
  host?: string;
  /** processStartTime of pid when it took the lock, where it can be read */
  start?: string;
}

function readHolder(file: string): { holder: Holder; ageMs: number } | undefined {
  let st: fs.Stats | undefined;
  let text = '';
  try {
    st = fs.lstatSync(file);
    // never read through a link or block on a FIFO planted under the lock's name: not ours, so abandoned
    if (!st.isFile()) return { holder: {}, ageMs: Infinity };
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined; // gone meanwhile: free
  }
  let holder: Holder = {};
  try {
    holder = JSON.parse(text) as Holder;
  } catch {
    // empty: its writer is between create and write, or died there; only age can tell
  }
  return { holder, ageMs: Date.now() - st.mtimeMs };
}

function isStale(h: { holder: Holder; ageMs: number }): boolean {
  if (h.ageMs > STALE_LOCK_MS) return true;
  const { pid, host } = h.holder;
  // our own pid: this process's writers of the path queue, so none holds it now (a dead namesake did)
  return typeof pid === 'number' && host === HOST && (pid === process.pid || !holderAlive(pid, h.holder.start));
}

function tryCreate(file: string): boolean {
  // The holder is written to a file of its own, then linked under the lock's name: the lock is
  // never seen empty, so one whose writer was killed is known dead by its pid at once, not by
  // its age (10 s). A filesystem without hard links gets the plain exclusive create.
  const own = `${file}.${process.pid}.${++ownSeq}.new`;
  createWithHolder(own);
  try {
    fs.linkSync(own, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') return tryCreateExclusive(file);
    throw err;
  } finally {
    fs.rmSync(own, { force: true });
  }
}

let ownSeq = 0;

function createWithHolder(file: string): void {
  const fd = fs.openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  try {
    const start = ownStartTime();
    fs.writeSync(fd, JSON.stringify({ pid: process.pid, host: HOST, ...(start ? { start } : {}), at: new Date().toISOString() }));
  } catch (err) {
    // a full disk (ENOSPC) fails the write after the create: nothing is left behind
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
    throw err;
  }
  fs.closeSync(fd);
}

function tryCreateExclusive(file: string): boolean {
  try {
    createWithHolder(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  return true;
}

/**
 * Removes an abandoned lock. Breakers take a second exclusive file first and look again under
 * it, so two of them can never both remove a lock (the second would remove the first's new one).
 */
function breakStale(file: string): boolean {
  const breaker = `${file}.break`;
  if (!tryCreate(breaker)) {
    const b = readHolder(breaker);
    if (b && isStale(b)) fs.rmSync(breaker, { force: true });
    return false;
  }
  try {
    const h = readHolder(file);
    if (h && isStale(h)) {
      fs.rmSync(file, { force: true });
      return true;
    }
    return false;
  } finally {
    fs.rmSync(breaker, { force: true });
  }
}

/** An empty holder file older than this is not being written any more. */
const EMPTY_HOLDER_MS = 1000;

/** When each directory was last swept of dead writers' holder files (by this process). */
const swept = new Map<string, number>();

/**
 * Removes the `.new` holder files of `file` (and of its breaker) whose writer is dead: killed
 * between writing one and linking it, nothing else would ever remove it. Listing the directory
 * costs its size, so it is done once per directory per STALE_LOCK_MS, not on every write.
 */
export function sweepHolderFiles(file: string, now = Date.now()): void {
  const dir = path.dirname(file);
  const last = swept.get(dir);
  if (last !== undefined && now - last < STALE_LOCK_MS) return;
  swept.set(dir, now);
  const base = path.basename(file);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return; // unreadable: the acquire itself says what is wrong
  }
  for (const name of names) {
    if (!name.startsWith(`${base}.`) || !name.endsWith('.new')) continue;
    const m = /^(?:\.break)?\.(\d+)\.\d+\.new$/.exec(name.slice(base.length));
    if (!m) continue;
    const h = readHolder(path.join(dir, name));
    if (!h) continue;
    // the content says whose it is; an empty one (killed between create and write, a common
    // spot) is taken as this host's once older than a writer's create-to-write gap could be
    // (another host's writer on a shared file system has that long); another host's by its age
    const pid = Number(m[1]);
    const ours = h.holder.pid === undefined ? h.ageMs > EMPTY_HOLDER_MS : h.holder.pid === pid && h.holder.host === HOST;
    const dead = ours ? pid !== process.pid && !holderAlive(pid, h.holder.start) : h.ageMs > STALE_LOCK_MS;
    if (dead) fs.rmSync(path.join(dir, name), { force: true });
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Holds the lock file of `target` while `fn` runs (and this process's queue for it). `shown` names
 * the file in messages. Waits for another holder up to LOCK_WAIT_MS, then refuses with `timeout`.
 */
export async function withFileLock<T>(target: string, shown: string, fn: () => T | Promise<T>): Promise<T> {
  return serialised(target, async () => {
    const file = lockFileOf(target);
    sweepHolderFiles(file);
    const deadline = Date.now() + LOCK_WAIT_MS;
    let pause = 1;
    while (!tryCreate(file)) {
      const h = readHolder(file);
      // broken: try again at once; not broken (another breaker is at it, or its own file is
      // young): wait like any other holder, never a synchronous spin that blocks this process
      if (h && isStale(h) && breakStale(file)) continue;
      if (Date.now() > deadline) {
        const who = h?.holder.pid ? ` (pid ${h.holder.pid}${h.holder.host && h.holder.host !== HOST ? ` on ${h.holder.host}` : ''})` : '';
        throw new ToolError('timeout', `${shown} is being written by another process${who}: its lock ${path.basename(file)} was held for over ${LOCK_WAIT_MS / 1000}s. Retry; if no other cxl is running, delete that file.`);
      }
      await sleep(pause);
      pause = Math.min(pause * 2, 20);
    }
    try {
      return await fn();
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
}
