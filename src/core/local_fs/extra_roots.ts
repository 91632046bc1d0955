// A session's additional directories (ACP `additionalDirectories`): each is checked once, when the
// session starts, and kept canonical (symlinks resolved then), so confinement (`confine`'s `extra`
// in ../paths.ts) compares real paths only. Refused: a relative path, a missing one, a file, `/`,
// the home directory or one holding it (every credential is under it), and a protected directory
// (the quarantine: ~/.ssh, ~/.aws, cxl's own data…), as written or as resolved.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ToolError } from '../errors.ts';
import { isWithin } from '../paths.ts';
import { defaultPathMatcher, type PathMatcher } from '../protect/matcher.ts';

export interface ExtraRootsOptions {
  /** the session's canonical root (an additional directory equal to it is dropped) */
  root: string;
  /** default: os.homedir() */
  home?: string;
  matcher?: PathMatcher;
}

/** The additional directories, canonical and deduplicated; throws `bad_path` naming the first refused and why. */
export function additionalRoots(dirs: readonly unknown[], o: ExtraRootsOptions): string[] {
  const out: string[] = [];
  for (const d of dirs) {
    const real = additionalRoot(d, o);
    if (real !== o.root && !out.includes(real)) out.push(real);
  }
  return out;
}

function additionalRoot(d: unknown, o: ExtraRootsOptions): string {
  const refuse = (why: string): never => {
    throw new ToolError('bad_path', `The additional directory ${JSON.stringify(d)} is refused: ${why}.`);
  };
  if (typeof d !== 'string' || d.length === 0 || d.includes('\0')) return refuse('give an absolute path to a directory');
  if (!path.isAbsolute(d)) return refuse('it is relative; give it as an absolute path');
  let real: string;
  try {
    real = fs.realpathSync.native(d);
  } catch (err) {
    return refuse(`it does not exist (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); create it first`);
  }
  if (!fs.statSync(real).isDirectory()) refuse('it is not a directory');
  if (real === path.parse(real).root) refuse('it is the file system root');
  let home: string;
  try {
    home = fs.realpathSync.native(o.home ?? os.homedir());
  } catch {
    home = o.home ?? os.homedir();
  }
  if (isWithin(real, home)) refuse(`it holds the home directory ${home}, and with it every credential; name a directory inside it`);
  const m = o.matcher ?? defaultPathMatcher;
  // a directory whose contents are quarantined is protected itself (its name alone may not match)
  const lexical = path.resolve(d);
  if (m.classify(lexical, real, `${lexical}/x`, `${real}/x`) === 'quarantined') refuse('it is a protected directory (credentials or cxl\'s own data); no tool reads or writes there');
  return real;
}

