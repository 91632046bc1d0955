// The one walk of a directory tree in search of protected files. The sandbox's workspace scan,
// the hard-link index (credential dirs in $HOME, protected names in the workspace) and the
// shell's look below a recursive reader's directory each walked on their own, and each had its
// own idea of how an entry is named, whether a link is followed, what an unreadable directory
// means and how an entry is classified; a protected file one of them missed was missed there
// only. Here: entries are `dir/name` as walked, an unreadable directory is skipped (what cannot
// be read here cannot be read by a command either), a link is an entry that is entered only when
// the caller follows links (each real directory once), and an entry's class is that of its path
// and, for a link, of the real path it leads to.
import { readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { defaultPathMatcher, type PathClass, type PathMatcher } from './matcher.ts';
import { isWithin } from '../paths.ts';

type Kind = 'dir' | 'file' | 'other';

export interface WalkEntry {
  /** absolute path as walked (`dir/name`; below a followed link, under the link's real target) */
  path: string;
  /** the path from where the walk started (after `WalkOptions.rel`), `/` separators */
  rel: string;
  name: string;
  kind: Kind | 'link';
  /** a link's target when the walk resolves links: its real path and what it is (undefined: dangling) */
  target?: { real: string; kind: Kind };
}

export interface WalkOptions {
  /** the start's own path from some root, which entries' `rel` continue (default: '') */
  rel?: string;
  /** entries looked at before the walk stops and says `capped` (default: no limit) */
  limit?: number;
  /** names of directories never entered */
  skip?: ReadonlySet<string>;
  /**
   * `entry` (default): a link is visited as a link, never resolved; `resolve`: its target is
   * looked up for the visitor; `follow`: that, and a link to a directory is entered too.
   */
  links?: 'entry' | 'resolve' | 'follow';
}

/** What the visitor says of an entry: `stop` ends the walk; `prune` keeps it out of a directory. */
export type Visit = (e: WalkEntry) => 'stop' | 'prune' | void;

export interface WalkResult {
  /** entries looked at (the one past the limit included) */
  entries: number;
  /** stopped at the limit: entries past it were not seen */
  capped: boolean;
  /** the visitor said stop */
  stopped: boolean;
}

const kindOf = (e: { isDirectory(): boolean; isFile(): boolean }): Kind => (e.isDirectory() ? 'dir' : e.isFile() ? 'file' : 'other');

/** A link's real target and its kind, or undefined when it dangles (or loops, or cannot be read). */
function targetOf(p: string): WalkEntry['target'] {
  try {
    const st = statSync(p);
    return { real: realpathSync.native(p), kind: kindOf(st) };
  } catch {
    return undefined;
  }
}

/** Walks the tree below `start` depth first, every entry to `visit`, directories as it says. */
export function walkTree(start: string, visit: Visit, o: WalkOptions = {}): WalkResult {
  const limit = o.limit ?? Infinity;
  const links = o.links ?? 'entry';
  // with links followed, a directory can be reached twice (or forever): each real one once
  const seen = links === 'follow' ? new Set<string>([start]) : undefined;
  const stack: { dir: string; rel: string }[] = [{ dir: start, rel: o.rel ?? '' }];
  let entries = 0;
  while (stack.length) {
    const { dir, rel } = stack.pop()!;
    let dirents: Dirent[];
    try {
      dirents = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const d of dirents) {
      if (++entries > limit) return { entries, capped: true, stopped: false };
      const e: WalkEntry = { path: dir === '/' ? `/${d.name}` : `${dir}/${d.name}`, rel: rel ? `${rel}/${d.name}` : d.name, name: d.name, kind: d.isSymbolicLink() ? 'link' : kindOf(d) };
      if (e.kind === 'link' && links !== 'entry') e.target = targetOf(e.path);
      const said = visit(e);
      if (said === 'stop') return { entries, capped: false, stopped: true };
      if (said === 'prune') continue;
      const into = e.kind === 'dir' ? (o.skip?.has(d.name) ? undefined : e.path) : links === 'follow' && e.target?.kind === 'dir' ? e.target.real : undefined;
      if (into === undefined) continue;
      if (seen) {
        if (seen.has(into)) continue;
        seen.add(into);
      }
      stack.push({ dir: into, rel: e.rel });
    }
  }
  return { entries, capped: false, stopped: false };
}

/** The class of an entry: of its path, and for a resolved link of the real path it leads to (the strongest). */
export function entryClass(e: WalkEntry, matcher: PathMatcher = defaultPathMatcher): PathClass {
  return e.target ? matcher.classify(e.path, e.target.real) : matcher.classify(e.path);
}

/** Entries a recursive reader's directory is walked for before the answer is "cannot tell". */
export const SCAN_LIMIT = 20_000;

export type Holds = { path: string; cls: 'quarantined' | 'read_approve' } | { path: string; cls: 'outside'; target: string } | 'too-many' | null;

/**
 * What a recursive reader of `dir` would meet: the first quarantined or read-approve entry below
 * it (either makes the read need a human), `too-many` past `limit` entries (it cannot be ruled
 * out), or null. With `follow`, linked directories are entered too, as the reader would, and with
 * `within`, a link the reader would follow out of that directory is met like a protected entry
 * (`outside`: what it leads to is read as if named on the command line).
 */
export function firstProtected(dir: string, follow: boolean, limit = SCAN_LIMIT, within?: string): Holds {
  let hit: Holds = null;
  const r = walkTree(
    dir,
    (e) => {
      const cls = entryClass(e);
      if (cls) {
        hit = { path: e.path, cls };
        return 'stop';
      }
      if (follow && within !== undefined && e.target && !isWithin(within, e.target.real)) {
        hit = { path: e.path, cls: 'outside', target: e.target.real };
        return 'stop';
      }
    },
    { limit, links: follow ? 'follow' : 'entry' },
  );
  return r.capped ? 'too-many' : hit;
}
