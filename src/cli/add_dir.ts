// --add-dir DIR (the UI and `cxl -p`): more directories the agent's tools reach, as they reach the
// session root. Each is resolved from the current directory, as --cwd is, and checked as the agent
// checks an ACP additional directory (core/local_fs/extra_roots.ts): a bad one is a usage error
// before anything starts, not a session that fails to open.
import path from 'node:path';
import { additionalRoots } from '../core/local_fs/extra_roots.ts';
import { UsageError } from './args.ts';

/** The flag's directories, canonical and deduplicated (the root itself left out); `command` names who refuses. */
export function addDirFlag(command: string, given: unknown, root: string): string[] {
  const dirs = Array.isArray(given) ? given : typeof given === 'string' ? [given] : [];
  const out: string[] = [];
  for (const d of dirs) {
    if (typeof d !== 'string' || d === '') throw new UsageError(`${command}: --add-dir needs a directory.`);
    try {
      for (const real of additionalRoots([path.resolve(d)], { root })) if (!out.includes(real)) out.push(real);
    } catch (err) {
      throw new UsageError(`${command}: --add-dir ${d}: ${(err as Error).message}`);
    }
  }
  return out;
}
