// list_dir: sorted entries of a directory (optionally recursive), `/` after directories, `@`
// after symlinks, `*` after executables, sizes over 1 MiB; filtered like every traversal;
// paginated with a notice naming the next offset.
import fs from 'node:fs';
import path from 'node:path';
import { ToolError } from '../errors.ts';
import { bool, int, schema, str } from './args.ts';
import { lstatOf, traversalRoot } from './context.ts';
import { TraversalFilter, walk } from './filter.ts';
import { humanSize } from './text.ts';
import type { Args, ToolDef } from './tool_def.ts';

/** Entries per page. */
export const LIST_PAGE = 1000;
/** A walk stops after this many entries (narrow the path instead). */
export const LIST_WALK_CAP = 100_000;
const MiB = 1024 * 1024;

export const listDir: ToolDef = {
  name: 'list_dir',
  kind: 'read',
  description: 'List a directory (recursive optional), sorted; honours .gitignore and skips heavy dirs.',
  longDescription:
    'List the entries of a directory inside the workspace root, sorted by name: `/` marks directories, `@` symlinks, `*` executables, and files over 1 MiB show their size. ' +
    'With recursive, descends up to max_depth levels (default 3) and shows paths relative to the listed directory; heavy directories (node_modules, .git, dist, build, …) are shown but not descended into. ' +
    'Ignored (.gitignore), quarantined and denied paths are left out. Long listings are paged: continue with the offset the notice names.',
  inputSchema: schema(
    {
      path: str('directory, relative to the workspace root (default ".")'),
      recursive: bool('descend into subdirectories'),
      max_depth: int('deepest level when recursive (default 3)', 1),
      offset: int('skip this many entries (for paging)', 0),
    },
    [],
  ),
  async run(ctx, a: Args, signal) {
    const c = await ctx.resolve('list_dir', (a.path as string | undefined) ?? '.');
    const st = lstatOf(c);
    if (!st) throw new ToolError('not_found', `${c.rel} does not exist. Check the path with list_dir on its parent.`);
    if (!st.isDirectory()) throw new ToolError('not_directory', `${c.rel} is not a directory. Use stat_file or read_file for files.`);
    const recursive = a.recursive === true;
    const wanted = (a.max_depth as number | undefined) ?? 3;
    const depth = recursive ? Math.min(wanted, ctx.policy.maxListDepth) : 1;
    const offset = (a.offset as number | undefined) ?? 0;
    // in an additional directory: walked from there (names below are shown relative to the listed one anyway)
    const t = traversalRoot(ctx, c);
    const filter = new TraversalFilter(t.ctx, t.dir.rel);
    const lines: string[] = [];
    let total = 0;
    let stopped = false;
    for (const e of walk(t.ctx, filter, t.dir.rel, { maxDepth: depth, showHeavy: true, signal })) {
      if (total >= LIST_WALK_CAP) {
        stopped = true;
        break;
      }
      total++;
      if (total <= offset || lines.length >= LIST_PAGE) continue;
      const shownName = t.dir.rel === '.' ? e.rel : e.rel.slice(t.dir.rel.length + 1);
      lines.push(entryLine(path.join(t.ctx.root, e.rel), shownName, e.kind, recursive && e.skipped !== undefined, e.stat));
    }
    if (total === 0) return '(empty directory)';
    const out: string[] = [];
    let bytes = 0;
    for (const l of lines) {
      const n = Buffer.byteLength(l) + 1;
      if (bytes + n > ctx.policy.maxOutputBytes) break;
      out.push(l);
      bytes += n;
    }
    const next = offset + out.length;
    if (next < total) {
      out.push(`[showed entries ${offset + 1}-${next} of ${stopped ? `at least ${total}` : total}. Continue with list_dir offset=${next}${recursive ? ' recursive=true' : ''}.]`);
    } else if (stopped) {
      out.push(`[listing stopped after ${LIST_WALK_CAP} entries; list a subdirectory or lower max_depth.]`);
    }
    if (recursive && wanted > depth) out.push(`[max_depth capped at ${depth} by tools_policies.local_fs._max_list_depth.]`);
    return out.join('\n');
  },
};

function entryLine(abs: string, name: string, kind: string, heavy: boolean, seen?: fs.Stats): string {
  if (kind === 'dir') return heavy ? `${name}/  (not descended: heavy directory)` : `${name}/`;
  if (kind === 'symlink') return `${name}@`;
  if (kind !== 'file') return name;
  const st = seen ?? fs.lstatSync(abs, { throwIfNoEntry: false });
  if (!st) return name;
  let s = name;
  if (st.mode & 0o111) s += '*';
  if (st.size > MiB) s += `  (${humanSize(st.size)})`;
  return s;
}
