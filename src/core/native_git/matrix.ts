// The status matrix (isomorphic-git's rows: [path, head, workdir, stage]) computed in one pass
// each over the index, HEAD's tree and the working tree, instead of isomorphic-git's three-tree
// walk, which took 12 s on a 20,000-file repository where git takes 0.3 s. The rows are the same
// (status.ts, diff.ts and changes.ts read them unchanged), with one correction: a file whose
// mtime is not older than the index (racy git) is hashed rather than trusted. The index is never
// rewritten. An index this reader does not cover (index_file.ts), or core.autocrlf, takes
// isomorphic-git's own walk.
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import type { Dirent } from 'node:fs';
import { nodeCrypto } from '../platform/runtime.ts';
import type { GitCtx } from './engine.ts';
import { readHeadTree } from './head_tree.ts';
import { IgnoreRules } from './ignores.ts';
import { readIndexFile, type IndexEntry, type IndexFile } from './index_file.ts';
import { headOid } from './refs.ts';

export type Row = [string, number, number, number];

const GITLINK = 0o160000;
const U32 = 2 ** 32;

/** isomorphic-git's worthWalking: `p` is `base`, under it, or on the way to it. */
export function worthWalking(p: string, base: string): boolean {
  const b = base.endsWith('/') ? base.slice(0, -1) : base;
  if (b === '.' || b === '') return true;
  if (b.length >= p.length) return b === p || b.startsWith(`${p}/`);
  return p.startsWith(`${b}/`);
}

/**
 * The status matrix of `c` under `filepaths`, as isomorphic-git's statusMatrix returns it, less
 * the rows where HEAD, working tree and index agree (status, diff and the write tools look at no
 * other); `withUnchanged` keeps them, the whole matrix.
 */
export async function statusRows(c: GitCtx, filepaths: readonly string[] = ['.'], opts: { withUnchanged?: boolean } = {}): Promise<Row[]> {
  const index = readIndexFile(c.repo.gitdir);
  const autocrlf = await c.git.getConfig({ ...c.args, path: 'core.autocrlf' }).catch(() => undefined);
  if (index.unusual || (autocrlf !== undefined && autocrlf !== false && autocrlf !== 'false')) {
    const all = (await c.git.statusMatrix({ ...c.args, filepaths: [...filepaths] })) as Row[];
    return opts.withUnchanged ? all : all.filter((r) => !unchanged(r));
  }
  const filemode = await c.git.getConfig({ ...c.args, path: 'core.filemode' }).catch(() => undefined);
  const head = await readHeadTree(c, await headOid(c), index);
  const everything = filepaths.some((b) => b === '.' || b === '' || b === './');
  const worth = everything ? () => true : (p: string) => filepaths.some((b) => worthWalking(p, b));
  const links = new Set(head.links);
  const stagedDirs = new Set<string>();
  let lastDir = '';
  let gitlinks = false;
  for (const [p, e] of index.entries) {
    if (e.mode === GITLINK) {
      links.add(p);
      gitlinks = true;
    }
    // the index is sorted, so a file's directory is most often the one before's: checked without a slice
    const cut = p.lastIndexOf('/');
    if (cut <= 0 || (cut === lastDir.length && p.startsWith(lastDir))) continue;
    lastDir = p.slice(0, cut);
    for (let i = cut; i > 0; i = p.lastIndexOf('/', i - 1)) {
      const d = p.slice(0, i);
      if (stagedDirs.has(d)) break;
      stagedDirs.add(d);
    }
  }
  // the index's files and links, without its submodules: the index's own map when it has none
  const staged = gitlinks ? new Map([...index.entries].filter(([, e]) => e.mode !== GITLINK)) : index.entries;
  const inHead = head.whole ? (p: string) => staged.has(p) : (p: string) => head.files.has(p);
  // tracked files the walk finds are marked on their entry (no second set of 60,000 paths); the
  // rest (untracked, or in HEAD alone) are collected
  const others = walkWorktree(c.repo.top, c.repo.gitdir, {
    worth,
    links,
    tracked: (p) => staged.get(p),
    found: (e) => {
      e.present = true;
    },
    known: (p) => staged.has(p) || stagedDirs.has(p) || (!head.whole && (head.files.has(p) || head.dirs.has(p))),
  });
  const hasher = new WorkOids(c.repo.top, index, filemode !== false && filemode !== 'false');
  const rows: Row[] = [];
  const underLinks = links.size ? (p: string) => links.has(p) || underLink(p, links) : () => false;
  // each path once: the index's, then HEAD's not in the index, then the working tree's in neither
  for (const [p, s] of staged) {
    if ((!everything && !worth(p)) || underLinks(p)) continue;
    const h = head.whole ? s.oid : head.files.get(p);
    const w = s.present ? hasher.oid(p, s) : undefined;
    // most files of a large tree: HEAD, working tree and index agree (no row made, none sorted)
    if (!opts.withUnchanged && h === s.oid && w === h) continue;
    rows.push(row(p, h, w, s.oid));
  }
  if (!head.whole) {
    for (const [p, h] of head.files) {
      if (staged.has(p) || (!everything && !worth(p)) || underLinks(p)) continue;
      rows.push(row(p, h, others.has(p) ? hasher.oid(p, undefined) : undefined, undefined));
    }
  }
  for (const p of others) if (!staged.has(p) && !inHead(p) && !links.has(p)) rows.push([p, 0, 2, 0]);
  // isomorphic-git's row order (a depth-first walk over sorted names: `/` ends a component first);
  // the index's order differs only where a name has a character below `/` (`a.ts` and `a/b.ts`),
  // so the sort finds the rows almost in order and takes about one comparison a row
  return rows.sort((a, b) => walkOrder(a[0], b[0]));
}

