// HEAD's tree as a flat map (path to blob oid) and the set of its directories, read once per
// status or diff: a few hundred tree objects for a 20,000-file repository, each read through
// isomorphic-git's object store (loose or packed) with the call's shared cache. A directory whose
// tree oid is the one the index's cache tree records for it holds exactly the index's entries
// there, so it is taken from the index and not read (all of it when nothing is staged: then
// `whole` says so and nothing is copied, the caller reads HEAD's entries from the index itself).
import type { GitCtx } from './engine.ts';
import type { IndexFile } from './index_file.ts';
import { objectStore, parseCommit, parseTree } from './objects.ts';

export interface HeadTree {
  /** each file's (or link's) blob oid */
  files: Map<string, string>;
  dirs: Set<string>;
  /** submodules (gitlinks): status leaves them, and everything under them, out */
  links: Set<string>;
  /** HEAD's tree is the index's (its cache tree's top is HEAD's tree): files, dirs and links are left empty */
  whole?: boolean;
}

const GITLINK = 0o160000;

export async function readHeadTree(c: GitCtx, commit: string | null, index?: IndexFile): Promise<HeadTree> {
  const out: HeadTree = { files: new Map(), dirs: new Set(), links: new Set() };
  if (!commit) return out;
  const objects = objectStore(c.args.cache, c.repo.gitdir);
  const found = objects.read(commit);
  const info = found?.type === 'commit' ? parseCommit(found.body) : (await c.git.readCommit({ ...c.args, oid: commit })).commit;
  /** directories whose HEAD tree is the index's cache tree there */
  const same = new Set<string>();
  const walk = async (oid: string, prefix: string): Promise<void> => {
    if (index?.trees.get(prefix) === oid) {
      same.add(prefix);
      return;
    }
    const own = objects.read(oid);
    const tree = own?.type === 'tree' ? parseTree(own.body).map((e) => ({ ...e, type: e.mode === '40000' ? 'tree' : e.mode === '160000' ? 'commit' : 'blob' })) : (await c.git.readTree({ ...c.args, oid })).tree;
    const subtrees: Promise<void>[] = [];
    for (const e of tree) {
      const p = prefix ? `${prefix}/${e.path}` : e.path;
      if (e.type === 'tree') {
        out.dirs.add(p);
        subtrees.push(walk(e.oid, p));
      } else if (e.type === 'commit') out.links.add(p);
      else out.files.set(p, e.oid);
    }
    await Promise.all(subtrees);
  };
  if (index?.trees.get('') === info.tree) return { ...out, whole: true };
  await walk(info.tree, '');
  if (same.size && index) fromIndex(out, index, same);
  return out;
}

/** HEAD's entries under the directories in `same` (never the top: readHeadTree answers `whole` there), taken from the index. */
function fromIndex(out: HeadTree, index: IndexFile, same: Set<string>): void {
  for (const [p, e] of index.entries) {
    let top: string | null = null;
    for (let i = p.indexOf('/'); i > 0 && top === null; i = p.indexOf('/', i + 1)) if (same.has(p.slice(0, i))) top = p.slice(0, i);
    if (top === null) continue;
    if (e.mode === GITLINK) out.links.add(p);
    else out.files.set(p, e.oid);
    for (let i = p.lastIndexOf('/'), stop = top.length; i > stop; i = p.lastIndexOf('/', i - 1)) {
      const d = p.slice(0, i);
      if (out.dirs.has(d)) break;
      out.dirs.add(d);
    }
  }
}
