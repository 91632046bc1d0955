// Path confinement (docs/local-fs.md, "Confinement"): every path a tool touches is resolved here, on the real
// filesystem, component by component, and must land inside the canonical root. Other modules
// (the shell tool's cd, the ACP client's fs/* server) import these same functions. The walk
// itself (walkPath) is the one every component-by-component resolution uses: confinement here,
// the shell's `cd` and its path words, so a link is followed the same way wherever it is met.
import fs from 'node:fs';
import path from 'node:path';
import { ToolError } from './errors.ts';

/** Paths longer than this are refused up front rather than left to ENAMETOOLONG. */
export const MAX_PATH_LENGTH = 4096;
const MAX_SEGMENT_LENGTH = 255;

/** A path that passed confinement. `real` is what to open; `rel` is what to show. */
export interface ConfinedPath {
  /** the argument as the caller gave it */
  requested: string;
  /** the requested path relative to the root after lexical normalisation (`/` separators) */
  requestedRel: string;
  /** absolute lexical form (before symlinks), checked by the quarantine too */
  lexical: string;
  /** absolute real path: symlinks resolved; for a new path, the real nearest ancestor + the rest */
  real: string;
  /** `real` relative to the root with `/` separators; `.` for the root itself */
  rel: string;
  /** whether `real` existed when it was resolved */
  exists: boolean;
  /** identity (device, inode) of what was checked, when it existed: opening must find the same */
  dev?: number;
  ino?: number;
  /** when it is a regular file: its link count (more than one: it has other names) */
  links?: number;
}

/** Canonicalises a root once (realpath); it must be an existing directory. */
export function canonicalRoot(dir: string): string {
  let real: string;
  try {
    real = fs.realpathSync.native(path.resolve(dir));
  } catch (err) {
    throw new ToolError('not_found', `The root ${dir} does not exist (${(err as Error).message}). Pass an existing directory.`);
  }
  if (!fs.statSync(real).isDirectory()) throw new ToolError('not_directory', `The root ${dir} is not a directory. Pass a directory.`);
  return real;
}

/**
 * Refuses what must never reach normalisation: empty, NUL and control characters, backslashes,
 * a leading `~`, URIs and drive letters, over-long paths and segments. Throws `bad_path`.
 */
export function checkPathSyntax(p: unknown): asserts p is string {
  const bad = (why: string): never => {
    throw new ToolError('bad_path', `Path refused: ${why}. Give a plain path relative to the workspace root, with / separators.`);
  };
  if (typeof p !== 'string') bad('not a string');
  const s = p as string;
  if (s.length === 0) bad('it is empty');
  if (s.length > MAX_PATH_LENGTH) bad(`longer than ${MAX_PATH_LENGTH} characters`);
  // C0 controls, DEL, C1 controls: they confuse logs and approvals, and NUL truncates in C
  if (/[\u0000-\u001f\u007f-\u009f]/.test(s)) bad('it contains a control character');
  if (s.includes('\\')) bad('it contains a backslash (a separator on Windows, a literal here)');
  if (s.startsWith('~')) bad('a leading ~ (home directories are not expanded)');
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(s)) bad('it looks like a URI or a drive letter');
  for (const seg of s.split('/')) if (seg.length > MAX_SEGMENT_LENGTH) bad(`a segment is longer than ${MAX_SEGMENT_LENGTH} characters`);
}

/** Component-wise containment (`/r` holds `/r/x`, not `/r_evil`). */
export function isWithin(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * The root a real path lies in: the workspace `root` when it is inside it, else the session's
 * additional directory holding it, else `root`. What is relative to a root (a traversal's
 * filters, the hard links of protected files) is looked for there.
 */
export function rootHolding(root: string, extra: readonly string[] | undefined, real: string): string {
  return isWithin(root, real) ? root : (extra?.find((d) => isWithin(d, real)) ?? root);
}

/**
 * Whether an absolute path lies inside `root` as written (after `..` is collapsed, before any
 * symlink is followed), as the MCP filesystem server checks besides the resolved path. A path
 * written through another name of the root itself (`/tmp/ws` for the root `/private/tmp/ws`) is
 * inside: one of its ancestors is the root.
 */
export function withinAsWritten(root: string, lexical: string): boolean {
  if (isWithin(root, lexical)) return true;
  for (let a = lexical; ; ) {
    const up = path.dirname(a);
    if (up === a) return false;
    a = up;
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(a, { throwIfNoEntry: false });
    } catch {
      continue;
    }
    if (!st) continue;
    try {
      if (fs.realpathSync.native(a) === root) return true;
    } catch {
      return false;
    }
  }
}

