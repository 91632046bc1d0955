// Revisions as a model writes them, on top of isomorphic-git (which resolves names only): a
// branch, tag, HEAD, a full or abbreviated hash, then any run of `~N` and `^N` suffixes
// (`HEAD~2`, `main^2`, `v1.0~`), annotated tags peeled to their commit.
import { ToolError } from '../errors.ts';
import type { GitCtx } from './engine.ts';

const REV = /^([^~^]+)((?:[~^]\d*)*)$/;

export interface CommitInfo {
  oid: string;
  message: string;
  parents: string[];
  tree: string;
  author: { name: string; email: string; timestamp: number; timezoneOffset: number };
}

/** The commit a revision names; refusals say what to pass instead. */
export async function resolveCommit(c: GitCtx, tool: string, rev: string): Promise<string> {
  const bad = () => new ToolError('not_found', `${tool}: cannot resolve ${JSON.stringify(rev)} in this repository: pass a commit hash, branch, tag, or HEAD (HEAD~1, HEAD^2 work).`);
  const m = REV.exec(rev.trim());
  if (!m) throw bad();
  let oid = await baseOid(c, m[1]).catch(() => null);
  if (!oid) throw bad();
  oid = await peel(c, tool, rev, oid);
  for (const s of m[2].match(/[~^]\d*/g) ?? []) {
    const n = s.length > 1 ? Number(s.slice(1)) : 1;
    if (s[0] === '~') {
      for (let i = 0; i < n; i++) oid = await parentOf(c, tool, rev, oid, 1);
    } else if (n > 0) oid = await parentOf(c, tool, rev, oid, n);
  }
  return oid;
}

async function baseOid(c: GitCtx, name: string): Promise<string> {
  try {
    return await c.git.resolveRef({ ...c.args, ref: name });
  } catch (err) {
    if (/^[0-9a-f]{4,40}$/i.test(name)) return await c.git.expandOid({ ...c.args, oid: name.toLowerCase() });
    throw err;
  }
}

/** An annotated tag's commit (tags of tags too). */
async function peel(c: GitCtx, tool: string, rev: string, oid: string): Promise<string> {
  for (let i = 0; i < 10; i++) {
    const o = await c.git.readObject({ ...c.args, oid, format: 'parsed' });
    if (o.type === 'commit') return oid;
    if (o.type !== 'tag') throw new ToolError('bad_args', `${tool}: ${JSON.stringify(rev)} does not name a commit (it names a ${o.type}).`);
    oid = (o.object as { object: string }).object;
  }
  throw new ToolError('bad_args', `${tool}: ${JSON.stringify(rev)} is a chain of tags too long to follow.`);
}

async function parentOf(c: GitCtx, tool: string, rev: string, oid: string, n: number): Promise<string> {
  const { commit } = await c.git.readCommit({ ...c.args, oid });
  const p = commit.parent[n - 1];
  if (!p) throw new ToolError('not_found', `${tool}: ${JSON.stringify(rev)} goes past the history: ${oid.slice(0, 8)} has ${commit.parent.length ? `only ${commit.parent.length} parent${commit.parent.length > 1 ? 's' : ''}` : 'no parent (it is the first commit)'}.`);
  return p;
}

export async function readCommit(c: GitCtx, oid: string): Promise<CommitInfo> {
  const { commit } = await c.git.readCommit({ ...c.args, oid });
  return { oid, message: commit.message, parents: commit.parent, tree: commit.tree, author: commit.author };
}

/** HEAD's commit, or null when the repository has no commits yet. */
export async function headOid(c: GitCtx): Promise<string | null> {
  try {
    return await c.git.resolveRef({ ...c.args, ref: 'HEAD' });
  } catch {
    return null;
  }
}

/** `2024-05-01T12:00:00+02:00` from a git timestamp and its offset (minutes west of UTC, as git stores it). */
export function isoDate(timestamp: number, timezoneOffset: number): string {
  const offMin = -timezoneOffset;
  const d = new Date((timestamp + offMin * 60) * 1000);
  const sign = offMin >= 0 ? '+' : '-';
  const abs = Math.abs(offMin);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.toISOString().slice(0, 19)}${offMin === 0 ? 'Z' : `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`}`;
}
