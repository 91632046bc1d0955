// read_file and read_file_range: text of a confined file, recorded in the session ledger as a
// full or a range read, capped to _max_output_bytes in whole lines with a notice to continue.
import { ToolError } from '../errors.ts';
import type { ConfinedPath } from '../paths.ts';
import { bool, int, schema, str } from './args.ts';
import { lstatOf, type FsContext } from './context.ts';
import { RANGE_READ_HARD_CAP, type Args, type ToolDef } from './tool_def.ts';
import { decode, headLines, humanSize, isBinary, lineCount, sliceLines } from './text.ts';
import type { LinesRead } from './file_io.ts';

/** Refuses what is not an existing regular file before any content is read. */
export function mustBeFile(c: ConfinedPath): void {
  const st = lstatOf(c);
  if (!st) throw new ToolError('not_found', `${c.rel} does not exist. Check the path with list_dir or find_files.`);
  if (st.isDirectory()) throw new ToolError('is_directory', `${c.rel} is a directory. Use list_dir for directories.`);
  if (!st.isFile() && !st.isSymbolicLink()) throw new ToolError('not_regular', `${c.rel} is not a regular file (a FIFO, socket or device); only regular files are read or written.`);
}

export function refuseBinary(c: ConfinedPath, bytes: Buffer): void {
  if (isBinary(bytes)) throw new ToolError('binary', `${c.rel} looks binary (a NUL byte or mostly invalid UTF-8 in its first 512 bytes); local_fs reads text only. Use stat_file for its size.`);
}

/** The text of `bytes` within the output cap, with a notice naming the next start_line (`totalLines` unknown: a client's range). */
function capped(ctx: FsContext, c: ConfinedPath, bytes: Buffer, firstLine: number, totalLines: number | undefined): { text: string; cut: boolean } {
  const max = ctx.policy.maxOutputBytes;
  if (bytes.length <= max) return { text: decode(bytes), cut: false };
  const head = headLines(bytes, max);
  const last = firstLine + head.lines - 1;
  const next = head.lines === 0 ? firstLine + 1 : last + 1;
  const shownLines = head.lines === 0 ? `the head of line ${firstLine} (cut)` : `lines ${firstLine}-${last}${totalLines === undefined ? '' : ` of ${totalLines}`}`;
  const notice = `\n[output cut at _max_output_bytes=${max}: showed ${shownLines}. Continue with read_file_range path=${JSON.stringify(c.rel)} start_line=${next}.]`;
  return { text: decode(head.bytes) + notice, cut: true };
}

async function readFull(ctx: FsContext, c: ConfinedPath, force: boolean): Promise<unknown> {
  mustBeFile(c);
  const snap = await ctx.io.read(c, { maxBytes: ctx.policy.maxReadBytes, hashing: true });
  refuseBinary(c, snap.bytes);
  const prev = ctx.ledger.get(c.real);
  if (!force && prev?.full && prev.sha256 === snap.sha256) {
    return { path: c.rel, sha256: snap.sha256, bytes: snap.bytes.length, unchanged: true, note: 'unchanged since your last full read in this session; pass force=true to get the text again' };
  }
  const { text, cut } = capped(ctx, c, snap.bytes, 1, lineCount(snap.bytes));
  ctx.ledger.recordRead(c.real, snap.sha256, !cut);
  return text;
}

async function readRange(ctx: FsContext, c: ConfinedPath, start: number, end: number): Promise<string> {
  mustBeFile(c);
  if (end < start) throw new ToolError('bad_args', `end_line ${end} is before start_line ${start}.`);
  const part = await ctx.io.readLines?.(c, start, end, CLIENT_RANGE_LINES);
  if (part) return clientRange(ctx, c, part, start, end);
  const snap = await ctx.io.read(c, { maxBytes: Math.max(ctx.policy.maxReadBytes, RANGE_READ_HARD_CAP), hashing: true });
  refuseBinary(c, snap.bytes);
  const { bytes } = sliceLines(snap.bytes, start, end);
  const { text } = capped(ctx, c, bytes, start, lineCount(snap.bytes));
  ctx.ledger.recordRead(c.real, snap.sha256, false);
  return text;
}

/**
 * Lines asked of a client at once for a file too big to send whole: what one call shows is
 * _max_output_bytes (32 KiB by default), so more would cross the connection to be cut here.
 */
const CLIENT_RANGE_LINES = 2000;

/**
 * A range of a file too big to be sent whole, as the client sent it. The whole file's hash is not
 * known, so nothing is recorded for an edit to check against (an edit needs the whole file, which
 * is refused for its size anyway).
 */
function clientRange(ctx: FsContext, c: ConfinedPath, part: LinesRead, start: number, end: number): string {
  refuseBinary(c, part.bytes);
  const { text, cut } = capped(ctx, c, part.bytes, start, undefined);
  const got = part.bytes.length === 0 ? 0 : lineCount(part.bytes);
  // the client sent all it was asked for, and more was wanted: say where to go on
  if (!cut && part.asked < end - start + 1 && got >= part.asked) {
    return `${text}\n[showed lines ${start}-${start + part.asked - 1} of a ${humanSize(part.size)} file read through the client in parts. Continue with read_file_range path=${JSON.stringify(c.rel)} start_line=${start + part.asked}.]`;
  }
  return text;
}

export const readFile: ToolDef = {
  name: 'read_file',
  kind: 'read',
  description: 'Read a text file in the workspace. Give start_line/end_line to read part of it.',
  longDescription:
    'Read a text file inside the workspace root and return its text. With start_line or end_line it reads only those lines (like read_file_range). ' +
    'Files over the read limit must be read in ranges; long output is cut at whole lines with a notice naming the next start_line. ' +
    'Reading the same unchanged file again returns a short "unchanged" stub unless force is true. ' +
    'A full read is what write_file needs before overwriting an existing file. Binary files and directories are refused.',
  inputSchema: schema(
    {
      path: str('file path, relative to the workspace root'),
      start_line: int('first line to return (1-based)', 1),
      end_line: int('last line to return (inclusive)', 1),
      force: bool('return the text even if unchanged since the last read'),
    },
    ['path'],
  ),
  async run(ctx, a: Args) {
    const c = await ctx.resolve('read_file', a.path as string);
    if (a.start_line !== undefined || a.end_line !== undefined) {
      return readRange(ctx, c, (a.start_line as number | undefined) ?? 1, (a.end_line as number | undefined) ?? Infinity);
    }
    return readFull(ctx, c, a.force === true);
  },
};

export const readFileRange: ToolDef = {
  name: 'read_file_range',
  kind: 'read',
  description: 'Read lines start_line..end_line (1-based, inclusive) of a text file.',
  longDescription:
    'Read a line range of a text file inside the workspace root: lines start_line (default 1) to end_line (default the end), inclusive. ' +
    'A start past the end gives empty text. Works on files over the whole-file read limit. ' +
    'A range read satisfies edit_file and sed, but not write_file (which needs a full read_file).',
  inputSchema: schema(
    {
      path: str('file path, relative to the workspace root'),
      start_line: int('first line (1-based, default 1)', 1),
      end_line: int('last line, inclusive (default: end of file)', 1),
    },
    ['path'],
  ),
  async run(ctx, a: Args) {
    const c = await ctx.resolve('read_file_range', a.path as string);
    return readRange(ctx, c, (a.start_line as number | undefined) ?? 1, (a.end_line as number | undefined) ?? Infinity);
  },
};