/** `abs` relative to `root` with `/` separators; `.` for the root itself. */
export function relativeTo(root: string, abs: string): string {
  const rel = path.relative(root, abs);
  if (rel === '') return '.';
  return path.sep === '/' ? rel : rel.split(path.sep).join('/');
}

/** Links followed in one path before it counts as a loop: what Linux allows before ELOOP. */
export const MAX_LINKS = 40;

/** Where a component walk stopped before the end of its path. */
export interface WalkStop {
  /**
   * `missing`: a component does not exist; `not_directory`: a component that is not a directory
   * has more after it; `loop`: more than MAX_LINKS links; `unreadable`: lstat or readlink failed
   * otherwise (`error` says how).
   */
  why: 'missing' | 'not_directory' | 'loop' | 'unreadable';
  /** the path of the component it stopped at (for `not_directory`, the non-directory) */
  at: string;
  /** the components after it, in walking order (what is left of a link's target first) */
  rest: string[];
  /** the first link of the path as written that was being followed, when the stop is inside its target */
  link?: string;
  error?: Error;
}

export interface PathWalk {
  /** where the walk got to: every component resolved, links followed where they occur */
  real: string;
  /** lstat of the final component, when it was reached by name (not by `..`, not the base itself) */
  last?: fs.Stats;
  stop?: WalkStop;
}

/**
 * Resolves `target` from the real directory `base` one component at a time, as the kernel does:
 * each link is replaced by its target where it occurs, so `link/..` is the parent of the link's
 * target, not of the link; an absolute target starts at `/`. Stops at the first component that
 * is missing, not a directory with more after it, a link too many, or unreadable, and says so;
 * never throws. What a stop means (an error, a new path, "cannot tell") is the caller's.
 */
export function walkPath(base: string, target: string): PathWalk {
  // a stack: the next component last; a link's target goes on top, so the top `fromLink`
  // components came from the target of `link` (the first link of the path as written)
  const pending = target.split('/').reverse();
  let fromLink = 0;
  let link: string | undefined;
  let current = target.startsWith('/') ? '/' : base;
  let last: fs.Stats | undefined;
  let links = 0;
  while (pending.length) {
    const name = pending.pop()!;
    const inLink = fromLink > 0 ? link : undefined;
    if (fromLink > 0 && --fromLink === 0) link = undefined;
    if (name === '' || name === '.') continue;
    if (last && !last.isDirectory()) {
      pending.push(name); // the stop is at the non-directory: this component is still to walk
      return stopped(current, 'not_directory', current, pending, inLink);
    }
    if (name === '..') {
      current = path.dirname(current);
      last = undefined;
      continue;
    }
    const next = current === '/' ? `/${name}` : `${current}/${name}`;
    let st: fs.Stats | undefined;
    try {
      // a missing name answers undefined: no error built (a walk to a new path is common)
      st = fs.lstatSync(next, { throwIfNoEntry: false });
    } catch (err) {
      return stopped(current, 'unreadable', next, pending, inLink, err as Error);
    }
    if (!st) return stopped(current, 'missing', next, pending, inLink);
    if (!st.isSymbolicLink()) {
      current = next;
      last = st;
      continue;
    }
    if (++links > MAX_LINKS) return stopped(current, 'loop', next, pending, inLink);
    let to: string;
    try {
      to = fs.readlinkSync(next);
    } catch (err) {
      return stopped(current, 'unreadable', next, pending, inLink, err as Error);
    }
    const parts = to.split('/');
    for (let i = parts.length - 1; i >= 0; i--) pending.push(parts[i]);
    fromLink += parts.length;
    link = inLink ?? next;
    if (to.startsWith('/')) current = '/';
    last = undefined; // `current` is the directory the link is in
  }
  return last ? { real: current, last } : { real: current };
}

/** A walk that stopped at `at`; `pending` is what was left to walk (a stack: reversed here). */
function stopped(real: string, why: WalkStop['why'], at: string, pending: string[], link: string | undefined, error?: Error): PathWalk {
  const stop: WalkStop = { why, at, rest: pending.reverse() };
  if (link !== undefined) stop.link = link;
  if (error) stop.error = error;
  return { real, stop };
}

