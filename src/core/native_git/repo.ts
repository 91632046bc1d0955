// Which repository native-git works on, and what of it a call may name. The repository is looked
// for from the session root upwards but never above the allowed dir (the root itself unless
// tools_policies.native-git._allowed_dir says otherwise); its `.git` may be a directory, a link or
// a `gitdir:` file, and the git dir it leads to must lie inside the allowed dir (a pointer or link
// out of the workspace is refused, since reading and writing there is reading and writing outside
// it). Linked worktrees (a git dir with `commondir`) are refused: the in-process git does not
// know them. Paths are relative to the repository root, must stay inside it, never enter `.git`
// and never pass through a symbolic link (git itself refuses "beyond a symbolic link").
import fs from 'node:fs';
import path from 'node:path';
import { ToolError } from '../errors.ts';
import { isWithin, relativeTo } from '../paths.ts';
import { isGitDirByShape } from '../protect/git_dirs.ts';

export interface Repo {
  /** the working tree's top (real path) */
  top: string;
  /** the git dir (real path) */
  gitdir: string;
  /** the directory nothing may be read or written outside of (the allowed dir, real path) */
  base: string;
}

/** The repository for a session rooted at `root` (real path) with `base` the allowed dir (real path). */
export function openRepo(tool: string, root: string, base: string): Repo {
  const start = isWithin(base, root) ? root : base;
  for (let d = start; ; d = path.dirname(d)) {
    const dotGit = path.join(d, '.git');
    if (fs.lstatSync(dotGit, { throwIfNoEntry: false })) return { top: d, gitdir: gitDirFrom(tool, dotGit, base), base };
    if (d === base || path.dirname(d) === d) break;
  }
  if (isGitDirByShape(start)) {
    throw new ToolError('not_found', `${tool}: ${start} is a git dir itself (a bare repository or the inside of .git), not a working tree; native-git works on a checked-out repository.`);
  }
  for (let d = path.dirname(base); ; d = path.dirname(d)) {
    if (fs.lstatSync(path.join(d, '.git'), { throwIfNoEntry: false })) {
      throw new ToolError('escape', `${tool}: the git repository at ${d} lies outside the allowed directory ${base}. Start the agent at the repository root, or set tools_policies.native-git._allowed_dir = ${JSON.stringify(relativeTo(start, d))} to let the git tools use it.`);
    }
    if (path.dirname(d) === d) break;
  }
  throw new ToolError('not_found', `${tool}: no git repository at ${start}${start === base ? '' : ` or above it within ${base}`}: this workspace is not under version control.`);
}

/** The git dir a `.git` entry leads to, contained in `base`; refusals say why. */
function gitDirFrom(tool: string, dotGit: string, base: string): string {
  const st = fs.lstatSync(dotGit);
  let target: string;
  let how: string;
  if (st.isFile()) {
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(readSmall(dotGit));
    if (!m) throw new ToolError('not_found', `${tool}: ${dotGit} is a .git file that carries no gitdir: pointer; git cannot use it either.`);
    target = path.resolve(path.dirname(dotGit), m[1]);
    how = 'a .git gitdir: pointer';
  } else {
    target = dotGit;
    how = st.isSymbolicLink() ? 'a .git symbolic link' : '.git';
  }
  let real: string;
  try {
    real = fs.realpathSync.native(target);
  } catch {
    throw new ToolError('not_found', `${tool}: ${how} at ${dotGit} leads to ${target}, which does not exist.`);
  }
  if (!isWithin(base, real)) {
    throw new ToolError('escape', `${tool}: ${how} at ${dotGit} leads to ${real}, outside the allowed directory ${base}; reading or writing a repository there is refused.`);
  }
  if (!isGitDirByShape(real)) throw new ToolError('not_found', `${tool}: ${real} is not a git dir (no HEAD, objects and refs); git cannot use it either.`);
  if (fs.existsSync(path.join(real, 'commondir'))) {
    throw new ToolError('not_found', `${tool}: ${dotGit} belongs to a linked worktree (its git dir has commondir), which native-git does not support. Run git in the main working tree, or use local_shell for this one.`);
  }
  return real;
}

function readSmall(file: string): string {
  try {
    return fs.statSync(file).size > 65536 ? '' : fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/**
 * A path argument as a repository path (`/` separators, `.` for the whole repository). Refused:
 * control characters, leaving the repository, entering `.git`, a symbolic link on the way.
 */
export function repoPath(tool: string, repo: Repo, p: string): string {
  if (/[\u0000-\u001f\u007f]/.test(p)) throw new ToolError('bad_path', `${tool}: the path ${JSON.stringify(p)} contains a control character.`);
  const abs = path.resolve(repo.top, p === '' ? '.' : p);
  if (!isWithin(repo.top, abs)) throw new ToolError('escape', `${tool}: path ${JSON.stringify(p)} is outside the repository ${repo.top}. Paths are relative to the repository root.`);
  const rel = relativeTo(repo.top, abs);
  if (rel === '.') return '.';
  const parts = rel.split('/');
  if (parts.some((s) => s.toLowerCase() === '.git')) throw new ToolError('escape', `${tool}: ${rel} is inside the git dir; the git tools never name git internals.`);
  let d = repo.top;
  for (const seg of parts.slice(0, -1)) {
    d = path.join(d, seg);
    const st = fs.lstatSync(d, { throwIfNoEntry: false });
    if (!st) break;
    if (st.isSymbolicLink()) throw new ToolError('escape', `${tool}: ${rel} is beyond a symbolic link (${relativeTo(repo.top, d)}); name the path the link leads to, inside the repository.`);
  }
  return rel;
}
