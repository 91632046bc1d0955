// The line range an fs/read_text_file asks for (`line`, 1-based, and `limit` in lines), cut out of
// the file's bytes by scanning for newlines: only the range is decoded, and the file is never
// split into an array of lines (a 16 MB file has hundreds of thousands). The answer is exactly
// that of decoding the whole file, splitting it on '\n' and joining the range back: '\r' stays
// at the end of a CRLF line, a final newline makes a last empty line, and a line past the end
// or a limit of 0 gives ''. A newline byte never occurs inside a multi-byte UTF-8 character, so
// cutting at one splits no character.
import type { Buffer } from 'node:buffer';
import { lineStart } from '../../core/local_fs/text.ts';

const NL = 0x0a;

/** ToIntegerOrInfinity, as Array.prototype.slice applies it to its bounds. */
function whole(n: number): number {
  return Number.isNaN(n) ? 0 : Math.trunc(n);
}

export function lineRange(buf: Buffer, line?: number | null, limit?: number | null): string {
  const first = Math.max(0, (line ?? 1) - 1);
  // lines [start, end), 0-based, as slice would take them
  const start = whole(first);
  const end = limit == null ? Infinity : whole(first + Math.max(0, limit));
  if (end <= start) return '';
  // past the end it is buf.length, where the scan below finds nothing and gives ''
  const from = lineStart(buf, start + 1);
  let to = from;
  for (let i = start; i < end; i++) {
    const nl = buf.indexOf(NL, to);
    if (nl === -1) return buf.toString('utf8', from);
    to = nl + 1;
  }
  // the range ends at a newline, which belongs to the next line's separator
  return buf.toString('utf8', from, to - 1);
}
