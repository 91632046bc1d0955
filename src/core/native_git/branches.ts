// git_branch_list: the local branches, sorted, each with its commit; the current one marked.
import type { GitCtx } from './engine.ts';

export interface BranchResult {
  current: string | null;
  branches: { name: string; hash: string; current: boolean }[];
  text: string;
}

export async function gitBranches(c: GitCtx): Promise<BranchResult> {
  const names = (await c.git.listBranches({ ...c.args })).sort();
  const current = (await c.git.currentBranch({ ...c.args, fullname: false }).catch(() => undefined)) ?? null;
  const branches: BranchResult['branches'] = [];
  for (const name of names) {
    const oid = await c.git.resolveRef({ ...c.args, ref: `refs/heads/${name}` }).catch(() => null);
    if (oid) branches.push({ name, hash: oid.slice(0, 8), current: name === current });
  }
  if (!branches.length) return { current, branches, text: 'no branches yet (the repository has no commits)\n' };
  return { current, branches, text: branches.map((b) => `${b.current ? '*' : ' '} ${b.name} ${b.hash}\n`).join('') };
}
