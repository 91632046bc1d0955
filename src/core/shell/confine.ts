// Directory resolution for `cd` and containment by path components. Resolution walks the target
// one component at a time from an already-real base with the walk confinement uses (paths.ts
// walkPath), following symlinks as the kernel does, so a `..` after a symlinked directory climbs
// out of the link's target, not out of its lexical parent.
import { realpathSync, statSync } from 'node:fs';
import { isWithin, walkPath } from '../paths.ts';

export class ResolveError extends Error {
  constructor(
    readonly reason: 'not_found' | 'not_directory' | 'loop',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The real path of the directory `target` names when the current directory is `base` (which
 * must itself be real). Throws ResolveError when a component is missing, is not a directory, or
 * the links loop. Never falls back to a lexical answer.
 */
export function resolveDirectory(base: string, target: string): string {
  const walk = walkPath(base, target);
  const s = walk.stop;
  if (s?.why === 'loop') throw new ResolveError('loop', `too many symlinks resolving ${target}`);
  if (s?.why === 'not_directory') throw new ResolveError('not_directory', `${s.at} is not a directory`);
  if (s) throw new ResolveError('not_found', `${s.at} does not exist`);
  if (walk.last && !walk.last.isDirectory()) throw new ResolveError('not_directory', `${walk.real} is not a directory`);
  return walk.real;
}

/** The real path of an existing directory given as an absolute path. */
export function realDirectory(dir: string): string {
  const real = realpathSync.native(dir);
  if (!statSync(real).isDirectory()) throw new ResolveError('not_directory', `${dir} is not a directory`);
  return real;
}

/**
 * True when `p` is `root` or below it, compared by components (`/a/b` is not inside `/a/bc`):
 * the same containment test the file tools use.
 */
export const isInside: (root: string, p: string) => boolean = isWithin;
