// stat_file and count_stats: metadata, and `wc`-style counts streamed from the file. Nothing of
// the content is returned, but reading is work: a file over _max_scan_file_bytes (a 32 GiB
// sparse file reads as zeros for minutes) is refused with how to narrow.
import fs from 'node:fs';
import { ToolError } from '../errors.ts';
import { openSame } from './file_io.ts';
import type { ConfinedPath } from '../paths.ts';
import { schema, str } from './args.ts';
import { baseName, lstatOf } from './context.ts';
import { BINARY_SAMPLE, humanSize, isBinary } from './text.ts';
import type { FsPolicy } from './policy.ts';
import type { Args, ToolDef } from './tool_def.ts';

export const statFile: ToolDef = {
  name: 'stat_file',
  kind: 'read',
  description: 'Size, modification time, type, mode and binary/executable flags of a path.',
  longDescription:
    'Metadata of a file or directory inside the workspace root: name, size (and a human size), modTime (ISO 8601), isDir, mode (octal), executable, and binary (a NUL byte or mostly invalid UTF-8 in the first 512 bytes).',
  inputSchema: schema({ path: str('file or directory, relative to the workspace root') }, ['path']),
  async run(ctx, a: Args) {
    const c = await ctx.resolve('stat_file', a.path as string);
    const st = lstatOf(c);
    if (!st) throw new ToolError('not_found', `${c.rel} does not exist.`);
    let binary = false;
    if (st.isFile()) {
      const { fd } = openSame(c, st);
      try {
        const b = Buffer.alloc(BINARY_SAMPLE);
        binary = isBinary(b.subarray(0, fs.readSync(fd, b, 0, BINARY_SAMPLE, 0)));
      } finally {
        fs.closeSync(fd);
      }
    }
    return {
      name: baseName(c.rel),
      path: c.rel,
      size: st.size,
      sizeHuman: humanSize(st.size),
      modTime: st.mtime.toISOString(),
      isDir: st.isDirectory(),
      mode: `0${(st.mode & 0o7777).toString(8).padStart(3, '0')}`,
      executable: st.isFile() && (st.mode & 0o111) !== 0,
      binary,
    };
  },
};

const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);

export const countStats: ToolDef = {
  name: 'count_stats',
  kind: 'read',
  description: 'Line, word and byte counts of a file, as wc counts them.',
  longDescription:
    'Counts for a file inside the workspace root: lines (newline characters, as `wc -l` counts them), words (runs separated by whitespace) and bytes. Streams the file, so any size works.',
  inputSchema: schema({ path: str('file, relative to the workspace root') }, ['path']),
  async run(ctx, a: Args, signal) {
    const c = await ctx.resolve('count_stats', a.path as string);
    const st = lstatOf(c);
    if (!st) throw new ToolError('not_found', `${c.rel} does not exist.`);
    if (st.isDirectory()) throw new ToolError('is_directory', `${c.rel} is a directory; count_stats counts a file.`);
    if (!st.isFile()) throw new ToolError('not_regular', `${c.rel} is not a regular file.`);
    refuseOverScanCap('count_stats', c.rel, st.size, ctx.policy);
    const { fd } = openSame(c, st);
    let lines = 0;
    let words = 0;
    let bytes = 0;
    let inWord = false;
    try {
      const buf = Buffer.allocUnsafe(1 << 20);
      for (;;) {
        if (signal?.aborted) throw new ToolError('cancelled', 'count_stats was cancelled.');
        const n = fs.readSync(fd, buf, 0, buf.length, null);
        if (n === 0) break;
        bytes += n;
        refuseOverScanCap('count_stats', c.rel, bytes, ctx.policy); // a file that grows while read
        for (let i = 0; i < n; i++) {
          const ch = buf[i];
          if (ch === 10) lines++;
          if (isSpace(ch)) inWord = false;
          else if (!inWord) {
            inWord = true;
            words++;
          }
        }
      }
    } finally {
      fs.closeSync(fd);
    }
    return `Lines: ${lines}, Words: ${words}, Bytes: ${bytes}`;
  },
};

/** A file over the per-file scan cap: refused before (or while) it is read, with how to narrow. */
export function refuseOverScanCap(tool: string, rel: string, size: number, policy: Pick<FsPolicy, 'maxScanFileBytes'>): void {
  if (size <= policy.maxScanFileBytes) return;
  throw new ToolError(
    'too_large',
    `${rel} is ${humanSize(size)}, more than ${tool} reads of one file (tools_policies.local_fs._max_scan_file_bytes = ${humanSize(policy.maxScanFileBytes)}). Read a part with read_file_range, or raise the limit if the whole file must be scanned.`,
    { size, limit: policy.maxScanFileBytes },
  );
}
