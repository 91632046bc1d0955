// Finds the protected files and directories inside a workspace, for the sandbox to hide or
// re-protect when a command starts. The first scan walks the tree; later ones re-read only the
// directories whose mtime/ctime changed since (one lstat per directory), because the view is
// built for every command and a full walk of a big tree on each one would cost more than the
// command. Each directory is read through the one protected-file walk (walk.ts). Symlinked
// directories are not followed (their target is scanned where it lives, if inside); a link whose
// name or target is protected is reported by the real path it leads to.
import { lstatSync, type Stats } from 'node:fs';
import { globTester } from '../glob.ts';
import { isGitDirByShape } from './git_dirs.ts';
import { entriesOf, matchGlob, type ProtectionTier } from './table.ts';
import { entryClass, walkTree, type WalkEntry } from './walk.ts';

export interface ScanHit {
  /** absolute real path (what the sandbox mounts over) */
  path: string;
  kind: 'dir' | 'file';
  /** quarantine and read_approve are hidden; write_wall and always_ask are bound read-only */
  tier: ProtectionTier;
  /** the entry as walked (differs from `path` for a link): what is removed when it must not stay */
  entry: string;
  /** `table`: a name of the table; `git`: what runs code in a git dir found by its shape */
  by: 'table' | 'git';
}

export interface ScanResult {
  hits: ScanHit[];
  /** directories looked at */
  dirs: number;
  /** directories re-read this time (all of them on the first scan) */
  reread: number;
  /** the walk stopped at the directory cap: files past it are not found */
  incomplete: boolean;
}

/** More directories than this and the scan stops (and says so) rather than stall every command. */
export const MAX_SCAN_DIRS = 200_000;

// Write-tier entries act through their `at` names only: `**/.git/**` has none, because an
// approved `git commit` must still write .git/objects; `.git/hooks` and `.git/config` have.
const WRITE_TIERS: ProtectionTier[] = ['write_wall', 'always_ask'];
/**
 * What makes git run code or look elsewhere, in any git dir (a submodule's under .git/modules, a
 * linked worktree's under .git/worktrees, a nested repository's): bound read-only like the
 * table's `.git/config` and `.git/hooks`. A `.git` file (a gitfile naming the git dir) is too.
 */
const GIT_DIR_WALL = new Set(['config', 'config.worktree', 'hooks', 'commondir', 'gitdir']);

// A home-only entry (`~/bin`) is matched anchored at the home: a project's `bin/` is ordinary.
const writeEntries = () => WRITE_TIERS.flatMap((t) => entriesOf(t).filter((e) => e.at && e.at.length).map((e) => ({ tier: t, home: e.home === true, test: globTester([matchGlob(e)]) })));

/**
 * A directory whose mtime or ctime was this close to the moment it was read may change again in
 * the same timestamp tick (file times advance by the kernel's coarse clock, and Deno reports
 * ctime in whole seconds), and an equal stamp would then hide the change: such a directory is
 * read again on the next scan, until a read finds its stamp older than this (git's racy rule).
 */
export const RACY_MS = 2000;

interface DirState {
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  /** the stamp was too fresh when read to vouch for the contents later */
  racy: boolean;
  /** the subdirectories walked into: absolute and root-relative path, and whether it is walled */
  subdirs: { abs: string; rel: string; wall: boolean }[];
  /** protected entries directly in this directory */
  hits: ScanHit[];
}

function stamp(st: Stats, now: number): Pick<DirState, 'mtimeMs' | 'ctimeMs' | 'ino' | 'racy'> {
  return { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, racy: now - Math.max(st.mtimeMs, st.ctimeMs) < RACY_MS };
}

/** One workspace's cached tree. */
export class WorkspaceScanner {
  readonly #dirs = new Map<string, DirState>();
  readonly #write = writeEntries();
  #count = 0;
  #reread = 0;
  #incomplete = false;