/** HEAD, working tree and index agree: the row every caller passes over. */
function unchanged(r: Row): boolean {
  return r[1] === 1 && r[2] === 1 && r[3] === 1;
}

/** isomorphic-git's order of two paths: by UTF-16 code unit, with `/` below every other character. */
export function walkOrder(a: string, b: string): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return (x === 47 ? -1 : x) - (y === 47 ? -1 : y);
  }
  return a.length - b.length;
}

/** A row as isomorphic-git makes it: each of HEAD, workdir, stage as the index of its oid in [absent, HEAD's, workdir's, stage's]. */
function row(p: string, h: string | undefined, w: string | undefined, s: string | undefined): Row {
  const work = w === undefined ? 0 : w === h ? 1 : 2;
  const stage = s === undefined ? 0 : s === h ? 1 : s === w ? 2 : 3;
  return [p, h === undefined ? 0 : 1, work, stage];
}

function underLink(p: string, links: Set<string>): boolean {
  if (!links.size) return false;
  for (let i = p.indexOf('/'); i > 0; i = p.indexOf('/', i + 1)) if (links.has(p.slice(0, i))) return true;
  return false;
}

interface WalkRules {
  worth(p: string): boolean;
  links: Set<string>;
  /** the index entry of a tracked file */
  tracked(p: string): IndexEntry | undefined;
  /** a tracked file is in the working tree */
  found(e: IndexEntry): void;
  /** in HEAD or the index (as a file or a directory): never skipped as ignored */
  known(p: string): boolean;
}

/**
 * The working tree walked once, each directory read once, pruned as isomorphic-git prunes: its
 * tracked files and links (not followed) are reported through `found`, the other files and links
 * status looks at are returned. Ignore rules are asked only of what the index does not hold.
 */
