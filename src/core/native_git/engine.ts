// The in-process git (isomorphic-git), loaded on the first git call so that a cold `cxl tool
// stat_file` or `cxl check` never pays for it, and handed the guarded file system (guarded_fs.ts)
// and the repository's directories. It never runs hooks, filters, fsmonitor, pagers or external
// diff programs, whatever the repository's config says: it has no way to.
import type * as IsoGit from 'isomorphic-git';
import { guardedFs } from './guarded_fs.ts';
import type { Repo } from './repo.ts';
import { worktreeWall } from './withheld.ts';

export type Git = typeof IsoGit;

/** What every isomorphic-git call takes: the guarded fs, the working tree, the git dir, a shared object cache. */
export interface GitArgs {
  fs: ReturnType<typeof guardedFs>;
  dir: string;
  gitdir: string;
  cache: object;
}

export interface GitCtx {
  git: Git;
  repo: Repo;
  args: GitArgs;
}

let loaded: Promise<Git> | undefined;

/** isomorphic-git, imported once. */
export function loadGit(): Promise<Git> {
  // bundled, its CommonJS build arrives as the namespace's `default`; from source, as the namespace
  loaded ??= import('isomorphic-git').then((m) => ((m as Partial<Git>).statusMatrix ? m : (m as unknown as { default: Git }).default) as Git);
  return loaded;
}

export async function gitContext(repo: Repo): Promise<GitCtx> {
  const git = await loadGit();
  return { git, repo, args: { fs: guardedFs(repo, worktreeWall), dir: repo.top, gitdir: repo.gitdir, cache: {} } };
}
