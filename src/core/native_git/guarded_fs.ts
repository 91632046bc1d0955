// The file system isomorphic-git is given: node:fs's promises with every write checked first.
// A write must land inside the git dir or the working tree, through no link (the parent resolved,
// the file itself not a link), and never in the git dir's hooks or config: so whatever a call
// does, and whatever shape a repository on disk takes, no hook and no git config is ever written
// (the write wall of `.git/hooks` and `.git/config` holds by construction). A working-tree write
// to a path the envelope floor walls or quarantines is refused here too, should a plan miss it.
// Stats carry exact nanoseconds (exact_stats.ts), so an index git wrote is trusted, not re-hashed.
import fs from 'node:fs';
import path from 'node:path';
import { ToolError } from '../errors.ts';
import { isWithin, relativeTo } from '../paths.ts';
import { exactLstat, exactStat } from './exact_stats.ts';
import type { PromiseFsClient } from 'isomorphic-git';
import type { Repo } from './repo.ts';

/** Git dir entries no tool writes: they make git run programs. */
const GIT_WALL = /^(?:hooks(?:\/|$)|config$|config\.worktree$)/;

/** A working-tree path (repository-relative) no git tool may write, with why; null when writable. */
export type WorktreeWall = (rel: string) => string | null;

/** Where a write to `p` lands, or the refusal. */
function checkWrite(repo: Repo, wall: WorktreeWall, p: string, op: string): void {
  const abs = path.resolve(p);
  let parent: string;
  try {
    parent = fs.realpathSync.native(path.dirname(abs));
  } catch {
    throw new ToolError('io_error', `native-git: cannot ${op} ${abs}: its directory does not exist.`);
  }
  const target = path.join(parent, path.basename(abs));
  const st = fs.lstatSync(target, { throwIfNoEntry: false });
  if (st?.isSymbolicLink() && op !== 'unlink' && op !== 'rm') {
    throw new ToolError('escape', `native-git: refused to ${op} ${relativeTo(repo.top, target)}: it is a symbolic link, and writing through it would write where it points.`);
  }
  if (isWithin(repo.gitdir, target)) {
    const rel = relativeTo(repo.gitdir, target);
    if (GIT_WALL.test(rel)) throw new ToolError('envelope_denied', `native-git: refused to ${op} the git dir's ${rel}: hooks and git config are never written by a tool (write wall).`);
    return;
  }
  if (isWithin(repo.top, target) && target !== repo.top) {
    const why = wall(relativeTo(repo.top, target));
    if (why) throw new ToolError('envelope_denied', `native-git: refused to ${op} ${relativeTo(repo.top, target)}: ${why}.`);
    return;
  }
  throw new ToolError('escape', `native-git: refused to ${op} ${target}: outside the repository and its git dir.`);
}

/** The fs for isomorphic-git over `repo`: reads as node:fs, writes checked. */
export function guardedFs(repo: Repo, wall: WorktreeWall): PromiseFsClient {
  const p = fs.promises;
  const guard = <A extends unknown[], R>(op: string, fn: (file: string, ...rest: A) => Promise<R>) =>
    async (file: string, ...rest: A): Promise<R> => {
      checkWrite(repo, wall, String(file), op);
      return await fn(file, ...rest);
    };
  const promises = {
    readFile: p.readFile.bind(p),
    stat: exactStat,
    lstat: exactLstat,
    readdir: p.readdir.bind(p),
    readlink: p.readlink.bind(p),
    writeFile: guard('write', p.writeFile.bind(p) as (f: string, ...r: unknown[]) => Promise<void>),
    mkdir: guard('create', p.mkdir.bind(p) as (f: string, ...r: unknown[]) => Promise<unknown>),
    rmdir: guard('remove', p.rmdir.bind(p) as (f: string, ...r: unknown[]) => Promise<void>),
    unlink: guard('unlink', p.unlink.bind(p) as (f: string, ...r: unknown[]) => Promise<void>),
    rm: guard('rm', p.rm.bind(p) as (f: string, ...r: unknown[]) => Promise<void>),
    symlink: async (target: string, file: string) => {
      checkWrite(repo, wall, file, 'link');
      return await p.symlink(target, file);
    },
  };
  return Object.defineProperty({}, 'promises', { value: promises, enumerable: true }) as PromiseFsClient;
}
