// grep: literal (default) or regex search, per line, in one file or recursively in a directory.
// Two engines for a directory: ripgrep (literal only, when present) and in-process. ripgrep walks
// everything (no ignore files of its own, hidden files included, heavy dirs excluded) and its
// hits go through the same TraversalFilter and binary test as the in-process walk, sorted into
// the same order, so both give identical results; the tests hold them to that.
import fs from 'node:fs';
import path from 'node:path';
import { ToolError } from '../errors.ts';
import type { ConfinedPath } from '../paths.ts';
import { bool, int, schema, str } from './args.ts';
import { lstatOf, traversalRoot, type FsContext } from './context.ts';
import { comparePaths, TraversalFilter, walk } from './filter.ts';
import { mustBeFile, refuseBinary } from './read.ts';
import { rgGlobLiteral, runRipgrep } from './ripgrep.ts';
import { openSame } from './file_io.ts';
import { refuseOverScanCap } from './stat.ts';
import { BINARY_SAMPLE, countNewlines, decode, displayLine, displayText, isBinary, sliceLines } from './text.ts';
import type { Args, ToolDef } from './tool_def.ts';

export interface GrepHit {
  line: number;
  text: string;
}

export interface GrepQuery {
  pattern: string;
  regex: RegExp | null;
  startLine: number;
  endLine: number;
}

const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

/**
 * `use` on an fd of a regular file, not following a final symlink; null when unreadable, not
 * regular, or `skip` says so on its fstat (a hard link to a protected file).
 */
