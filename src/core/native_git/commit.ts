// git_commit: record the index as a commit on the current branch, with the identity git config
// gives (identity.ts), unsigned. Refuses an empty index and a missing identity, saying what to do.
// What a human is shown first is the staged diff (HEAD against the index), withheld files named.
import { ToolError } from '../errors.ts';
import type { GitCtx } from './engine.ts';
import { staged } from './changes.ts';
import { commitIdentity, type Identity } from './identity.ts';
import { filePatch } from './patch.ts';
import { headOid } from './refs.ts';
import { branchLabel } from './status.ts';
import { withheld } from './withheld.ts';
import { blobAt } from './worktree.ts';

export interface CommitPlan {
  message: string;
  identity: Identity;
  files: { path: string; code: 'A' | 'M' | 'D' }[];
}

export interface CommitResult {
  hash: string;
  branch: string;
  subject: string;
  files: number;
  text: string;
}

export async function planCommit(c: GitCtx, message: string): Promise<CommitPlan> {
  const m = message.trim();
  if (!m) throw new ToolError('bad_args', 'git_commit: message is required (the commit message).');
  const files = await staged(c);
  if (!files.length) throw new ToolError('not_found', 'git_commit: nothing is staged: call git_add with the paths to include, then commit.');
  const identity = commitIdentity(c.repo.gitdir);
  if (!identity) {
    throw new ToolError('bad_args', 'git_commit: this repository has no commit identity. Set one, e.g. `git config user.name "Your Name"` and `git config user.email you@example.com` (or --global), then commit again.');
  }
  return { message: m, identity, files };
}

/** The index's content of a path, or null when it is not staged there. */
async function indexBlob(c: GitCtx, rel: string): Promise<Uint8Array | null> {
  const { STAGE } = c.git;
  let oid: string | undefined;
  await c.git.walk({
    ...c.args,
    trees: [STAGE()],
    map: async (fp, [e]) => {
      if (fp === '.') return true;
      if (fp === rel && e) oid = await e.oid();
      return rel === fp || rel.startsWith(`${fp}/`) ? true : null;
    },
  });
  return oid ? (await c.git.readBlob({ ...c.args, oid })).blob : null;
}

/** What the approval shows: author, message, and the staged diff. */
export async function commitLines(c: GitCtx, p: CommitPlan): Promise<string[]> {
  const head = await headOid(c);
  const lines = [`author: ${p.identity.name} <${p.identity.email}>`, 'message:', ...p.message.split('\n').map((l) => `  ${l}`), `staged (${p.files.length} file(s)):`];
  for (const f of p.files) {
    lines.push(filePatch({ path: f.path, before: await blobAt(c, head, f.path), after: f.code === 'D' ? null : await indexBlob(c, f.path), withheld: withheld(c.repo, f.path) }).trimEnd());
  }
  return lines;
}

export async function runCommit(c: GitCtx, p: CommitPlan): Promise<CommitResult> {
  const now = await staged(c);
  if (!now.length) throw new ToolError('not_found', 'git_commit: nothing is staged any more: call git_add with the paths to include, then commit.');
  const oid = await c.git.commit({ ...c.args, message: `${p.message}\n`, author: { ...p.identity } });
  const branch = await branchLabel(c, oid);
  const subject = p.message.split('\n')[0];
  return { hash: oid.slice(0, 8), branch, subject, files: now.length, text: `committed ${oid.slice(0, 8)} on ${branch}: ${subject} (${now.length} file(s))\n` };
}
