// What only the filesystem can say about git, answered once for every asker: whether a directory
// is a git dir whatever its name (the write wall of `**/.git/**` for `x.git`, a bare repo, a linked
// worktree's or a submodule's git dir), which repository git finds from a directory (the shell
// asks it for every git it runs), and the hooks dir that `core.hooksPath` names in git config
// (always ask: git runs its scripts on commit and push). Two answers to "is this a git dir?" used
// to disagree on linked worktrees; there is one now. Everything is re-read on every check, so a
// config changed meanwhile counts at once; a check costs a few lstats.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import type { ProtectedFact } from './table.ts';
import { isWithin, relativeTo } from '../paths.ts';

/** What `p` is, not following a final link (null: missing or unreadable). */
function kind(p: string): 'file' | 'dir' | 'link' | null {
  const st = fs.lstatSync(p, { throwIfNoEntry: false });
  return !st ? null : st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'link' : st.isFile() ? 'file' : null;
}

/** Whether `p` is a directory, following links as git's access() does. */
function isDirFollowing(p: string): boolean {
  try {
    return fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/**
 * Whether `dir` is a git dir, as git itself recognises one (setup.c, is_git_directory): HEAD (a
 * file, or an old symlink HEAD) with objects/ and refs/ beside it (links to directories count:
 * git follows them), or HEAD with commondir (a linked worktree's git dir, whose objects and refs
 * are in the dir commondir names). HEAD is looked at first, so an ordinary directory costs one
 * lstat. The one answer: the file tools' write wall, the shell's repository discovery and the
 * hooks lookup all ask it.
 */
export function isGitDirByShape(dir: string): boolean {
  let head: ReturnType<typeof kind>;
  try {
    head = kind(path.join(dir, 'HEAD'));
  } catch {
    return false; // ENOTDIR and friends: not a directory at all
  }
  if (head !== 'file' && head !== 'link') return false;
  if (kind(path.join(dir, 'commondir')) === 'file') return true;
  return isDirFollowing(path.join(dir, 'objects')) && isDirFollowing(path.join(dir, 'refs'));
}

/** The nearest directory at or above `abs` that is a git dir by shape, or null. */
export function gitDirAround(abs: string): string | null {
  for (let d = abs; ; d = path.dirname(d)) {
    if (isGitDirByShape(d)) return d;
    if (path.dirname(d) === d) return null;
  }
}

/**
 * The git dir a `.git` entry stands for: itself when it is a directory (or a link to one), the
 * directory a gitfile's `gitdir:` line names (a linked worktree, a submodule's
 * `.git/modules/<name>`, `git init --separate-git-dir`), else null (git refuses to run there).
 */
export function gitDirOf(dotGit: string): string | null {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(dotGit, { throwIfNoEntry: false });
  } catch {
    return null;
  }
  if (!st) return null;
  if (st.isDirectory()) return dotGit;
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(readSmall(dotGit) ?? '');
  return m ? path.resolve(path.dirname(dotGit), m[1]) : null;
}

/** A repository as git discovers it from a directory. */
export interface Repo {
  /** what the walk up found: a `.git` entry (directory or gitfile) or a git dir itself */
  found: string;
  /** the git dir git uses (a gitfile followed; null: a `.git` git cannot use, and refuses to run in) */
  gitDir: string | null;
  /** where objects, refs and the shared config are (commondir followed) */
  commonDir: string | null;
  /** the top of the working tree (null: git found a git dir itself, a bare repository or the inside of one) */
  top: string | null;
}

/**
 * What git finds from the real directory `dir` walking up (setup.c's discovery): the first `.git`
 * of any kind (a directory, a gitfile, a link; one git would reject still counts, so nothing past
 * it is taken for the repository in use) or the first directory that is a git dir itself (a bare
 * repository, the inside of a `.git`, a worktree's or submodule's git dir). An lstat or two per
 * level; discoverRepo() reads on from there.
 */
export function findGitEntry(dir: string): Pick<Repo, 'found' | 'top'> | null {
  for (let d = dir; ; d = path.dirname(d)) {
    const dotGit = path.join(d, '.git');
    let there: boolean;
    try {
      there = fs.lstatSync(dotGit, { throwIfNoEntry: false }) !== undefined;
    } catch {
      there = false; // ENOTDIR, EACCES: nothing git could use here either
    }
    if (there) return { found: dotGit, top: d };
    if (isGitDirByShape(d)) return { found: d, top: null };
    if (path.dirname(d) === d) return null;
  }
}

/** The repository git uses from `dir`: what findGitEntry found, with its git dir and common dir. */
export function discoverRepo(dir: string): Repo | null {
  const r = findGitEntry(dir);
  if (!r) return null;
  const gitDir = r.top === null ? r.found : gitDirOf(r.found);
  if (!gitDir) return { ...r, gitDir: null, commonDir: null };
  const common = readSmall(path.join(gitDir, 'commondir'))?.trim();
  return { ...r, gitDir, commonDir: common ? path.resolve(gitDir, common) : gitDir };
}

function readSmall(file: string): string | null {
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > 1 << 20) return null;
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * Every `core.hooksPath` value in a git config text (section and key names are case-insensitive;
 * values may be quoted; `#` and `;` start comments outside quotes). Includes are not followed.
 */
export function hooksPathValues(text: string): string[] {
  const out: string[] = [];
  let section = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('[')) {
      const m = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]\s*(.*)$/.exec(line);
      section = m ? m[1].toLowerCase() : '';
      if (!m || !m[2]) continue;
      // `[core] hooksPath = x` on one line
      const rest = m[2];
      if (section === 'core') pushValue(rest, out);
      continue;
    }
    if (section === 'core') pushValue(line, out);
  }
  return out;
}

