// What a sandboxed command left under a protected name that did not exist when it started. The
// sandbox binds the write wall and the always-ask tier read-only where they exist; a name that
// does not exist yet has nothing to bind over, and a bind over a missing target makes bubblewrap
// create it on the host (an empty `.envrc` or `.mcp.json` in the person's tree, left behind by a
// crash). So the wall for missing names is a check after the fact: the workspace scan's
// write-tier hits before the command and after it, compared once every process of the command is
// gone (its PID namespace died with it). A new write-wall entry is removed and reported; a new
// always-ask entry stays only if a human says yes once more. A git dir that appears whole (an
// approved `git init`, `git clone`, `git submodule update --init`) and a new gitfile are asked
// about the same way, as one question each: keeping one means git will run what its config
// names; inside a git dir that was already there, a new config or hooks dir is a wall. What is
// taken away is moved, not deleted, into cxl's data dir (hidden from commands): the check cannot
// tell a command's file from one the person's editor made meanwhile, and nothing may be lost.
import { cpSync, mkdirSync, realpathSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { relativeTo } from '../../paths.ts';
import { gitDirAround } from '../../protect/git_dirs.ts';
import { scannerFor, type ScanHit } from '../../protect/scan.ts';
import { matchGlob, PROTECTED_PATHS, type ProtectionTier } from '../../protect/table.ts';
import { globTester } from '../../glob.ts';

export interface LeftBehind {
  /** the entry as it appeared (absolute) */
  path: string;
  tier: 'write_wall' | 'always_ask';
  /** why the name is protected (the table's reason) */
  reason: string;
  /** what became of it */
  outcome: 'removed' | 'kept';
  /** where a removed entry was moved to */
  movedTo?: string;
}

/** The write-tier names present in the roots now, by the path they were found at. */
export type Snapshot = ReadonlyMap<string, ScanHit>;

const isWriteTier = (t: ProtectionTier): t is 'write_wall' | 'always_ask' => t === 'write_wall' || t === 'always_ask';

function real(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}

/** The table's write-tier entries present in `roots` (the scan is warm: one lstat per directory). */
export function protectedNow(roots: readonly string[]): Snapshot {
  const out = new Map<string, ScanHit>();
  for (const root of new Set(roots.map(real))) {
    for (const h of scannerFor(root).scan().hits) if (isWriteTier(h.tier)) out.set(h.entry, h);
  }
  return out;
}

const NEW_GIT_DIR = 'a new git repository: git runs what its config and hooks name whenever it runs there';
const NEW_GITFILE = 'a gitfile: git in this directory uses the git dir it names, with that config and hooks';

const reasons = PROTECTED_PATHS.filter((e) => isWriteTier(e.tier)).map((e) => ({ tier: e.tier, reason: e.reason, test: globTester([matchGlob(e)]) }));

/** The table's reason for a name of `tier` (the first entry whose glob matches it). */
function reasonOf(h: ScanHit, root: string | undefined): string {
  if (h.by === 'git') return h.tier === 'always_ask' ? (h.entry.endsWith('/.git') && h.kind === 'file' ? NEW_GITFILE : NEW_GIT_DIR) : 'what git runs in a git dir (config, hooks, commondir)';
  const rel = root ? relativeTo(root, h.entry) : h.entry;
  return reasons.find((r) => r.tier === h.tier && (r.test(rel) || r.test(h.entry)))?.reason ?? 'a protected name';
}

/**
 * What is under a write-tier name now that was not before (outermost entries only). What lies in
 * a git dir none of whose protected entries were there before is that git dir, once, to ask
 * about; a new gitfile is asked about too.
 */
export function appeared(before: Snapshot, after: Snapshot, roots: readonly string[]): ScanHit[] {
  const inRoot = (p: string) => roots.some((r) => p.startsWith(`${r}/`));
  const out = new Map<string, ScanHit>();
  for (const h of after.values()) {
    if (before.has(h.entry)) continue;
    const git = gitDirAround(h.entry.slice(0, h.entry.lastIndexOf('/')));
    if (git && inRoot(git) && ![...before.keys()].some((b) => b.startsWith(`${git}/`))) {
      out.set(git, { path: git, kind: 'dir', entry: git, tier: 'always_ask', by: 'git' });
    } else if (h.by === 'git' && h.entry.endsWith('/.git') && h.kind === 'file') {
      out.set(h.entry, { ...h, tier: 'always_ask' });
    } else out.set(h.entry, h);
  }
  const fresh = [...out.values()];
  return fresh.filter((h) => !fresh.some((o) => o !== h && h.entry.startsWith(`${o.entry}/`)));
}

/**
 * Settles what `roots` hold now against `before`: walls removed, always-ask entries kept only when
 * `keep` says yes (a throw counts as no); what goes is moved under `stashDir`. A link is moved as
 * the link, never what it points to.
 */
export async function settle(before: Snapshot, roots: readonly string[], keep: (h: LeftBehind) => Promise<boolean>, stashDir: string): Promise<LeftBehind[]> {
  const out: LeftBehind[] = [];
  const reals = roots.map(real);
  const stash = path.join(stashDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`);
  for (const h of appeared(before, protectedNow(reals), reals)) {
    const tier = h.tier as LeftBehind['tier'];
    const root = reals.find((r) => h.entry.startsWith(`${r}/`));
    const item: LeftBehind = { path: h.entry, tier, reason: reasonOf(h, root), outcome: 'removed' };
    if (tier === 'always_ask' && (await keep(item).catch(() => false))) {
      out.push({ ...item, outcome: 'kept' });
      continue;
    }
    out.push({ ...item, movedTo: moveAside(h.entry, path.join(stash, root ? relativeTo(root, h.entry) : path.basename(h.entry))) });
  }
  return out;
}

/** Moves `entry` (a link as the link) to `to`, across file systems by copy and remove. */
function moveAside(entry: string, to: string): string {
  mkdirSync(path.dirname(to), { recursive: true });
  try {
    renameSync(entry, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    cpSync(entry, to, { recursive: true, verbatimSymlinks: true });
    rmSync(entry, { recursive: true, force: true });
  }
  return to;
}

/** The lines a person and the model read about it, one per entry. */
export function describeLeftBehind(items: readonly LeftBehind[]): string {
  return items
    .map((i) =>
      i.outcome === 'kept'
        ? `cxl: kept ${i.path}, which the command created (${i.reason}), after asking again`
        : i.tier === 'write_wall'
          ? `cxl: removed ${i.path}, which the command created: no command may create it (${i.reason}). It was moved to ${i.movedTo}. Use local_fs where a person can review the change, or make it by hand.`
          : `cxl: removed ${i.path}, which the command created (${i.reason}): nobody said yes to keeping it. It was moved to ${i.movedTo}. Ask the person to approve it when asked, or make it by hand.`,
    )
    .join('\n');
}
