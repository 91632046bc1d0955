// find_files: files whose name (pattern without `/`) or path relative to the search directory
// (pattern with `/`) matches a glob with `**`. Two engines, like grep: `rg --files` (when present)
// filtered through the same TraversalFilter, or the in-process walk; results are identical.
import { ToolError } from '../errors.ts';
import { compileGlobs } from '../glob.ts';
import type { ConfinedPath } from '../paths.ts';
import { schema, str } from './args.ts';
import { lstatOf, traversalRoot, type FsContext } from './context.ts';
import { comparePaths, TraversalFilter, walk } from './filter.ts';
import { rgGlobLiteral, runRipgrep } from './ripgrep.ts';
import type { Args, ToolDef } from './tool_def.ts';

/** A tester for `pattern` over paths relative to the search directory. */
export function fileMatcher(pattern: string): (relToDir: string) => boolean {
  const p = pattern.replace(/^\.\//, '');
  const re = compileGlobs([p], { caseInsensitive: false });
  if (p.includes('/')) return (r) => re.test(r);
  return (r) => re.test(r.slice(r.lastIndexOf('/') + 1));
}

/**
 * The pattern as a ripgrep glob when its meaning there is the same as ours (plain names, `*`,
 * whole-segment `**`, `{a,b}`); otherwise undefined and ripgrep lists everything.
 */
export function rgPrefilter(pattern: string): string | undefined {
  const p = pattern.replace(/^\.\//, '');
  if (!/^[A-Za-z0-9_.@+, {}*/-]+$/.test(p) || p.endsWith('/') || p.startsWith('/')) return undefined;
  if (p.split('/').some((seg) => seg.includes('**') && seg !== '**')) return undefined;
  return p;
}

/** All matching files under `dir`, root-relative, in walk order (in-process engine). */
export function findBuiltin(ctx: Pick<FsContext, 'root' | 'policy' | 'matcher'>, dir: ConfinedPath, pattern: string, signal?: AbortSignal): string[] {
  const match = fileMatcher(pattern);
  const filter = new TraversalFilter(ctx, dir.rel);
  const cut = dir.rel === '.' ? 0 : dir.rel.length + 1;
  const out: string[] = [];
  // only the files that match are looked at for hard links
  for (const e of walk(ctx, filter, dir.rel, { maxDepth: Infinity, signal, linksCheckedByCaller: true })) {
    if (e.kind === 'file' && match(e.rel.slice(cut)) && !filter.linked(e.rel)) out.push(e.rel);
  }
  return out;
}

/** `rg --files` as find_files runs it: every regular file, hidden ones too, links not followed, heavy dirs left out. */
export function rgFilesArgs(skipDirs: readonly string[]): string[] {
  const args = ['--files', '--no-config', '--no-ignore', '--hidden', '--no-follow', '--no-messages'];
  for (const d of skipDirs) args.push('--glob', `!${rgGlobLiteral(d)}/`);
  return args;
}

/** The same through `rg --files` (it lists regular files, never following links). */
export async function findFilesRipgrep(ctx: Pick<FsContext, 'root' | 'policy' | 'matcher'>, rg: string, dir: ConfinedPath, pattern: string, signal?: AbortSignal): Promise<string[]> {
  const match = fileMatcher(pattern);
  const args = rgFilesArgs(ctx.policy.skipDirs);
  const pre = rgPrefilter(pattern);
  // ripgrep narrows the listing; our matcher still decides, so its answer only has to be a superset
  if (pre) args.push('--glob', pre, '--glob', '.gitignore');
  args.push('--', '.');
  const filter = new TraversalFilter(ctx, dir.rel);
  const candidates: string[] = [];
  const withIgnore = new Set<string>();
  const take = (line: string) => {
    if (!line) return;
    const r = line.startsWith('./') ? line.slice(2) : line;
    const rel = dir.rel === '.' ? r : `${dir.rel}/${r}`;
    if (r === '.gitignore' || r.endsWith('/.gitignore')) withIgnore.add(rel === '.gitignore' ? '.' : rel.slice(0, -'/.gitignore'.length));
    // the hard-link check (an lstat each) is made as the listing streams in, while ripgrep is
    // still walking: after it, the 4,000 lstats of a 20k-file tree doubled the call's time
    if (match(r) && !filter.linked(rel)) candidates.push(rel);
  };
  await runRipgrep(rg, args, dir.real, take, 'find_files', signal);
  // the listing shows every .gitignore below the start, so no directory needs probing
  filter.knowGitignores(withIgnore);
  return candidates.filter((rel) => !filter.file(rel, true)).sort(comparePaths);
}

export const findFiles: ToolDef = {
  name: 'find_files',
  kind: 'search',
  description: 'Find files by glob (`**` allowed): a pattern without / matches names, with / relative paths.',
  longDescription:
    'Find files under path (default the workspace root) matching a glob: `*` and `?` within a name, `**` across directories, `{a,b}` alternatives. ' +
    'A pattern without `/` matches file names (e.g. `*.ts`), a pattern with `/` matches paths relative to path (e.g. `src/**/*.test.ts`). ' +
    'Skips .gitignore\'d files, heavy directories and quarantined or denied files. Results are sorted and capped (_max_find_results, default 200) with a note.',
  inputSchema: schema({ pattern: str('glob, e.g. "*.ts" or "src/**/*.test.ts"'), path: str('directory to search (default ".")') }, ['pattern']),
  async run(ctx, a: Args, signal) {
    const pattern = a.pattern as string;
    if (pattern.length === 0) throw new ToolError('bad_args', 'find_files: pattern is empty. Give a glob such as "*.ts".');
    const c = await ctx.resolve('find_files', (a.path as string | undefined) ?? '.');
    const st = lstatOf(c);
    if (!st) throw new ToolError('not_found', `${c.rel} does not exist.`);
    if (!st.isDirectory()) throw new ToolError('not_directory', `${c.rel} is not a directory; find_files searches directories.`);
    // in an additional directory: searched from there, its paths shown absolute
    const t = traversalRoot(ctx, c);
    const found = ctx.rgPath ? await findFilesRipgrep(t.ctx, ctx.rgPath, t.dir, pattern, signal) : findBuiltin(t.ctx, t.dir, pattern, signal);
    const all = t.ctx === ctx ? found : found.map(t.shown);
    const cap = ctx.policy.maxFindResults;
    if (all.length <= cap) return { matches: all, count: all.length };
    return {
      matches: all.slice(0, cap),
      count: all.length,
      truncated: true,
      note: `showing the first ${cap} of ${all.length}; narrow the pattern or path, or raise tools_policies.local_fs._max_find_results.`,
    };
  },
};
