// Finding a program on PATH, the one way: the command checker asks what a command line's name
// will run (as the shell finds it), and cxl asks for the programs it starts itself (the sandbox,
// its limits, a toolset's go). Those must be programs no command can have put or changed there:
// a PATH that `npx` or a virtualenv prefixed with a directory of the workspace would otherwise
// let a repository's own `bwrap` run, unsandboxed, on an unasked `ls`. So the lookup for cxl's
// own programs skips relative entries, entries whose real directory lies inside a directory a
// command may write (a symlink into the workspace, `..`, the workspace itself), a program whose
// real file lies there (a link out of a trusted directory into the workspace), and a directory or
// file anyone else may write; and names the real file it chose, so what was checked is what runs.
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { isWithin } from '../paths.ts';

/** True when `p` is an executable regular file (links followed). */
export function isExecutableFile(p: string): boolean {
  try {
    // throwIfNoEntry: a miss is the common case on PATH, and exceptions cost more than the stat
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st || !st.isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The absolute directories of a PATH string, in order, without duplicates or relative entries. */
export function pathDirectories(pathEnv: string | undefined): string[] {
  const out: string[] = [];
  for (const d of (pathEnv ?? '').split(':')) if (d && path.isAbsolute(d) && !out.includes(d)) out.push(d);
  return out;
}

/** The first executable regular file named `name` in `dirs`, as PATH order finds it; null when none. */
export function findOnPath(name: string, dirs: readonly string[]): string | null {
  for (const d of dirs) {
    const p = path.join(d, name);
    if (isExecutableFile(p)) return p;
  }
  return null;
}

/** A PATH entry that held the program but was passed over, and why. */
export interface SkippedEntry {
  /** the entry as PATH has it */
  dir: string;
  why: string;
}

export interface TrustedProgram {
  /** the real path of the program chosen (what to spawn), or undefined when none qualifies */
  program?: string;
  /** entries that held one and were passed over */
  skipped: SkippedEntry[];
}

function realOrUndefined(p: string): string | undefined {
  try {
    return realpathSync.native(p);
  } catch {
    return undefined;
  }
}

/** Why a directory or file may not be trusted to hold what cxl starts: anyone may write it. */
function othersWrite(p: string): boolean {
  const st = statSync(p, { throwIfNoEntry: false });
  return st !== undefined && (st.mode & 0o002) !== 0;
}

/**
 * `name` on `pathEnv` for cxl to start itself: the first entry, in PATH order, that is absolute,
 * lies (as its real path) outside every directory of `avoid` (each compared as given and as its
 * real path), holds an executable regular file whose real path lies outside them too, and where
 * neither that file nor its directory (nor the entry's) is writable by others.
 */
export function findTrustedProgram(name: string, pathEnv: string | undefined, avoid: readonly string[]): TrustedProgram {
  const fences = new Set<string>();
  for (const a of avoid) {
    if (!path.isAbsolute(a)) continue;
    fences.add(path.resolve(a));
    const r = realOrUndefined(a);
    if (r) fences.add(r);
  }
  const inside = (p: string) => [...fences].some((f) => isWithin(f, p));
  const skipped: SkippedEntry[] = [];
  const seen = new Set<string>();
  for (const dir of (pathEnv ?? '').split(':')) {
    if (seen.has(dir)) continue;
    seen.add(dir);
    // an empty entry is the working directory, the workspace itself
    if (dir === '' || !path.isAbsolute(dir)) {
      if (isExecutableFile(path.resolve(dir, name))) skipped.push({ dir: dir || '(empty: the working directory)', why: 'a relative entry, found from the working directory' });
      continue;
    }
    const candidate = path.join(dir, name);
    if (!isExecutableFile(candidate)) continue;
    const realDir = realOrUndefined(dir);
    const real = realOrUndefined(candidate);
    if (!realDir || !real) continue;
    if (inside(realDir) || inside(path.resolve(dir))) {
      skipped.push({ dir, why: `inside ${[...fences].find((f) => isWithin(f, realDir) || isWithin(f, path.resolve(dir)))}, where a command may write` });
      continue;
    }
    if (inside(real)) {
      skipped.push({ dir, why: `${name} there is a link to ${real}, inside ${[...fences].find((f) => isWithin(f, real))}, where a command may write` });
      continue;
    }
    const loose = [realDir, path.dirname(real), real].find(othersWrite);
    if (loose) {
      skipped.push({ dir, why: `${loose} is writable by others` });
      continue;
    }
    return { program: real, skipped };
  }
  return { skipped };
}