function walkWorktree(top: string, gitdir: string, rules: WalkRules): Set<string> {
  const out = new Set<string>();
  let ignores: IgnoreRules | undefined;
  const ignored = (p: string) => (ignores ??= new IgnoreRules(top, gitdir)).isIgnored(p);
  const visit = (dir: string) => {
    let names: Dirent[];
    try {
      names = fs.readdirSync(dir ? `${top}/${dir}` : top, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of names) {
      const p = dir ? `${dir}/${d.name}` : d.name;
      let isDir = d.isDirectory();
      let isBlob = d.isFile() || d.isSymbolicLink();
      if (!isDir && !isBlob && !d.isFIFO() && !d.isSocket() && !d.isBlockDevice() && !d.isCharacterDevice()) {
        // the directory entry did not carry a type: ask
        const st = fs.lstatSync(path.join(top, p), { throwIfNoEntry: false });
        isDir = Boolean(st?.isDirectory());
        isBlob = Boolean(st?.isFile() || st?.isSymbolicLink());
      }
      // the common case first: a tracked file where the index has it
      const e = isBlob ? rules.tracked(p) : undefined;
      if (e) {
        if (rules.worth(p)) rules.found(e);
        continue;
      }
      if (!rules.worth(p) || rules.links.has(p)) continue;
      if (!rules.known(p) && ignored(p)) continue;
      if (isDir) visit(p);
      else if (isBlob) out.add(p);
    }
  };
  visit('');
  return out;
}

/**
 * A working-tree file's blob oid: the index's when its stat matches and is not racy, else hashed.
 * The stat is compared as git compares it (size, mtime, ctime, inode, owner, mode), to the
 * millisecond for mtime and to the second for ctime: what both runtimes report (Deno gives whole
 * seconds of ctime), and finer than git itself, which compares whole seconds. A plain lstat, not
 * node:fs's BigInt one, which cost twice as much per file.
 */
class WorkOids {
  readonly #top: string;
  /** the index's mtime in whole milliseconds: an entry not older than this is racy */
  readonly #indexMs: number;
  readonly #filemode: boolean;

  constructor(top: string, index: IndexFile, filemode: boolean) {
    this.#top = top;
    this.#indexMs = index.mtime[0] * 1000 + Math.floor(index.mtime[1] / 1e6);
    this.#filemode = filemode;
  }

  oid(p: string, e: IndexEntry | undefined): string | undefined {
    const abs = `${this.#top}/${p}`;
    const st = fs.lstatSync(abs, { throwIfNoEntry: false });
    if (!st) return undefined;
    if (e && this.#matches(e, st)) return e.oid;
    const bytes = st.isSymbolicLink() ? Buffer.from(fs.readlinkSync(abs)) : fs.readFileSync(abs);
    return nodeCrypto().createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
  }

  /** The entry's stat is the file's, and the entry was written before the index (else it is racy: git's rule). */
  #matches(e: IndexEntry, st: fs.Stats): boolean {
    const mtimeMs = e.mtimeSeconds * 1000 + Math.floor(e.mtimeNanoseconds / 1e6);
    return (
      e.size === st.size % U32 &&
      mtimeMs === Math.floor(st.mtimeMs) &&
      // git's racy-git rule: an entry written no earlier than the index may hide a same-size edit
      mtimeMs < this.#indexMs &&
      e.ctimeSeconds === Math.floor(st.ctimeMs / 1000) % U32 &&
      (process.platform === 'win32' || e.ino === st.ino % U32) &&
      (!this.#filemode || e.mode === normalizeMode(st.mode)) &&
      e.uid === st.uid % U32 &&
      e.gid === st.gid % U32
    );
  }
}

/** A stat mode as git records it: 100644, 100755, 120000, 040000 or 160000. */
function normalizeMode(mode: number): number {
  let type = mode > 0 ? mode >> 12 : 0;
  if (type !== 0o04 && type !== 0o10 && type !== 0o12 && type !== 0o16) type = 0o10;
  const perms = type !== 0o10 ? 0 : mode & 0o111 ? 0o755 : 0o644;
  return (type << 12) + perms;
}
