// The file-system side of the path rules: where a word of a shell step leads from the directory
// the step runs in (as written, normalised, and as resolved through symlinks, the way the kernel
// will), its class in the one table of protected paths (quarantine.ts's PathMatcher), what a
// recursive reader would meet below it, and which repository git would use. Never throws for a
// word: a path that does not exist is classified by the nearest part that does.
import fs from 'node:fs';
import path from 'node:path';
import { walkPath } from '../paths.ts';
import { findGitEntry } from '../protect/git_dirs.ts';
import { defaultPathMatcher, type PathClass } from '../protect/matcher.ts';

/** stat that answers undefined for anything it cannot tell (missing, no permission, too long, not a directory). */
export function statOf(p: string): fs.Stats | undefined {
  try {
    return fs.statSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * `word` taken from the real directory `base`: the lexical form (`..` collapsed as written) and
 * the real form (each existing component resolved, symlinks followed as the kernel follows them,
 * so `link/..` climbs out of the link's target; from where the walk stops, the rest appended as
 * written: where a writer would create it).
 */
export function resolveWord(base: string, word: string): { lexical: string; real: string; exists: boolean } {
  const lexical = path.resolve(base, word);
  const walk = walkPath(base, word);
  if (!walk.stop) return { lexical, real: walk.real, exists: true };
  return { lexical, real: path.resolve(walk.stop.at, ...walk.stop.rest), exists: false };
}

/** The class of an absolute path in the protected-paths table (quarantine, read-approve, or none). */
export function classOf(...abs: string[]): PathClass {
  return defaultPathMatcher.classify(...abs);
}

// what a recursive reader of a directory would meet: the one walk for protected files
export { firstProtected as scanProtected, SCAN_LIMIT, type Holds } from '../protect/walk.ts';

/**
 * The git directory git discovers from `dir` (real), as git_dirs.ts answers it for every asker:
 * the first `.git` walking up (directory or gitfile), or a directory that is itself a git dir (a
 * bare repository, a linked worktree's git dir: its config runs core.fsmonitor and friends too).
 * Null when there is none.
 */
export function discoverGitDir(dir: string): string | null {
  return findGitEntry(dir)?.found ?? null;
}