  /** `now`: the clock the racy rule reads (tests move it; file times stay the kernel's). */
  constructor(
    readonly root: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The protected entries present now. */
  scan(): ScanResult {
    this.#count = 0;
    this.#reread = 0;
    this.#incomplete = false;
    const hits: ScanHit[] = [];
    this.#visit(this.root, '', false, hits);
    return { hits, dirs: this.#count, reread: this.#reread, incomplete: this.#incomplete };
  }

  #forget(dir: string): void {
    const st = this.#dirs.get(dir);
    if (!st) return;
    this.#dirs.delete(dir);
    for (const s of st.subdirs) this.#forget(s.abs);
  }

  #visit(dir: string, rel: string, inWall: boolean, hits: ScanHit[]): void {
    if (this.#count >= MAX_SCAN_DIRS) {
      this.#incomplete = true;
      return;
    }
    this.#count++;
    // the one system call a warm scan makes per directory
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (!st || !st.isDirectory()) {
      this.#forget(dir);
      return;
    }
    let cached = this.#dirs.get(dir);
    if (!cached || cached.racy || cached.mtimeMs !== st.mtimeMs || cached.ctimeMs !== st.ctimeMs || cached.ino !== st.ino) {
      const old = cached;
      cached = this.#read(dir, rel, st, inWall);
      if (old) {
        const now = new Set(cached.subdirs.map((x) => x.abs));
        for (const s of old.subdirs) if (!now.has(s.abs)) this.#forget(s.abs);
      }
      this.#dirs.set(dir, cached);
      this.#reread++;
    }
    for (const h of cached.hits) hits.push(h);
    // inside a directory bound read-only, nested wall entries need no mount of their own
    for (const sub of cached.subdirs) this.#visit(sub.abs, sub.rel, inWall || sub.wall, hits);
  }

  /** One directory's protected entries and the subdirectories to walk, read through the one walk. */
  #read(dir: string, rel: string, st: Stats, inWall: boolean): DirState {
    const out: DirState = { ...stamp(st, this.now()), subdirs: [], hits: [] };
    const gitDir = !inWall && isGitDirByShape(dir);
    walkTree(dir, (e) => this.#entry(e, inWall, gitDir, out), { rel, links: 'resolve' });
    return out;
  }

  /**
   * One entry: a hidden one is a hit and not walked; a write-tier one is a hit, a directory bound
   * read-only whole. A link is covered at the real path it leads to, and never walked through.
   */
  #entry(e: WalkEntry, inWall: boolean, gitDir: boolean, out: DirState): 'prune' {
    // a dangling link: nothing to hide, and a mount onto it would fail; sockets, fifos, devices: nothing to read
    const kind = e.kind === 'link' ? e.target?.kind : e.kind;
    if (kind !== 'dir' && kind !== 'file') return 'prune';
    const at = { path: e.target?.real ?? e.path, kind, entry: e.path };
    const hide = entryClass(e);
    if (hide) {
      out.hits.push({ ...at, tier: hide === 'quarantined' ? 'quarantine' : 'read_approve', by: 'table' });
      // hidden and also a write-tier name (`.envrc`): a command that creates it is settled like one
      const w = inWall ? undefined : this.#write.find((x) => (!x.home && x.test(e.rel)) || x.test(e.path));
      if (w) out.hits.push({ ...at, tier: w.tier, by: 'table' });
      return 'prune';
    }
    let wall = false;
    if (!inWall) {
      const w = this.#write.find((x) => (!x.home && x.test(e.rel)) || x.test(e.path));
      if (w) {
        out.hits.push({ ...at, tier: w.tier, by: 'table' });
        wall = kind === 'dir';
      } else if ((gitDir && GIT_DIR_WALL.has(e.name)) || (e.name === '.git' && kind === 'file')) {
        out.hits.push({ ...at, tier: 'write_wall', by: 'git' });
        wall = kind === 'dir';
      }
    }
    if (e.kind === 'dir') out.subdirs.push({ abs: e.path, rel: e.rel, wall });
    // the walk goes no deeper than this directory: the scan visits subdirectories from its cache
    return 'prune';
  }
}

const scanners = new Map<string, WorkspaceScanner>();

/** The scanner of one workspace root (real path), kept for the life of the process. */
export function scannerFor(root: string): WorkspaceScanner {
  let s = scanners.get(root);
  if (!s) {
    s = new WorkspaceScanner(root);
    scanners.set(root, s);
  }
  return s;
}
