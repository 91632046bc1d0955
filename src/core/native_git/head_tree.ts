// HEAD's tree as a flat map (path to oid and mode) and the set of its directories, read once per
// status or diff: a few hundred tree objects for a 20,000-file repository, each read through
// isomorphic-git's object store (loose or packed) with the call's shared cache.
import type { GitCtx } from './engine.ts';

export interface HeadTree {
  files: Map<string, { oid: string; mode: number }>;
  dirs: Set<string>;
  /** submodules (gitlinks): status leaves them, and everything under them, out */
  links: Set<string>;
}

export async function readHeadTree(c: GitCtx, commit: string | null): Promise<HeadTree> {
  const out: HeadTree = { files: new Map(), dirs: new Set(), links: new Set() };
  if (!commit) return out;
  const { commit: info } = await c.git.readCommit({ ...c.args, oid: commit });
  const walk = async (oid: string, prefix: string): Promise<void> => {
    const { tree } = await c.git.readTree({ ...c.args, oid });
    const subtrees: Promise<void>[] = [];
    for (const e of tree) {
      const p = prefix ? `${prefix}/${e.path}` : e.path;
      if (e.type === 'tree') {
        out.dirs.add(p);
        subtrees.push(walk(e.oid, p));
      } else if (e.type === 'commit') out.links.add(p);
      else out.files.set(p, { oid: e.oid, mode: parseInt(e.mode, 8) });
    }
    await Promise.all(subtrees);
  };
  await walk(info.tree, '');
  return out;
}