function withRegular<T>(abs: string, use: (fd: number) => T, skip?: (st: fs.Stats) => boolean): T | null {
  let fd: number;
  try {
    fd = fs.openSync(abs, fs.constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fs.fstatSync(fd);
    return st.isFile() && !skip?.(st) ? use(fd) : null;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** Whole content of a regular file; null when unreadable, not regular, or skipped. */
function readRegular(abs: string, skip?: (st: fs.Stats) => boolean): Buffer | null {
  return withRegular(abs, (fd) => fs.readFileSync(fd), skip);
}

/** First bytes of a regular file for the binary test; null when unreadable, not regular, or skipped. */
function sampleRegular(abs: string, skip?: (st: fs.Stats) => boolean): Buffer | null {
  return withRegular(abs, (fd) => {
    const b = Buffer.alloc(BINARY_SAMPLE);
    return b.subarray(0, fs.readSync(fd, b, 0, BINARY_SAMPLE, 0));
  }, skip);
}

/** Matching lines of `buf` within the query's line window, at most `limit`. */
export function searchBuffer(buf: Buffer, q: GrepQuery, limit: number): GrepHit[] {
  const hits: GrepHit[] = [];
  const win = sliceLines(buf, q.startLine, q.endLine);
  if (q.regex) {
    const text = decode(win.bytes);
    const lines = text.split('\n');
    if (lines.length > 0 && lines[lines.length - 1] === '' && text.endsWith('\n')) lines.pop();
    for (let k = 0; k < lines.length && hits.length < limit; k++) {
      if (q.regex.test(lines[k])) hits.push({ line: q.startLine + k, text: displayText(lines[k]) });
    }
    return hits;
  }
  if (q.pattern.includes('\n')) return hits; // per line: a pattern spanning lines never matches
  const needle = Buffer.from(q.pattern, 'utf8');
  let pos = win.from;
  let line = q.startLine;
  let i = buf.indexOf(needle, win.from);
  while (i !== -1 && i < win.to && hits.length < limit) {
    const ls = i === 0 ? 0 : buf.lastIndexOf(10, i - 1) + 1;
    line += countNewlines(buf.subarray(pos, ls));
    pos = ls;
    const nl = buf.indexOf(10, i);
    const end = nl === -1 ? buf.length : nl + 1;
    hits.push({ line, text: displayLine(buf.subarray(ls, end)) });
    i = end >= buf.length ? -1 : buf.indexOf(needle, end);
  }
  return hits;
}

/** One file's hits in a tree search. */
export interface FileHits {
  rel: string;
  hits: GrepHit[];
}

/** In-process tree search: sorted walk, filter, read, search; stops once `cap` is passed. */
/** What the scan caps left out of a tree search, for the note under its result. */
export interface ScanNotes {
  /** files over _max_scan_file_bytes, not searched */
  skipped: number;
  /** the file the per-call cap stopped before, if it did */
  stoppedAt: string | undefined;
}

function scanNotes(scan: ScanNotes, ctx: FsContext): string[] {
  const out: string[] = [];
  if (scan.skipped) out.push(`[${scan.skipped} file(s) over _max_scan_file_bytes=${ctx.policy.maxScanFileBytes} not searched; grep one by path after narrowing, or raise the limit.]`);
  if (scan.stoppedAt) out.push(`[stopped before ${scan.stoppedAt}: this call read _max_scan_call_bytes=${ctx.policy.maxScanCallBytes}; search a narrower directory.]`);
  return out;
}

export function grepTreeBuiltin(ctx: FsContext, dir: ConfinedPath, q: GrepQuery, cap: number, signal?: AbortSignal, scan: ScanNotes = { skipped: 0, stoppedAt: undefined }): FileHits[] {
  const filter = new TraversalFilter(ctx, dir.rel);
  const out: FileHits[] = [];
  let total = 0;
  let read = 0;
  const needle = q.regex || q.pattern.includes('\n') ? null : Buffer.from(q.pattern, 'utf8');
  for (const e of walk(ctx, filter, dir.rel, { maxDepth: Infinity, signal, linksCheckedByCaller: true })) {
    if (e.kind !== 'file') continue;
    let over = false;
    let size = 0;
    const buf = readRegular(path.join(ctx.root, e.rel), (st) => {
      size = st.size;
      over = st.size > ctx.policy.maxScanFileBytes;
      return over || read + st.size > ctx.policy.maxScanCallBytes || filter.linked(e.rel, st) !== null;
    });
    if (over) scan.skipped++;
    else if (!buf && read + size > ctx.policy.maxScanCallBytes) {
      scan.stoppedAt = e.rel;
      break;
    }
    if (!buf) continue;
    read += buf.length;
    if (needle && buf.indexOf(needle) === -1) continue;
    if (!needle && !q.regex) continue;
    if (isBinary(buf)) continue;
    const hits = searchBuffer(buf, q, cap + 1 - total);
    if (hits.length === 0) continue;
    out.push({ rel: e.rel, hits });
    total += hits.length;
    if (total > cap) break;
  }
  return out;
}

/** Past this many collected lines ripgrep is stopped and the in-process engine (which stops early at the cap) takes over. */
export const RG_COLLECT_LIMIT = 20_000;

/**
 * ripgrep tree search for a literal pattern, filtered and ordered exactly like the in-process
 * walk. Resolves null when ripgrep produced too much to sort (the caller falls back).
 */
export async function grepTreeRipgrep(ctx: FsContext, rg: string, dir: ConfinedPath, q: GrepQuery, cap: number, signal?: AbortSignal): Promise<FileHits[] | null> {
  if (q.regex) throw new Error('grepTreeRipgrep: literal patterns only');
  if (q.pattern.includes('\n')) return [];
  const args = ['--no-config', '--no-ignore', '--hidden', '--no-follow', '--text', '--fixed-strings', '--json', '--no-messages'];
  // files over the per-file scan cap are skipped, as the in-process walk skips them
  if (Number.isFinite(ctx.policy.maxScanFileBytes)) args.push('--max-filesize', String(ctx.policy.maxScanFileBytes));
  for (const d of ctx.policy.skipDirs) args.push('--glob', `!${rgGlobLiteral(d)}/`);
  args.push('--regexp', q.pattern, '--', '.');
  const byFile = new Map<string, { line: number; bytes: Buffer }[]>();
  let collected = 0;
  const take = (line: string) => {
    if (!line.startsWith('{"type":"match"')) return;
    const m = JSON.parse(line).data as {
      path: { text?: string; bytes?: string };
      lines: { text?: string; bytes?: string };
      line_number: number;
    };
    const p = m.path.text ?? Buffer.from(m.path.bytes ?? '', 'base64').toString('utf8');
    const bytes = m.lines.text !== undefined ? Buffer.from(m.lines.text, 'utf8') : Buffer.from(m.lines.bytes ?? '', 'base64');
    const rel = p.startsWith('./') ? p.slice(2) : p;
    let list = byFile.get(rel);
    if (!list) byFile.set(rel, (list = []));
    list.push({ line: m.line_number, bytes });
    return ++collected <= RG_COLLECT_LIMIT;
  };
  const { code, stopped } = await runRipgrep(rg, args, dir.real, take, 'grep', signal);
  if (stopped) return null;
  // 0 = matches, 1 = none; 2 = some error (unreadable files are skipped by both engines)
  if (code !== 0 && code !== 1 && code !== 2) return null;
  const filter = new TraversalFilter(ctx, dir.rel);
  const out: FileHits[] = [];
  let total = 0;
  const files = [...byFile.keys()]
    .map((r) => ({ r, rel: dir.rel === '.' ? r : `${dir.rel}/${r}` }))
    .sort((a, b) => comparePaths(a.rel, b.rel));
  for (const { r, rel } of files) {
    if (filter.file(rel, true)) continue;
    const sample = sampleRegular(path.join(dir.real, r), (st) => filter.linked(rel, st) !== null);
    if (!sample || isBinary(sample)) continue;
    const hits: GrepHit[] = [];
    for (const h of byFile.get(r)!) {
      if (h.line < q.startLine || h.line > q.endLine) continue;
      if (total + hits.length > cap) break;
      hits.push({ line: h.line, text: displayLine(h.bytes) });
    }
    if (hits.length === 0) continue;
    out.push({ rel, hits });
    total += hits.length;
    if (total > cap) break;
  }
  return out;
}

function render(ctx: FsContext, files: FileHits[], cap: number, tree: boolean, q: GrepQuery, notes: string[] = []): string {
  const lines: string[] = [];
  let total = 0;
  let bytes = 0;
  let cutBytes = false;
  let lastLine = 0;
  outer: for (const f of files) {
    for (const h of f.hits) {
      if (total >= cap) break outer;
      const l = tree ? `${f.rel}:${h.line}: ${h.text}` : `${h.line}: ${h.text}`;
      const n = Buffer.byteLength(l) + 1;
      if (bytes + n > ctx.policy.maxOutputBytes) {
        cutBytes = true;
        break outer;
      }
      lines.push(l);
      bytes += n;
      total++;
      lastLine = h.line;
    }
  }
  const found = files.reduce((a, f) => a + f.hits.length, 0);
  if (found === 0) return ['(no matches)', ...notes].join('\n');
  if (found > total || cutBytes) {
    const why = cutBytes ? `output cut at _max_output_bytes=${ctx.policy.maxOutputBytes}` : `stopped at ${cap} matches`;
    const next = tree
      ? 'narrow the path or the pattern, or raise tools_policies.local_fs._max_grep_matches'
      : `continue with start_line=${lastLine + 1}${q.endLine !== Infinity ? ` end_line=${q.endLine}` : ''}`;
    lines.push(`[${why}; ${next}.]`);
  }
  return [...lines, ...notes].join('\n');
}

export const grep: ToolDef = {
  name: 'grep',
  kind: 'search',
  description: 'Search a file or a directory tree for a literal string (regex=true for a regex), per line.',
  longDescription:
    'Search for pattern, per line: a literal string by default, a JavaScript regular expression with regex=true. ' +
    'On a file the result is `N: text` lines; on a directory it searches recursively and prints `path:N: text`, skipping binaries, ' +
    '.gitignore\'d files, heavy directories and quarantined or denied files. start_line/end_line limit the lines searched in each file. ' +
    'Matches are capped (500 in a file, 100 in a tree, or _max_grep_matches) with a notice how to continue.',
  inputSchema: schema(
    {
      path: str('file or directory, relative to the workspace root'),
      pattern: str('text to find (literal unless regex is true)'),
      regex: bool('treat pattern as a regular expression'),
      start_line: int('first line searched in each file (1-based)', 1),
      end_line: int('last line searched in each file (inclusive)', 1),
    },
    ['path', 'pattern'],
  ),
  async run(ctx, a: Args, signal) {
    const pattern = a.pattern as string;
    if (pattern.length === 0) throw new ToolError('bad_args', 'grep: pattern is empty. Give the text to find.');
    let regex: RegExp | null = null;
    if (a.regex === true) {
      try {
        regex = new RegExp(pattern);
      } catch (err) {
        throw new ToolError('bad_args', `grep: invalid regular expression: ${(err as Error).message}. Fix it, or search literally without regex.`);
      }
    }
    const q: GrepQuery = { pattern, regex, startLine: (a.start_line as number | undefined) ?? 1, endLine: (a.end_line as number | undefined) ?? Infinity };
    if (q.endLine < q.startLine) throw new ToolError('bad_args', `grep: end_line ${q.endLine} is before start_line ${q.startLine}.`);
    const c = await ctx.resolve('grep', a.path as string);
    const st = lstatOf(c);
    if (!st) throw new ToolError('not_found', `${c.rel} does not exist. Check the path with list_dir or find_files.`);
    if (!st.isDirectory()) {
      mustBeFile(c);
      const cap = ctx.policy.maxGrepMatches ?? 500;
      refuseOverScanCap('grep', c.rel, st.size, ctx.policy);
      const { fd } = openSame(c, st);
      let bytes: Buffer;
      try {
        bytes = fs.readFileSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      refuseOverScanCap('grep', c.rel, bytes.length, ctx.policy);
      refuseBinary(c, bytes);
      return render(ctx, [{ rel: c.rel, hits: searchBuffer(bytes, q, cap + 1) }], cap, false, q);
    }
    const cap = ctx.policy.maxGrepMatches ?? 100;
    // in an additional directory: searched from there, its paths shown absolute
    const t = traversalRoot(ctx, c);
    let files: FileHits[] | null = null;
    if (!regex && ctx.rgPath) files = await grepTreeRipgrep(t.ctx, ctx.rgPath, t.dir, q, cap, signal);
    const scan: ScanNotes = { skipped: 0, stoppedAt: undefined };
    files ??= grepTreeBuiltin(t.ctx, t.dir, q, cap, signal, scan);
    if (signal?.aborted) throw new ToolError('cancelled', 'grep was cancelled.');
    if (t.ctx !== ctx) {
      files = files.map((f) => ({ ...f, rel: t.shown(f.rel) }));
      if (scan.stoppedAt) scan.stoppedAt = t.shown(scan.stoppedAt);
    }
    return render(ctx, files, cap, true, q, scanNotes(scan, ctx));
  },
};
