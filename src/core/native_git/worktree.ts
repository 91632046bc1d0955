// Reading a working-tree file as git sees it: a link as its target text (never followed), a
// regular file as its bytes, and a file too large to diff as a stand-in of its size. Paths come
// from the status walk or from repoPath, so no link is followed on the way either.
import fs from 'node:fs';
import path from 'node:path';
import type { GitCtx } from './engine.ts';
import { objectStore, parseCommit, parseTree } from './objects.ts';
import { DIFF_MAX_SIDE } from './patch.ts';

/** The file's content as git would hash it, null when it is not there (or not a file or link). */
export function worktreeBytes(c: GitCtx, rel: string): Uint8Array | null {
  const abs = path.join(c.repo.top, rel);
  const st = fs.lstatSync(abs, { throwIfNoEntry: false });
  if (!st) return null;
  if (st.isSymbolicLink()) return new TextEncoder().encode(fs.readlinkSync(abs));
  if (!st.isFile()) return null;
  // a file too large to diff is not read whole: a buffer of its size says so to filePatch
  if (st.size > DIFF_MAX_SIDE) return new Uint8Array(st.size > DIFF_MAX_SIDE + 1 ? DIFF_MAX_SIDE + 1 : st.size);
  return fs.readFileSync(abs);
}

/** A blob of `commit` at `rel`, or null when the commit has no such file. */
export async function blobAt(c: GitCtx, commit: string | null, rel: string): Promise<Uint8Array | null> {
  if (!commit) return null;
  const own = ownBlobAt(c, commit, rel);
  if (own !== undefined) return own;
  try {
    const { blob } = await c.git.readBlob({ ...c.args, oid: commit, filepath: rel });
    return blob;
  } catch {
    return null;
  }
}

/** The blob by the object store (objects.ts): null when the commit has no file there, undefined when the store cannot tell. */
function ownBlobAt(c: GitCtx, commit: string, rel: string): Uint8Array | null | undefined {
  const objects = objectStore(c.args.cache, c.repo.gitdir);
  const top = objects.read(commit);
  if (top?.type !== 'commit') return undefined;
  let oid = parseCommit(top.body).tree;
  const parts = rel.split('/');
  for (let i = 0; i < parts.length; i++) {
    const tree = objects.read(oid);
    if (tree?.type !== 'tree') return undefined;
    const e = parseTree(tree.body).find((x) => x.path === parts[i]);
    if (!e) return null;
    const last = i === parts.length - 1;
    if (last !== (e.mode !== '40000')) return null;
    oid = e.oid;
  }
  const blob = objects.read(oid);
  if (!blob) return undefined;
  return blob.type === 'blob' ? blob.body : null;
}