function pushValue(line: string, out: string[]): void {
  const m = /^hookspath\s*=\s*(.*)$/i.exec(line);
  if (!m) return;
  let v = '';
  let kept = 0; // length of `v` up to its last character that was quoted or not blank
  let quoted = false;
  const s = m[1];
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && i + 1 < s.length) {
      const n = s[++i];
      v += n === 't' ? '\t' : n === 'n' ? '\n' : n;
      kept = v.length;
    } else if (c === '"') {
      quoted = !quoted;
      kept = v.length;
    } else if (!quoted && (c === '#' || c === ';')) break;
    else if (!quoted && (c === ' ' || c === '\t')) {
      if (v.length) v += c; // inner blanks stay; leading and trailing ones do not
    } else {
      v += c;
      kept = v.length;
    }
  }
  v = v.slice(0, kept);
  if (v) out.push(v);
}

export interface HooksDir {
  /** absolute directory git runs hooks from */
  dir: string;
  /** the value as written and the config file that set it */
  value: string;
  file: string;
}

/**
 * The directories `core.hooksPath` names for the repository holding `root`, from its local and
 * worktree config, the user's global config and the system config. Every value found counts
 * (not only the one git would pick): protecting one more directory costs nothing.
 */
export function hooksDirs(root: string, home: string = os.homedir()): HooksDir[] {
  const repo = discoverRepo(root);
  const xdg = process.env.XDG_CONFIG_HOME || path.join(home, '.config');
  const files = [
    '/etc/gitconfig',
    path.join(xdg, 'git', 'config'),
    path.join(home, '.gitconfig'),
    ...(repo?.gitDir && repo.commonDir ? [path.join(repo.commonDir, 'config'), path.join(repo.gitDir, 'config.worktree')] : []),
  ];
  // hooks run in the working tree top (or the git dir of a bare repository): relative values resolve there
  const base = repo ? (repo.top ?? repo.found) : root;
  const out: HooksDir[] = [];
  for (const file of files) {
    const text = readSmall(file);
    if (!text) continue;
    for (const value of hooksPathValues(text)) {
      const expanded = value === '~' ? home : value.startsWith('~/') ? path.join(home, value.slice(2)) : value;
      if (expanded.startsWith('~')) continue; // ~user: not this user's
      let dir = path.resolve(base, expanded);
      try {
        dir = fs.realpathSync.native(dir);
      } catch {
        /* not there yet: protect the name as written */
      }
      out.push({ dir, value, file });
    }
  }
  return out;
}

/**
 * What git makes of writing the real path `real` (inside `root`): inside a git dir by shape is
 * the write wall; inside a core.hooksPath dir is always ask. Null for an ordinary path.
 */
export function gitWriteFact(real: string, root: string, home?: string, hooks?: readonly HooksDir[]): ProtectedFact | null {
  return gitWallFact(real, root) ?? hooksDirFact(real, root, home, hooks);
}

/** The write wall for a path inside a git dir by shape, or null. */
export function gitWallFact(real: string, root: string): ProtectedFact | null {
  const gitDir = gitDirAround(path.dirname(real));
  if (!gitDir) return null;
  const where = isWithin(root, gitDir) ? `\`${relativeTo(root, gitDir)}\`` : gitDir;
  return { tier: 'write_wall', path: relativeTo(root, real), why: `inside the git dir ${where} (HEAD, objects and refs): git internals are written by git, never by a tool` };
}

/** Always ask for a path inside a directory core.hooksPath names, or null. `hooks`: hooksDirs(root) when the caller has it. */
export function hooksDirFact(real: string, root: string, home?: string, hooks?: readonly HooksDir[]): ProtectedFact | null {
  for (const h of hooks ?? hooksDirs(root, home)) {
    if (isWithin(h.dir, real) && real !== h.dir) {
      return { tier: 'always_ask', path: relativeTo(root, real), why: `in the hooks dir core.hooksPath = ${JSON.stringify(h.value)} names (${h.file}): git runs its scripts on commit and push` };
    }
  }
  return null;
}
