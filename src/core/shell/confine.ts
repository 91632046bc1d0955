// Directory resolution for `cd` and containment by path components. Resolution walks the target
// one component at a time from an already-real base, following symlinks as the kernel does, so a
// `..` after a symlinked directory climbs out of the link's target, not out of its lexical parent.
import { lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { isWithin } from '../paths.ts';

const MAX_LINKS = 40; // what Linux allows before ELOOP

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
  const pending = target.split('/').reverse();
  let current = path.isAbsolute(target) ? '/' : base;
  let links = 0;
  while (pending.length) {
    const part = pending.pop()!;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      current = path.dirname(current);
      continue;
    }
    const next = current === '/' ? `/${part}` : `${current}/${part}`;
    let st;
    try {
      st = lstatSync(next);
    } catch {
      throw new ResolveError('not_found', `${next} does not exist`);
    }
    if (st.isSymbolicLink()) {
      if (++links > MAX_LINKS) throw new ResolveError('loop', `too many symlinks resolving ${target}`);
      const link = readlinkSync(next);
      pending.push(...link.split('/').reverse());
      if (path.isAbsolute(link)) current = '/';
      continue;
    }
    if (!st.isDirectory()) throw new ResolveError('not_directory', `${next} is not a directory`);
    current = next;
  }
  return current;
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
