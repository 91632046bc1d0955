// git_diff: HEAD against the working tree (staged and unstaged together) for each changed file
// under an optional path, as unified diffs; untracked files are listed, not diffed; at most
// MAX_FILES files are shown and the rest named. Withheld files are named, never printed.
import type { GitCtx } from './engine.ts';
import { filePatch } from './patch.ts';
import { statusRows } from './matrix.ts';
import { headOid } from './refs.ts';
import { classifyRow } from './status.ts';
import { withheld } from './withheld.ts';
import { blobAt, worktreeBytes } from './worktree.ts';

export const MAX_DIFF_FILES = 25;

export interface DiffResult {
  /** the changed files, in order (all of them, even those not shown) */
  files: string[];
  untracked: string[];
  text: string;
}

/** Whether repository path `p` is `under` (a file or directory; `.` is everything). */
export function under(p: string, dir: string): boolean {
  return dir === '.' || p === dir || p.startsWith(`${dir}/`);
}

export async function gitDiff(c: GitCtx, scope: string): Promise<DiffResult> {
  const head = await headOid(c);
  const rows = await statusRows(c, [scope]);
  const files: string[] = [];
  const untracked: string[] = [];
  for (const row of rows) {
    if (!under(row[0], scope)) continue;
    const [, h, w] = row;
    const k = classifyRow(row);
    if (h === 0 && !k.staged) untracked.push(row[0]);
    else if (k.staged || k.unstaged || (h === 1 && w !== 1)) files.push(row[0]);
  }
  const where = scope === '.' ? '' : ` under ${scope}`;
  if (!files.length && !untracked.length) return { files, untracked, text: `no changes against HEAD${where}\n` };
  const parts: string[] = [];
  for (const f of files.slice(0, MAX_DIFF_FILES)) {
    parts.push(filePatch({ path: f, before: await blobAt(c, head, f), after: worktreeBytes(c, f), withheld: withheld(c.repo, f, true) }));
  }
  if (files.length > MAX_DIFF_FILES) {
    const rest = files.slice(MAX_DIFF_FILES);
    parts.push(`... ${rest.length} more changed file(s) not shown (pass path to see them): ${rest.join(', ')}\n`);
  }
  if (!files.length) parts.push(`no changes to tracked files against HEAD${where}\n`);
  if (untracked.length) parts.push(`untracked (no diff: not in the repository yet): ${untracked.join(', ')}\n`);
  return { files, untracked, text: parts.join('') };
}
