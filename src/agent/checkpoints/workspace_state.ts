// The workspace's tracked state: every file the file tools would see (not .gitignored, not under
// a heavy dir such as node_modules, not protected), each with the stat that tells a change (size,
// modification and change times, inode). Taken before and after a command, the two say which
// files the command created, changed or deleted; the content before is what checkpoints keep.
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_FS_POLICY } from '../../core/local_fs/policy.ts';
import { TraversalFilter, walk } from '../../core/local_fs/filter.ts';
import { defaultPathMatcher } from '../../core/protect/matcher.ts';

/** Files looked at, at most; past it a command's changes are not all known (and the checkpoint says so). */
export const MAX_TRACKED_FILES = 100_000;

/** What tells one version of a file from another, without reading it. */
export interface Stamp {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  mode: number;
}

export interface WorkspaceState {
  /** root-relative path → its stamp */
  files: Map<string, Stamp>;
  /** the walk stopped at MAX_TRACKED_FILES */
  capped: boolean;
}

export function stampOf(st: fs.Stats): Stamp {
  return { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, mode: st.mode & 0o7777 };
}

export function sameStamp(a: Stamp | null | undefined, b: Stamp | null | undefined): boolean {
  if (!a || !b) return !a && !b;
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

/** The stamp of one path now (null: no regular file there). */
export function stampAt(abs: string): Stamp | null {
  try {
    const st = fs.lstatSync(abs);
    return st.isFile() ? stampOf(st) : null;
  } catch {
    return null;
  }
}

/** The files under `root` as the file tools see them, each stamped; the directories `leaveOut` names (root-relative) not entered. */
export function scanWorkspace(root: string, limit = MAX_TRACKED_FILES, leaveOut?: ReadonlySet<string>): WorkspaceState {
  const ctx = { root, policy: { ...DEFAULT_FS_POLICY }, matcher: defaultPathMatcher };
  const filter = new TraversalFilter(ctx, '.');
  const files = new Map<string, Stamp>();
  for (const e of walk(ctx, filter, '.', { maxDepth: Infinity, linksCheckedByCaller: false, leaveOut })) {
    if (e.kind !== 'file') continue;
    if (files.size >= limit) return { files, capped: true };
    const st = e.stat ?? fs.lstatSync(path.join(root, e.rel), { throwIfNoEntry: false });
    if (st?.isFile()) files.set(e.rel, stampOf(st));
  }
  return { files, capped: false };
}

export interface StateChange {
  rel: string;
  /** its stamp before (null: the command created it) */
  before: Stamp | null;
  /** its stamp after (null: the command deleted it) */
  after: Stamp | null;
}

/** What differs between two states of the same root. */
export function diffStates(before: WorkspaceState, after: WorkspaceState): StateChange[] {
  const out: StateChange[] = [];
  for (const [rel, b] of before.files) {
    const a = after.files.get(rel);
    if (!a) {
      // past the cap the file may only have gone unseen
      if (!after.capped) out.push({ rel, before: b, after: null });
    } else if (!sameStamp(a, b)) out.push({ rel, before: b, after: a });
  }
  for (const [rel, a] of after.files) if (!before.files.has(rel) && !before.capped) out.push({ rel, before: null, after: a });
  return out.sort((x, y) => (x.rel < y.rel ? -1 : x.rel > y.rel ? 1 : 0));
}