/**
 * Resolves `requested` against the canonical `root` on the real filesystem and refuses it unless
 * the result lies inside. Symlinks are resolved where they occur, so `link/..` means the link
 * target's parent, as the kernel sees it. A dangling or looping link is an escape. For a path
 * that does not exist, the nearest existing ancestor is resolved and the rest appended.
 * `extra`: a session's additional roots, canonical (local_fs/extra_roots.ts checked them): a
 * path is inside when it lies inside any root both as resolved and as written; one inside an
 * additional root is shown (`rel`, `requestedRel`) by its absolute path.
 */
export function confine(root: string, requested: string, extra: readonly string[] = []): ConfinedPath {
  checkPathSyntax(requested);
  const lexical = path.resolve(root, requested);
  const walk = walkPath(root, requested);
  const { real, exists } = walk.stop ? afterStop(root, requested, walk.stop) : { real: walk.real, exists: true };
  const realRoot = isWithin(root, real) ? root : extra.find((r) => isWithin(r, real));
  if (realRoot === undefined) {
    throw new ToolError('escape', `Path ${requested} resolves outside the workspace root${extra.length ? ' and the additional directories' : ''}. Use a path inside ${[root, ...extra].join(' or ')}.`);
  }
  // inside as resolved is not enough: as written it must not leave either (`link/../..`)
  const writtenRoot = withinAsWritten(root, lexical) ? root : extra.find((r) => withinAsWritten(r, lexical));
  if (writtenRoot === undefined) {
    throw new ToolError('escape', `Path ${requested} leaves the workspace root as written (${lexical}), even though it resolves inside. Write the path inside ${[root, ...extra].join(' or ')}.`);
  }
  const lexRel = path.relative(root, lexical);
  const requestedRel = writtenRoot !== root ? lexical : lexRel === '' ? '.' : lexRel.split(path.sep).join('/');
  const out: ConfinedPath = { requested, requestedRel, lexical, real, rel: realRoot === root ? relativeTo(root, real) : real, exists };
  if (exists) {
    const st = walk.last ?? fs.statSync(real);
    out.dev = st.dev;
    out.ino = st.ino;
    if (st.isFile()) out.links = st.nlink;
  }
  return out;
}

/** What confinement makes of a walk that stopped: a new path (the rest appended), or a refusal. */
function afterStop(root: string, requested: string, s: WalkStop): { real: string; exists: false } {
  if (s.link !== undefined || s.why === 'loop') {
    const why = s.why === 'loop' ? 'a symlink loop' : 'a dangling symlink';
    throw new ToolError('escape', `Path ${requested} goes through ${why} (${relativeTo(root, s.link ?? s.at)}); that counts as leaving the workspace.`);
  }
  if (s.why === 'not_directory') throw new ToolError('not_directory', `${requested}: ${relativeTo(root, s.at)} is a file, not a directory.`);
  if (s.why === 'unreadable') throw new ToolError('io_error', `Cannot resolve ${requested}: ${s.error?.message}.`);
  const rest = s.rest.filter((r) => r !== '' && r !== '.');
  if (rest.includes('..')) {
    throw new ToolError('bad_path', `Path ${requested} goes up (..) from a directory that does not exist. Give the path without it.`);
  }
  return { real: path.join(s.at, ...rest), exists: false };
}

/** The directories traversals never descend into (list_dir shows them, marked). */
export const DEFAULT_SKIP_DIRS: readonly string[] = Object.freeze([
  '.git', '.hg', '.svn', 'node_modules', 'dist', 'build', 'target', '.venv', 'venv', '__pycache__',
  '.next', '.nuxt', 'coverage', 'vendor', '.cache', '.tox', '.mypy_cache', '.pytest_cache',
  '.gradle', '.turbo', '.parcel-cache',
]);

/**
 * Whether `dir` or a directory above it holds one of `names` (a `.git`, a `go.mod`): what a
 * toolset that works on a repository or a module asks before it is offered in a session there.
 */
export function foundUpwards(dir: string, names: readonly string[]): boolean {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (names.some((n) => fs.lstatSync(path.join(d, n), { throwIfNoEntry: false }))) return true;
    if (path.dirname(d) === d) return false;
  }
}
