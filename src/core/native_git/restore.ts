// git_restore: put files back as HEAD has them (index and working tree), or with staged=true only
// unstage them (the index back to HEAD, the file left alone). Never the whole repository; a file
// HEAD does not have cannot be put back (unstaging it is the way). What a human is shown first
// is what is discarded: the working tree's change against HEAD, withheld files named.
import { ToolError } from '../errors.ts';
import type { GitCtx } from './engine.ts';
import { restorable, type Restorable } from './changes.ts';
import { filePatch } from './patch.ts';
import { headOid } from './refs.ts';
import { withheld } from './withheld.ts';
import { blobAt, worktreeBytes } from './worktree.ts';

export interface RestorePlan {
  staged: boolean;
  files: Restorable[];
}

export interface RestoreResult {
  files: string[];
  staged: boolean;
  text: string;
}

export async function planRestore(c: GitCtx, scopes: string[], stagedOnly: boolean): Promise<RestorePlan> {
  if (scopes.includes('.')) throw new ToolError('bad_args', 'git_restore: name the files to restore: restoring the whole repository at once is refused.');
  let files = await restorable(c, 'git_restore', scopes);
  if (stagedOnly) {
    files = files.filter((f) => f.staged);
    if (!files.length) throw new ToolError('not_found', `git_restore: nothing is staged under ${scopes.join(', ')}.`);
  } else {
    const absent = files.filter((f) => !f.inHead);
    if (absent.length) {
      throw new ToolError('bad_args', `git_restore: ${absent.map((f) => f.path).join(', ')} ${absent.length > 1 ? 'are' : 'is'} not in HEAD, so there is nothing to restore ${absent.length > 1 ? 'them' : 'it'} to. To unstage, call git_restore with staged=true (the file stays on disk).`);
    }
  }
  return { staged: stagedOnly, files };
}

/** What the approval shows: the files and, when discarding, the changes lost. */
export async function restoreLines(c: GitCtx, p: RestorePlan): Promise<string[]> {
  if (p.staged) return [`unstage ${p.files.length} file(s) (their contents are left alone):`, ...p.files.map((f) => `  ${f.path}`)];
  const head = await headOid(c);
  const lines = [`restore ${p.files.length} file(s) to HEAD; these uncommitted changes are DISCARDED:`];
  for (const f of p.files) {
    lines.push(filePatch({ path: f.path, before: worktreeBytes(c, f.path), after: await blobAt(c, head, f.path), withheld: withheld(c.repo, f.path, true) }).trimEnd());
  }
  return lines;
}

export async function runRestore(c: GitCtx, p: RestorePlan): Promise<RestoreResult> {
  const paths = p.files.map((f) => f.path);
  for (const f of paths) await c.git.resetIndex({ ...c.args, filepath: f, ref: 'HEAD' });
  if (p.staged) return { files: paths, staged: true, text: `unstaged ${paths.join(', ')} (file contents left alone)\n` };
  await c.git.checkout({ ...c.args, ref: 'HEAD', filepaths: paths, force: true, noUpdateHead: true });
  return { files: paths, staged: false, text: `restored ${paths.join(', ')} to HEAD (uncommitted changes discarded)\n` };
}
