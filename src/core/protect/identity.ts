// Hard links: a second name of a quarantined or read-approve file is the same file, so the
// quarantine and the read-approve list cannot go by names alone. This index knows the identity
// (device, inode) of every quarantined and read-approve file in the user's home credential dirs
// and in the workspace root, and answers "is this file one of them?".
//
// Only a regular file with more than one link can be a second name of another file, so an
// ordinary file (one link) costs one integer compare; the scans run the first time a file with
// more links is looked up (lazily) and are kept until something may have made new names: a
// shell command or another toolset's tool ran (`identitiesChanged()`). For the same reason a
// scan keeps only the protected files that have more than one link when it runs: a name made
// later is made by such a call, and the scan after it sees the new link count. A file with
// several links that is not one of them (package stores hard-link heavily) reads as usual.
// The file tools' path gate, their traversals and the shell's argument words all ask the same
// `lookup`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_SKIP_DIRS } from '../paths.ts';
import { entriesOf } from './table.ts';
import { identityStat } from '../platform/runtime.ts';
import { defaultPathMatcher, type PathMatcher } from './matcher.ts';
import { entryClass, walkTree, type Visit } from './walk.ts';

export interface IdentityHit {
  tier: 'quarantine' | 'read_approve';
  /** absolute path of the protected name this file also has */
  path: string;
}

/** What a lookup needs of a stat: fs.Stats has it. */
export interface StatLike {
  dev: number;
  ino: number;
  nlink: number;
  isFile(): boolean;
}

/** dev → ino → hit */
type Table = Map<number, Map<number, IdentityHit>>;

interface Part {
  table: Table;
  generation: number;
  /** performance.now() when it was built */
  builtAt: number;
  /** entries looked at (files and dirs) */
  entries: number;
  /** the scan stopped at maxEntries */
  capped: boolean;
}

let generation = 0;

/** Something may have made new names (a shell command ran): every scan is redone when next needed. */
export function identitiesChanged(): void {
  generation++;
}

export interface IdentityOptions {
  /** the user's home (default os.homedir()) */
  home?: string;
  matcher?: PathMatcher;
  /** directory names the root scan does not enter (default: the heavy dirs traversals skip) */
  skipDirs?: readonly string[];
  /** a scan stops after this many entries (default 500,000) */
  maxEntries?: number;
  /**
   * Scans older than this are redone too (default: never). For a process that cannot see the
   * commands that make links (the client serving another agent's fs/* while that agent runs
   * commands elsewhere).
   */
  maxAgeMs?: number;
}

/** Quarantine and read-approve names under $HOME that are concrete (`at`): what the home scan starts from. */
const HOME_NAMES: readonly { name: string; tier: IdentityHit['tier'] }[] = [
  ...entriesOf('quarantine').flatMap((e) => (e.at ?? []).map((name) => ({ name, tier: 'quarantine' as const }))),
  ...entriesOf('read_approve').flatMap((e) => (e.at ?? []).map((name) => ({ name, tier: 'read_approve' as const }))),
];

/** Keeps `hit` for the file `st` when it has another name (more than one link). */
function record(table: Table, st: { dev: number; ino: number; nlink: number }, hit: IdentityHit): void {
  if (st.nlink <= 1) return;
  let byIno = table.get(st.dev);
  if (!byIno) table.set(st.dev, (byIno = new Map()));
  // a quarantine hit is never downgraded by a read-approve name of the same file
  const prev = byIno.get(st.ino);
  if (!prev || (prev.tier === 'read_approve' && hit.tier === 'quarantine')) byIno.set(st.ino, hit);
}

export class IdentityIndex {
  readonly home: string;
  readonly #matcher: PathMatcher;
  readonly #skip: Set<string>;
  readonly #max: number;
  readonly #maxAge: number;
  #home: Part | undefined;
  readonly #roots = new Map<string, Part>();

  constructor(opts: IdentityOptions = {}) {
    this.home = opts.home ?? os.homedir();
    this.#matcher = opts.matcher ?? defaultPathMatcher;
    this.#skip = new Set(opts.skipDirs ?? DEFAULT_SKIP_DIRS);
    this.#max = opts.maxEntries ?? 500_000;
    this.#maxAge = opts.maxAgeMs ?? Infinity;
  }

