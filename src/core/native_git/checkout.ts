// git_checkout_branch: switch to a local branch, or create one at HEAD and switch to it. Creating
// changes no file; switching rewrites the files that differ between HEAD and the branch, and
// those are what the envelope decides on: a branch that would write behind the write wall (an
// editor's task file, an agent config) is denied, one that writes a hook script or `.envrc` asks,
// like any other write of them. isomorphic-git refuses to overwrite uncommitted changes.
import { ToolError } from '../errors.ts';
import type { GitCtx } from './engine.ts';
import { headOid } from './refs.ts';
import { changedPaths } from './show.ts';

export interface CheckoutPlan {
  branch: string;
  create: boolean;
  /** the branch's commit (switching) */
  target?: string;
  /** working-tree files the switch rewrites or removes */
  files: string[];
}

export interface CheckoutResult {
  branch: string;
  created: boolean;
  files: number;
  text: string;
}

export async function planCheckout(c: GitCtx, branch: string, create: boolean): Promise<CheckoutPlan> {
  const name = branch.trim();
  if (!name) throw new ToolError('bad_args', 'git_checkout_branch: branch is required (a branch name).');
  if (name.startsWith('-') || !/^[A-Za-z0-9._/-]+$/.test(name) || name.includes('..') || name.endsWith('/') || name.endsWith('.lock')) {
    throw new ToolError('bad_args', `git_checkout_branch: ${JSON.stringify(name)} is not a branch name git accepts here (letters, digits, . _ / -, no "..", not starting with -).`);
  }
  const exists = (await c.git.listBranches({ ...c.args })).includes(name);
  const current = await c.git.currentBranch({ ...c.args, fullname: false }).catch(() => undefined);
  if (create) {
    if (exists) throw new ToolError('bad_args', `git_checkout_branch: branch ${name} already exists: call it again with create=false to switch to it.`);
    if (!(await headOid(c))) throw new ToolError('not_found', 'git_checkout_branch: the repository has no commits yet, so there is nothing to branch from; commit first.');
    return { branch: name, create: true, files: [] };
  }
  if (!exists) throw new ToolError('not_found', `git_checkout_branch: branch ${name} does not exist: call it again with create=true to create it.`);
  if (current === name) throw new ToolError('bad_args', `git_checkout_branch: already on branch ${name}.`);
  const target = await c.git.resolveRef({ ...c.args, ref: `refs/heads/${name}` });
  const head = await headOid(c);
  const files = head ? (await changedPaths(c, head, target)).map((p) => p.path) : [];
  return { branch: name, create: false, target, files };
}

export function checkoutLines(p: CheckoutPlan): string[] {
  if (p.create) return [`create branch ${p.branch} at HEAD and switch to it (no file changes)`];
  return [`switch to branch ${p.branch}: ${p.files.length} file(s) in the working tree change:`, ...p.files.map((f) => `  ${f}`)];
}

export async function runCheckout(c: GitCtx, p: CheckoutPlan): Promise<CheckoutResult> {
  if (p.create) {
    await c.git.branch({ ...c.args, ref: p.branch, checkout: true });
    return { branch: p.branch, created: true, files: 0, text: `created and switched to branch ${p.branch}\n` };
  }
  const head = await headOid(c);
  const now = head ? (await changedPaths(c, head, p.target!)).map((x) => x.path) : [];
  if (now.join('\0') !== p.files.join('\0')) throw new ToolError('stale', `git_checkout_branch: the repository changed since this call was checked; call it again.`);
  try {
    await c.git.checkout({ ...c.args, ref: p.branch });
  } catch (err) {
    const e = err as { code?: string; data?: { filepaths?: string[] }; message: string };
    if (e.code === 'CheckoutConflictError') {
      throw new ToolError('bad_args', `git_checkout_branch: cannot switch to ${p.branch}: your uncommitted changes to ${(e.data?.filepaths ?? []).join(', ')} would be overwritten. Commit them, or restore them with git_restore, first.`);
    }
    if (err instanceof ToolError) throw err;
    throw new ToolError('io_error', `git_checkout_branch: cannot switch to ${p.branch}: ${e.message}`);
  }
  return { branch: p.branch, created: false, files: p.files.length, text: `switched to branch ${p.branch}\n` };
}
