// git_status: the branch, HEAD, and each changed path as staged (index against HEAD), changed but
// not staged (working tree against index) and untracked, from the status matrix (matrix.ts).
// Paths are named (a credential file too: its name is not its content). The lists are complete
// in the structured result even when the text is cut.
import type { GitCtx } from './engine.ts';
import { statusRows, type Row } from './matrix.ts';
import { objectStore, parseCommit } from './objects.ts';
import { headOid, readCommit } from './refs.ts';

export interface StatusEntry {
  path: string;
  /** A added, M modified, D deleted */
  code: 'A' | 'M' | 'D';
}

export interface StatusResult {
  branch: string;
  head?: { hash: string; subject: string };
  clean: boolean;
  staged: StatusEntry[];
  unstaged: StatusEntry[];
  untracked: string[];
  text: string;
}

/** One status-matrix row as its staged and unstaged codes and whether it is untracked. */
export function classifyRow([, head, work, stage]: Row): { staged?: StatusEntry['code']; unstaged?: StatusEntry['code']; untracked?: boolean } {
  const out: { staged?: StatusEntry['code']; unstaged?: StatusEntry['code']; untracked?: boolean } = {};
  // stage: 0 absent, 1 as HEAD, 2 as the working tree, 3 unlike both; work: 0 absent, 1 as HEAD, 2 unlike HEAD
  if (head === 0 && stage !== 0) out.staged = 'A';
  else if (head === 1 && stage === 0) out.staged = 'D';
  else if (head === 1 && (stage === 3 || (stage === 2 && work === 2))) out.staged = 'M';
  if (stage === 0) {
    if (work !== 0) out.untracked = true;
  } else if (work === 0) out.unstaged = 'D';
  else if (stage === 3 || (stage === 1 && work === 2)) out.unstaged = 'M';
  return out;
}

/** The current branch as shown: its name, `(no commits yet)` on an unborn one, `(detached at abc12345)`. */
export async function branchLabel(c: GitCtx, head: string | null): Promise<string> {
  const branch = await c.git.currentBranch({ ...c.args, fullname: false }).catch(() => undefined);
  if (branch) return head ? branch : `${branch} (no commits yet)`;
  return head ? `(detached at ${head.slice(0, 8)})` : '(no commits yet)';
}

export async function gitStatus(c: GitCtx): Promise<StatusResult> {
  const head = await headOid(c);
  const branch = await branchLabel(c, head);
  const rows = await statusRows(c);
  const staged: StatusEntry[] = [];
  const unstaged: StatusEntry[] = [];
  const untracked: string[] = [];
  for (const row of rows) {
    // most rows of a large tree are unchanged: HEAD, working tree and index agree
    if (row[1] === 1 && row[2] === 1 && row[3] === 1) continue;
    const k = classifyRow(row);
    if (k.staged) staged.push({ path: row[0], code: k.staged });
    if (k.unstaged) unstaged.push({ path: row[0], code: k.unstaged });
    if (k.untracked) untracked.push(row[0]);
  }
  const lines = [`branch ${branch}`];
  let headInfo: StatusResult['head'];
  if (head) {
    const own = objectStore(c.args.cache, c.repo.gitdir).read(head);
    const subject = own?.type === 'commit' ? parseCommit(own.body).subject : (await readCommit(c, head)).message.split('\n')[0];
    headInfo = { hash: head.slice(0, 8), subject };
    lines.push(`HEAD ${headInfo.hash} ${headInfo.subject}`);
  }
  const clean = !staged.length && !unstaged.length && !untracked.length;
  if (clean) lines.push('working tree clean');
  if (staged.length) lines.push('staged for commit:', ...staged.map((e) => `  ${e.code} ${e.path}`));
  if (unstaged.length) lines.push('changed but not staged:', ...unstaged.map((e) => `  ${e.code} ${e.path}`));
  if (untracked.length) lines.push('untracked:', ...untracked.map((p) => `  ${p}`));
  return { branch, ...(headInfo ? { head: headInfo } : {}), clean, staged, unstaged, untracked, text: `${lines.join('\n')}\n` };
}
