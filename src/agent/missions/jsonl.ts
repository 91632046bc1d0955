// Append-only files of JSON lines (a mission's plan revisions and reports): each line is written
// whole and flushed before the record that counts it is replaced, a torn last line (a crash
// mid-write) is skipped on read, and the next append starts on a line of its own, so one torn
// write never takes a good line with it.
import fs from 'node:fs';

/** Appends one JSON line to `file` (created 0600), durable when this returns. Call under the file's lock. */
export function appendLine(file: string, value: unknown): number {
  const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_APPEND | (fs.constants.O_NOFOLLOW ?? 0), 0o600);
  try {
    const size = fs.fstatSync(fd).size;
    let lead = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      const rfd = fs.openSync(file, 'r');
      try {
        fs.readSync(rfd, last, 0, 1, size - 1);
      } finally {
        fs.closeSync(rfd);
      }
      if (last[0] !== 0x0a) lead = '\n';
    }
    const line = `${lead}${JSON.stringify(value)}\n`;
    fs.writeSync(fd, line);
    fs.fdatasyncSync(fd);
    return Buffer.byteLength(line);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Every whole line of `file` that parses and passes `invalid` (which says why a value is not
 * one, or undefined), in order (none when it does not exist). A line that does not is skipped
 * and handed to `skipped` with its number, so one bad line never takes the file with it.
 */
export function readLines<T>(file: string, invalid?: (v: unknown) => string | undefined, skipped?: (line: number, why: string) => void): T[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: T[] = [];
  const end = text.lastIndexOf('\n');
  let n = 0;
  for (const raw of text.slice(0, end + 1).split('\n')) {
    n++;
    if (!raw) continue;
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch {
      // a line torn by a crash, followed by later appends
      skipped?.(n, 'not JSON (torn by a crash?)');
      continue;
    }
    const why = invalid?.(v);
    if (why) skipped?.(n, why);
    else out.push(v as T);
  }
  return out;
}