  #current(p: Part | undefined): p is Part {
    return p !== undefined && p.generation === generation && performance.now() - p.builtAt < this.#maxAge;
  }

  /**
   * The quarantined or read-approve file that `st` is a second name of, when `st` is a regular
   * file with more than one link; undefined otherwise. `root` is the workspace root.
   */
  lookup(st: StatLike, root: string): IdentityHit | undefined {
    if (st.nlink <= 1 || !st.isFile()) return undefined;
    return this.#known(st.dev, st.ino, root);
  }

  #known(dev: number, ino: number, root: string): IdentityHit | undefined {
    return this.#homePart().table.get(dev)?.get(ino) ?? this.#rootPart(root).table.get(dev)?.get(ino);
  }

  /**
   * True when both scans for `root` are current and found no protected file with a second name:
   * then no file can be one, and a traversal need not stat its files to ask.
   */
  knowsNone(root: string): boolean {
    const r = this.#roots.get(root);
    return this.#current(this.#home) && this.#current(r) && this.#home.table.size === 0 && r.table.size === 0;
  }

  /**
   * The same for a path (a shell argument's real path, each file find_files lists): lstat, never
   * following a final link, with the runtime's cheapest call (Deno's own is several times faster).
   */
  lookupPath(abs: string, root: string): IdentityHit | undefined {
    if (this.knowsNone(root)) return undefined;
    const st = identityStat(abs);
    return st && st.nlink > 1 && st.file ? this.#known(st.dev, st.ino, root) : undefined;
  }

  /** Builds both scans now (normally lazy); how many entries each looked at, and how many linked protected files it knows. */
  build(root: string): { home: { entries: number; known: number; capped: boolean }; root: { entries: number; known: number; capped: boolean } } {
    const count = (t: Table) => [...t.values()].reduce((n, m) => n + m.size, 0);
    const h = this.#homePart();
    const r = this.#rootPart(root);
    return { home: { entries: h.entries, known: count(h.table), capped: h.capped }, root: { entries: r.entries, known: count(r.table), capped: r.capped } };
  }

  #homePart(): Part {
    if (this.#current(this.#home)) return this.#home;
    const part: Part = { table: new Map(), generation, builtAt: performance.now(), entries: 0, capped: false };
    for (const { name, tier } of HOME_NAMES) this.#scanNamed(part, path.join(this.home, name), tier);
    // names with no fixed place (`id_rsa*`, `*.pem`, `.env`) directly in $HOME
    this.#scanDir(part, this.home, false);
    this.#home = part;
    return part;
  }

  #rootPart(root: string): Part {
    const have = this.#roots.get(root);
    if (this.#current(have)) return have;
    const part: Part = { table: new Map(), generation, builtAt: performance.now(), entries: 0, capped: false };
    this.#scanDir(part, root, true);
    this.#roots.set(root, part);
    return part;
  }

  /** One concrete credential path under $HOME: a file is recorded, a directory recorded whole. */
  #scanNamed(part: Part, abs: string, tier: IdentityHit['tier']): void {
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(abs, { throwIfNoEntry: false }); // ~/.ssh may be a link into a dotfiles repo
    } catch {
      return;
    }
    if (!st) return;
    part.entries++;
    if (st.isFile()) record(part.table, st, { tier, path: abs });
    else if (st.isDirectory()) this.#walkAll(part, abs, tier);
  }

  /** Every file below `dir` (a credential dir): all of them carry its tier. Links inside are not followed into directories. */
  #walkAll(part: Part, dir: string, tier: IdentityHit['tier']): void {
    this.#walk(part, dir, (e) => {
      if (e.kind === 'file') {
        const st = identityStat(e.path);
        if (st?.file) record(part.table, st, { tier, path: e.path });
      } else if (e.kind === 'link') {
        // a link inside a credential dir: the file it points at is that credential too
        let st: fs.Stats | undefined;
        try {
          st = fs.statSync(e.path, { throwIfNoEntry: false });
        } catch {
          return;
        }
        if (st?.isFile()) record(part.table, st, { tier, path: e.path });
      }
    });
  }

  /**
   * Files below `dir` whose own path the table protects (`.env`, `certs/x.pem`, `keys/.ssh/…`).
   * `deep`: the whole tree minus the heavy dirs; otherwise only `dir`'s own entries.
   */
  #scanDir(part: Part, dir: string, deep: boolean): void {
    this.#walk(
      part,
      dir,
      (e) => {
        if (e.kind === 'dir') return deep ? undefined : 'prune';
        if (e.kind !== 'file') return;
        const cls = entryClass(e, this.#matcher);
        if (cls === null) return;
        const st = identityStat(e.path);
        if (st?.file) record(part.table, st, { tier: cls === 'quarantined' ? 'quarantine' : 'read_approve', path: e.path });
      },
      this.#skip,
    );
  }

  /** The one protected-file walk, within what is left of the part's entry budget. */
  #walk(part: Part, dir: string, visit: Visit, skip?: ReadonlySet<string>): void {
    const r = walkTree(dir, visit, { limit: this.#max - part.entries, skip });
    part.entries += r.entries;
    if (r.capped) part.capped = true;
  }
}

/** The index the tools share (the user's real home, the shipped table). */
export const defaultIdentityIndex = new IdentityIndex();

/** `abs` as shown to people: root-relative inside the root, `~/…` under $HOME, else absolute. */
export function shownIdentity(abs: string, root: string, home: string): string {
  const inside = (base: string) => abs === base || abs.startsWith(base.endsWith('/') ? base : `${base}/`);
  if (inside(root)) return abs === root ? '.' : abs.slice(root.length + (root.endsWith('/') ? 0 : 1));
  if (inside(home)) return `~/${abs.slice(home.length + (home.endsWith('/') ? 0 : 1))}`;
  return abs;
}
