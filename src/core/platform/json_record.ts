// One discipline for every small JSON record cxl keeps (the trust store, a mission's record):
// a change is a read-modify-write under the record's lock file (write_lock.ts), so two processes
// never lose each other's change; it is written whole (atomic_file.ts: temp file, fdatasync,
// rename, fsync of the directory), so a crash leaves the old record or the new one; a record that
// does not parse, or is not the shape its reader expects, is never read as empty and never
// silently replaced: it is reported with its path, and a writer that may start afresh moves it
// aside first (`<name>.damaged-<time>`), so nothing in it is lost. Errors from the disk (full,
// read-only, no permission) are said in words with the path, never as a stack trace.
import fs from 'node:fs';
import path from 'node:path';
import { ToolError } from '../errors.ts';
import { replaceFileSync } from './atomic_file.ts';
import { withFileLock } from './write_lock.ts';

/** The record as its reader expects it, or why it is not one (a sentence). */
export type Validate<T> = (value: unknown) => T | { damaged: string };

/** The errno codes a disk or its permissions give, in words, with what to do next. */
export function diskErrorMessage(err: unknown, shown: string): string | undefined {
  const e = err as NodeJS.ErrnoException | undefined;
  const code = e?.code;
  const where = e?.path ?? shown;
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return `no space left on the device holding ${where} (${code}): free some space there and retry`;
    case 'EFBIG':
      return `${where} would pass the file-size limit this process runs under (EFBIG): raise the limit (ulimit -f) or free space, and retry`;
    case 'EROFS':
      return `${where} is on a read-only file system (EROFS): point XDG_DATA_HOME (or HOME) at a writable directory`;
    case 'EACCES':
    case 'EPERM':
      return `no permission to write ${where} (${code}): fix its permissions, or point XDG_DATA_HOME (or HOME) at a writable directory`;
    case 'ENOTDIR':
      return `a file stands where a directory should be (${where}, ENOTDIR): move it away, or point XDG_DATA_HOME at another directory, and retry`;
    case 'EIO':
      return `the disk failed to write ${where} (EIO): check the device, then retry`;
    case 'EMFILE':
    case 'ENFILE':
      return `too many open files to write ${where} (${code}): close other programs or raise the limit (ulimit -n), and retry`;
    default:
      return undefined;
  }
}

/** A disk error as a ToolError that says what happened to `shown` and what to do; anything else unchanged. */
export function asDiskError(err: unknown, shown: string): unknown {
  if (err instanceof ToolError) return err;
  const said = diskErrorMessage(err, shown);
  return said ? new ToolError('io_error', `${shown} was not written: ${said}.`, { errno: (err as NodeJS.ErrnoException).code }) : err;
}

/** The error a damaged record is reported with: its path, why, and what to do. */
export function damagedError(file: string, shown: string, why: string, todo: string): ToolError {
  return new ToolError('damaged', `${shown} is damaged (${file}: ${why}). ${todo}`, { file, why });
}

/** Where a damaged record is kept once moved aside (beside it, so on the same file system). */
export function asideName(file: string, now = new Date()): string {
  return `${file}.damaged-${now.toISOString().replace(/[:.]/g, '-')}`;
}

/** Moves a damaged record aside (a rename: its bytes stay) and returns where it went. */
export function setAside(file: string): string {
  let to = asideName(file);
  for (let i = 1; fs.existsSync(to); i++) to = `${asideName(file)}-${i}`;
  fs.renameSync(file, to);
  return to;
}

export type ReadResult<T> = { state: 'absent' } | { state: 'ok'; value: T } | { state: 'damaged'; why: string };

/**
 * Reads the record at `file`: absent, the value, or why it is damaged (not JSON, cut short, not
 * the expected shape). A file that cannot be read for another reason (no permission, a
 * directory in its place) throws: that is not a damaged record, and not an absent one either.
 */
export function readRecord<T>(file: string, validate: Validate<T>): ReadResult<T> {
  let text: string;
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile()) return { state: 'damaged', why: st.isSymbolicLink() ? 'a symbolic link stands in its place' : 'not a regular file' };
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'absent' };
    throw err;
  }
  if (text.trim() === '') return { state: 'damaged', why: `empty (${Buffer.byteLength(text)} bytes): cut short by a crash or a full disk` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { state: 'damaged', why: `not JSON (${(err as Error).message}); ${Buffer.byteLength(text)} bytes, possibly cut short` };
  }
  const v = validate(value);
  if (v && typeof v === 'object' && 'damaged' in (v as object) && Object.keys(v as object).length === 1) return { state: 'damaged', why: (v as { damaged: string }).damaged };
  return { state: 'ok', value: v as T };
}

export interface UpdateOptions {
  /** names the record in messages: "the trust store", "mission m-…" */
  shown: string;
  /** the new file's mode */
  mode?: number;
  /**
   * What a damaged record means to this writer: `refuse` (the default) reports it and writes
   * nothing; `set-aside` moves it aside, reports where, and starts from absent.
   */
  onDamaged?: 'refuse' | 'set-aside';
  /** what a person should do about a damaged record, for the `refuse` message */
  todo?: string;
  /** written indented, for a record people read by hand (default: one line) */
  pretty?: boolean;
}

export interface Updated<T> {
  value: T | undefined;
  /** whether a new version was written */
  wrote: boolean;
  /** a damaged record moved aside, and where */
  aside?: { file: string; why: string };
}

/** What `fn` returns to leave the record as it is. */
export const UNCHANGED: unique symbol = Symbol('unchanged');

/**
 * Changes the record at `file` under its lock: `fn` gets it as it is on disk now (undefined:
 * absent) and returns the next version, or UNCHANGED. The directory is made (0700) when missing.
 * A disk error is a ToolError that says so with the path.
 */
export async function updateRecord<T>(file: string, validate: Validate<T>, fn: (cur: T | undefined) => T | typeof UNCHANGED, o: UpdateOptions): Promise<Updated<T>> {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    return await withFileLock(file, o.shown, () => {
      const got = readRecord(file, validate);
      let aside: Updated<T>['aside'];
      if (got.state === 'damaged') {
        if (o.onDamaged !== 'set-aside') throw damagedError(file, o.shown, got.why, o.todo ?? `Move it aside (or repair it), then retry.`);
        aside = { file: setAside(file), why: got.why };
      }
      const cur = got.state === 'ok' ? got.value : undefined;
      const next = fn(cur);
      if (next === UNCHANGED) return { value: cur, wrote: false, ...(aside ? { aside } : {}) };
      replaceFileSync(file, o.pretty ? `${JSON.stringify(next, null, 2)}\n` : JSON.stringify(next), o.mode !== undefined ? { mode: o.mode } : {});
      return { value: next, wrote: true, ...(aside ? { aside } : {}) };
    });
  } catch (err) {
    throw asDiskError(err, o.shown);
  }
}
