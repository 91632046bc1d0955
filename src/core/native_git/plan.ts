// What a native-git call will do, as the toolset contract asks it (core/contract/toolset.ts): the
// repository opened and the paths confined first (refusals before anyone is asked), the files a
// write touches worked out, the facts the envelope decides on (reads on the files.read axis, the
// four writes on files.write, a checkout's or restore's working-tree files with what the disk
// says of them: the write wall denies, hook scripts and `.envrc` ask), the approval (the staged
// diff of a commit, the changes a restore discards), and the run, which checks again.
import path from 'node:path';
import { ToolError } from '../errors.ts';
import type { ApprovalView, CallPlan } from '../contract/toolset.ts';
import type { CallFacts, ProtectedFact } from '../envelope/index.ts';
import { hooksDirFact } from '../protect/git_dirs.ts';
import { defaultPathMatcher } from '../protect/matcher.ts';
import { addLines, planAdd, runAdd } from './add.ts';
import { gitBlame } from './blame.ts';
import { gitBranches } from './branches.ts';
import { capText } from './cap.ts';
import { checkoutLines, planCheckout, runCheckout } from './checkout.ts';
import { commitLines, planCommit, runCommit } from './commit.ts';
import { gitDiff } from './diff.ts';
import type { GitCtx } from './engine.ts';
import { gitLog } from './log.ts';
import { NATIVE_GIT } from './policy.ts';
import { repoPath } from './repo.ts';
import { planRestore, restoreLines, runRestore } from './restore.ts';
import { gitShow } from './show.ts';
import { gitStatus } from './status.ts';
import { withheld, withheldWhy, worktreeWall } from './withheld.ts';

/** Every result carries its text for the model; the rest is for programs (`cxl tool`). */
export interface GitResult {
  text: string;
  truncated?: boolean;
}

/** The paths argument as repository paths: one string is one path, never split. */
function pathsArg(c: GitCtx, tool: string, v: unknown): string[] {
  const list = (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string' && x.trim() !== '');
  if (!list.length) throw new ToolError('bad_args', `${tool}: paths is required (a path, or an array of paths, relative to the repository root).`);
  return [...new Set(list.map((p) => repoPath(tool, c.repo, p)))];
}

/** What the disk and the protected-path table say of writing these working-tree files. */
export function worktreeFacts(c: GitCtx, files: readonly string[]): ProtectedFact[] {
  const out: ProtectedFact[] = [];
  for (const f of files) {
    const abs = path.join(c.repo.top, f);
    const wall = worktreeWall(f);
    if (wall && !wall.includes('quarantine')) out.push({ tier: 'write_wall', path: f, why: wall });
    else if (defaultPathMatcher.alwaysAsk(f, abs)) out.push({ tier: 'always_ask', path: f, why: 'a file that runs code later (hook scripts, .envrc, dev containers)' });
    else {
      const hook = hooksDirFact(abs, c.repo.top);
      if (hook) out.push(hook);
    }
  }
  return out;
}

interface Parts {
  facts: Omit<CallFacts, 'toolset' | 'tool' | 'axis'>;
  locations: string[];
  approval?: () => Promise<Pick<ApprovalView, 'detail' | 'diff'>>;
  run: () => Promise<GitResult>;
}

/** The plan of one checked call against an opened repository. */
export async function planGitCall(c: GitCtx, tool: string, a: Record<string, unknown>, writes: boolean, maxBytes: number): Promise<CallPlan> {
  const p = await partsOf(c, tool, a);
  const facts: CallFacts = { toolset: NATIVE_GIT, tool, axis: writes ? 'files.write' : 'files.read', ...p.facts };
  const title = `${NATIVE_GIT}.${tool}${p.locations.length ? `: ${p.locations.slice(0, 3).join(', ')}${p.locations.length > 3 ? ` (+${p.locations.length - 3})` : ''}` : ''}`;
  return {
    facts,
    scope: { whole: [{ kind: 'tool', tool: `${NATIVE_GIT}.${tool}` }] },
    locations: p.locations,
    // a write may change any working-tree file (checkout, restore): compared around, like a command
    effects: writes ? 'workspace' : 'none',
    keepsNames: true,
    approval: async () => ({ title, ...(p.approval ? await p.approval() : {}) }),
    run: async () => {
      let r: GitResult;
      try {
        r = await p.run();
      } catch (err) {
        if (err instanceof ToolError) throw err;
        throw new ToolError('io_error', `${tool}: ${(err as Error).message ?? String(err)}`);
      }
      const cut = capText(tool, r.text, maxBytes);
      return cut.truncated ? { ...r, text: cut.text, truncated: true } : r;
    },
  };
}

async function partsOf(c: GitCtx, tool: string, a: Record<string, unknown>): Promise<Parts> {
  const scope = typeof a.path === 'string' && a.path !== '' ? repoPath(tool, c.repo, a.path) : '.';
  const readFacts = scope === '.' ? {} : { paths: [scope] };
  const locations = scope === '.' ? [] : [scope];
  switch (tool) {
    case 'git_status':
      return { facts: {}, locations, run: () => gitStatus(c) };
    case 'git_diff':
      return { facts: readFacts, locations, run: () => gitDiff(c, scope) };
    case 'git_log':
      return { facts: readFacts, locations, run: () => gitLog(c, a.n as number | undefined, scope) };
    case 'git_show':
      return { facts: {}, locations, run: () => gitShow(c, String(a.ref)) };
    case 'git_branch_list':
      return { facts: {}, locations, run: () => gitBranches(c) };
    case 'git_blame': {
      if (scope === '.') throw new ToolError('bad_args', 'git_blame: path must name a file, not the repository root.');
      const w = withheld(c.repo, scope);
      if (w) throw new ToolError('quarantined', `git_blame: the git tools never show the content of ${scope}: ${withheldWhy(w)}.`);
      return { facts: readFacts, locations, run: () => gitBlame(c, scope) };
    }
    case 'git_add': {
      const plan = await planAdd(c, pathsArg(c, tool, a.paths));
      const files = plan.files.map((f) => f.path);
      return { facts: { paths: files }, locations: files, approval: async () => ({ detail: addLines(plan) }), run: () => runAdd(c, plan) };
    }
    case 'git_commit': {
      const plan = await planCommit(c, String(a.message ?? ''));
      return { facts: {}, locations: plan.files.map((f) => f.path), approval: async () => ({ detail: await commitLines(c, plan) }), run: () => runCommit(c, plan) };
    }
    case 'git_checkout_branch': {
      const plan = await planCheckout(c, String(a.branch ?? ''), a.create === true);
      const prot = worktreeFacts(c, plan.files);
      return {
        facts: { paths: plan.files, ...(prot.length ? { protected: prot } : {}) },
        locations: plan.files,
        approval: async () => ({ detail: checkoutLines(plan) }),
        run: () => runCheckout(c, plan),
      };
    }
    case 'git_restore': {
      const plan = await planRestore(c, pathsArg(c, tool, a.paths), a.staged === true);
      const files = plan.files.map((f) => f.path);
      const prot = plan.staged ? [] : worktreeFacts(c, files);
      return {
        facts: { paths: files, ...(prot.length ? { protected: prot } : {}) },
        locations: files,
        approval: async () => ({ detail: await restoreLines(c, plan) }),
        run: () => runRestore(c, plan),
      };
    }
    default:
      throw new ToolError('unknown_tool', `native-git has no tool \`${tool}\`.`);
  }
}
