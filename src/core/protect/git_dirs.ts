// The two git protections no glob can state, found on the filesystem when a path is written:
// a git dir under any name (the write wall of `**/.git/**` for `x.git`, a renamed or bare repo:
// git only asks for HEAD, objects and refs), and the hooks dir that `core.hooksPath` names in
// git config (always ask: git runs its scripts on commit and push). Both are re-read on every
// check, so a config changed meanwhile counts at once; a check costs a few lstats.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import type { ProtectedFact } from './table.ts';
import { isWithin, relativeTo } from '../paths.ts';

const kind = (p: string): 'file' | 'dir' | 'link' | null => {
  const st = fs.lstatSync(p, { throwIfNoEntry: false });
  return !st ? null : st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'link' : st.isFile() ? 'file' : null;
};

/**
 * Whether `dir` is a git dir by shape, as git itself recognises one: HEAD (a file, or an old
 * symlink HEAD) with objects/ and refs/ beside it, or HEAD with commondir (a linked worktree's
 * git dir). HEAD is looked at first, so an ordinary directory costs one lstat.
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
  return kind(path.join(dir, 'objects')) === 'dir' && kind(path.join(dir, 'refs')) === 'dir';
}

/** The nearest directory at or above `abs` that is a git dir by shape, or null. */
export function gitDirAround(abs: string): string | null {
  for (let d = abs; ; d = path.dirname(d)) {
    if (isGitDirByShape(d)) return d;
    if (path.dirname(d) === d) return null;
  }
}

/** Where the repository holding `dir` keeps its git dir, and its working tree top (null: bare). */
function repoOf(dir: string): { gitDir: string; commonDir: string; top: string | null } | null {
  for (let d = dir; ; d = path.dirname(d)) {
    const dotGit = path.join(d, '.git');
    const k = kind(dotGit);
    let gitDir: string | null = null;
    if (k === 'dir') gitDir = dotGit;
    else if (k === 'file') {
      // a worktree or submodule: `.git` is a file holding `gitdir: <path>`
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(readSmall(dotGit) ?? '');
      if (m) gitDir = path.resolve(d, m[1]);
    }
    if (gitDir) {
      const common = readSmall(path.join(gitDir, 'commondir'))?.trim();
      return { gitDir, commonDir: common ? path.resolve(gitDir, common) : gitDir, top: d };
    }
    if (isGitDirByShape(d)) return { gitDir: d, commonDir: d, top: null };
    if (path.dirname(d) === d) return null;
  }
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
  const repo = repoOf(root);
  const xdg = process.env.XDG_CONFIG_HOME || path.join(home, '.config');
  const files = [
    '/etc/gitconfig',
    path.join(xdg, 'git', 'config'),
    path.join(home, '.gitconfig'),
    ...(repo ? [path.join(repo.commonDir, 'config'), path.join(repo.gitDir, 'config.worktree')] : []),
  ];
  // hooks run in the working tree top (or the git dir of a bare repository): relative values resolve there
  const base = repo ? (repo.top ?? repo.gitDir) : root;
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
