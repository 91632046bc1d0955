// What a sandboxed command left under a protected name that did not exist when it started. The
// sandbox acts on protected names that exist (hidden, or bound read-only); a name that does not
// exist yet has nothing to mount over, and a bind over a missing target makes bubblewrap create
// it on the host (an empty `.envrc` or `.mcp.json` in the person's tree, left behind by a crash).
// So the wall for missing names is a check after the fact: the workspace scan's hits of every
// tier before the command and after it, compared once every process of the command is gone (its
// PID namespace died with it). Each tier's rule for writes is applied to what appeared:
// - quarantine (`.ssh/authorized_keys` in a workspace that is the home, `.aws/credentials`,
//   `.netrc`, `id_rsa`): no tool writes one; removed and reported;
// - write wall (`.mcp.json`, `.vscode/`, `.bashrc`): removed and reported;
// - always ask (`.envrc`, `.husky/`): stays only if a human says yes once more;
// - read-approve (`.env`, `*.pem`, `*.key`): the tier guards reading what the person put there,
//   and what the command wrote is its own: kept, and reported in one line (later commands see it
//   only when an approval names it).
// A git dir that appears whole (an approved `git init`, `git clone`, `git submodule update
// --init`) and a new gitfile are asked about the same way, as one question each: keeping one
// means git will run what its config names; inside a git dir that was already there, a new
// config or hooks dir is a wall. What is taken away is moved, not deleted, into cxl's data dir
// (hidden from commands): the check cannot tell a command's file from one the person's editor
// made meanwhile, and nothing may be lost.
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
  tier: ProtectionTier;
  /** why the name is protected (the table's reason) */
  reason: string;
  /** what became of it */
  outcome: 'removed' | 'kept';
  /** where a removed entry was moved to */
  movedTo?: string;
}

/** The protected names present in the roots now, by the path they were found at. */
export type Snapshot = ReadonlyMap<string, ScanHit>;

/** Which tier settles a name that is in several (`.envrc` is read-approve and always-ask): the one whose rule is strictest for a write. */
const SETTLE_ORDER: readonly ProtectionTier[] = ['quarantine', 'write_wall', 'always_ask', 'read_approve'];
const stricter = (a: ScanHit, b: ScanHit) => SETTLE_ORDER.indexOf(a.tier) < SETTLE_ORDER.indexOf(b.tier);

function real(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}

/** The table's entries of every tier present in `roots` (the scan is warm: one lstat per directory). */
export function protectedNow(roots: readonly string[]): Snapshot {
  const out = new Map<string, ScanHit>();
  for (const root of new Set(roots.map(real))) {
    for (const h of scannerFor(root).scan().hits) {
      const had = out.get(h.entry);
      if (!had || stricter(h, had)) out.set(h.entry, h);
    }
  }
  return out;
}

const NEW_GIT_DIR = 'a new git repository: git runs what its config and hooks name whenever it runs there';
const NEW_GITFILE = 'a gitfile: git in this directory uses the git dir it names, with that config and hooks';

const reasons = PROTECTED_PATHS.map((e) => ({ tier: e.tier, reason: e.reason, test: globTester([matchGlob(e)]) }));

/** The table's reason for a name of `tier` (the first entry of that tier whose glob matches it). */
function reasonOf(h: ScanHit, root: string | undefined): string {
  if (h.by === 'git') return h.tier === 'always_ask' ? (h.entry.endsWith('/.git') && h.kind === 'file' ? NEW_GITFILE : NEW_GIT_DIR) : 'what git runs in a git dir (config, hooks, commondir)';
  const rel = root ? relativeTo(root, h.entry) : h.entry;
  return reasons.find((r) => r.tier === h.tier && (r.test(rel) || r.test(h.entry)))?.reason ?? 'a protected name';
}

/**
 * What is under a protected name now that was not before (outermost entries only). What lies in
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
 * Settles what `roots` hold now against `before`: quarantined and walled names removed,
 * always-ask entries kept only when `keep` says yes (a throw counts as no), read-approve ones
 * kept; what goes is moved under `stashDir`. A link is moved as the link, never what it points to.
 */
export async function settle(before: Snapshot, roots: readonly string[], keep: (h: LeftBehind) => Promise<boolean>, stashDir: string): Promise<LeftBehind[]> {
  const out: LeftBehind[] = [];
  const reals = roots.map(real);
  const stash = path.join(stashDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`);
  for (const h of appeared(before, protectedNow(reals), reals)) {
    const root = reals.find((r) => h.entry.startsWith(`${r}/`));
    const item: LeftBehind = { path: h.entry, tier: h.tier, reason: reasonOf(h, root), outcome: 'removed' };
    if (h.tier === 'read_approve' || (h.tier === 'always_ask' && (await keep(item).catch(() => false)))) {
      out.push({ ...item, outcome: 'kept' });
      continue;
    }
    out.push({ ...item, movedTo: moveAside(h.entry, path.join(stash, root ? relativeTo(root, h.entry) : path.basename(h.entry))) });
  }
  return out;
}

/**
 * Moves `entry` (a link as the link) to `to`, across file systems by copy and remove. An entry
 * that holds `to` (cxl's own data dir, made by the command where none was) goes to a name beside
 * it first: a directory cannot be renamed into itself.
 */
function moveAside(entry: string, to: string): string {
  let from = entry;
  if (to.startsWith(`${entry}/`)) {
    from = `${entry}.cxl-moving-${process.pid}`;
    renameSync(entry, from);
  }
  mkdirSync(path.dirname(to), { recursive: true });
  try {
    renameSync(from, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    cpSync(from, to, { recursive: true, verbatimSymlinks: true });
    rmSync(from, { recursive: true, force: true });
  }
  return to;
}

/** Read-approve names listed in the one line about them; the rest are counted. */
const NOTED_MAX = 5;

/** The lines a person and the model read about it, one per entry (the read-approve ones in one). */
export function describeLeftBehind(items: readonly LeftBehind[]): string {
  const lines = items
    .filter((i) => i.tier !== 'read_approve')
    .map((i) =>
      i.outcome === 'kept'
        ? `cxl: kept ${i.path}, which the command created (${i.reason}), after asking again`
        : i.tier === 'quarantine'
          ? `cxl: removed ${i.path}, which the command created: it is in the credential quarantine and no command may create it (${i.reason}). It was moved to ${i.movedTo}. Make it by hand if it is meant to be there.`
          : i.tier === 'write_wall'
            ? `cxl: removed ${i.path}, which the command created: no command may create it (${i.reason}). It was moved to ${i.movedTo}. Use local_fs where a person can review the change, or make it by hand.`
            : `cxl: removed ${i.path}, which the command created (${i.reason}): nobody said yes to keeping it. It was moved to ${i.movedTo}. Ask the person to approve it when asked, or make it by hand.`,
    );
  const noted = items.filter((i) => i.tier === 'read_approve').map((i) => i.path);
  if (noted.length) {
    const shown = noted.slice(0, NOTED_MAX).join(', ') + (noted.length > NOTED_MAX ? ` and ${noted.length - NOTED_MAX} more` : '');
    lines.push(`cxl: the command created ${noted.length === 1 ? 'a file' : `${noted.length} files`} under read-approve names (${shown}): kept, and hidden from later commands unless an approval names ${noted.length === 1 ? 'it' : 'them'}`);
  }
  return lines.join('\n');
}
