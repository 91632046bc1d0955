// Files of JSON lines that only grow (the session log, the prompt history, a mission's plans and
// reports), read and appended the one way, so a crash or a bad line means the same in each:
// - A torn last line (a process killed inside its write) is not a record: readers skip it, and
//   the next append first ends it with a newline, so it never swallows the record after it.
//   Ended, it is a line that does not parse: skipped and named like any damaged line.
// - A line that does not parse, or is not of its reader's type, is skipped and handed to the
//   reader's `skipped` with its number: one bad line never makes the rest unreadable.
// Appenders hold the file's lock (write_lock.ts) around the end-the-tail-then-write step, so two
// processes never write into each other's lines.
import { Buffer } from 'node:buffer';
import fs from 'node:fs';

const { O_RDWR, O_CREAT, O_APPEND } = fs.constants;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const NL = 0x0a;

/** Why a parsed value is not a record of the reader's type (undefined: it is one). */
export type Invalid = (value: unknown) => string | undefined;
/** A line skipped: its number (from 1) and why. */
export type Skipped = (line: number, why: string) => void;

/** Opens `file` for reading and appending (created with `mode`); never through a planted link. */
export function openForAppend(file: string, mode = 0o600): number {
  return fs.openSync(file, O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW, mode);
}

/**
 * Ends a torn last line of the file open as `fd` (opened for reading and appending) with a
 * newline, so the next line starts on its own. Returns the file's size afterwards.
 */
export function endTornTail(fd: number): number {
  const size = fs.fstatSync(fd).size;
  if (size === 0) return 0;
  const last = Buffer.alloc(1);
  fs.readSync(fd, last, 0, 1, size - 1);
  if (last[0] === NL) return size;
  writeAll(fd, Buffer.from('\n'));
  return size + 1;
}

/** Writes all of `buf` at the end of the file open as `fd` (O_APPEND). */
export function writeAll(fd: number, buf: Buffer): void {
  let done = 0;
  while (done < buf.length) done += fs.writeSync(fd, buf, done, buf.length - done);
}

/**
 * Appends `values` as JSON lines to `file` (created 0600), a torn tail ended first; durable when
 * this returns. Call under the file's lock. Returns the bytes written.
 */
export function appendJsonLines(file: string, values: unknown[]): number {
  const fd = openForAppend(file);
  try {
    const before = endTornTail(fd);
    const buf = Buffer.from(values.map((v) => `${JSON.stringify(v)}\n`).join(''));
    try {
      writeAll(fd, buf);
    } catch (err) {
      // a short write (a full disk) is taken back, so no half line is left for the next reader
      try {
        fs.ftruncateSync(fd, before);
      } catch {
        /* ended by the next appender instead */
      }
      throw err;
    }
    fs.fdatasyncSync(fd);
    return buf.length;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The records in `text`, in order: every whole line that parses and passes `invalid`. Blank lines
 * are ignored; a last line without its newline (torn, or still being written) is left out
 * silently; any other line that does not parse or is not a record goes to `skipped`. `firstLine`
 * numbers the first line of `text` (a reader of a file's tail starts past 1).
 */
export function parseJsonLines<T>(text: string, o: { invalid?: Invalid; skipped?: Skipped; firstLine?: number } = {}): T[] {
  const out: T[] = [];
  eachJsonLine(text, o, (v) => void out.push(v as T));
  return out;
}

/** Like parseJsonLines, handing each record to `take` with its line number as it is read. */
export function eachJsonLine(text: string, o: { invalid?: Invalid; skipped?: Skipped; firstLine?: number }, take: (value: unknown, line: number, raw: string) => void): void {
  let n = (o.firstLine ?? 1) - 1;
  let off = 0;
  while (off < text.length) {
    n++;
    const nl = text.indexOf('\n', off);
    if (nl === -1) return; // torn, or being written
    const raw = text.slice(off, nl);
    off = nl + 1;
    if (raw.trim() === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch {
      o.skipped?.(n, 'not JSON (a line torn by a crash, or damaged)');
      continue;
    }
    const why = o.invalid?.(v);
    if (why) o.skipped?.(n, why);
    else take(v, n, raw);
  }
}

/** The records of `file` (none when it does not exist); see parseJsonLines. */
export function readJsonLines<T>(file: string, o: { invalid?: Invalid; skipped?: Skipped } = {}): T[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return parseJsonLines<T>(text, o);
}
