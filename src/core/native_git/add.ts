// git_add: stage the changes under the named paths (a new or modified file is added, a deleted
// one removed from the index). A path whose content is withheld (the credential quarantine, the
// read-approve list, a hard link to one) is never staged: named alone it is refused before
// anything runs, met under a directory or "." it is left out and the result names it.
import { ToolError } from '../errors.ts';
import type { GitCtx } from './engine.ts';
import { shown, stageable, type Stageable } from './changes.ts';
import { withheld, withheldWhy, type Withheld } from './withheld.ts';

export interface AddPlan {
  scopes: string[];
  files: Stageable[];
  left: { path: string; why: Withheld }[];
}

export interface AddResult {
  staged: string[];
  left_out: string[];
  text: string;
}

/** Refuses a withheld path named alone; lists what would be staged and what is left out. */
export async function planAdd(c: GitCtx, scopes: string[]): Promise<AddPlan> {
  for (const s of scopes) {
    const w = s === '.' ? null : withheld(c.repo, s, true);
    if (w) throw new ToolError('quarantined', `git_add: ${s} is never staged: ${withheldWhy(w)}, and what is committed can be read back. Leave it out of the commit.`);
  }
  const files: Stageable[] = [];
  const left: AddPlan['left'] = [];
  for (const f of await stageable(c, scopes)) {
    const w = withheld(c.repo, f.path, true);
    if (w) left.push({ path: f.path, why: w });
    else files.push(f);
  }
  if (!files.length && !left.length) {
    const missing = scopes.filter((s) => s !== '.' && !scopes.some((o) => o === '.'));
    throw new ToolError('not_found', `git_add: nothing to stage under ${shown(scopes)}${missing.length ? ' (no changed, new or deleted file there; check the path with git_status)' : ': the working tree matches the index'}.`);
  }
  return { scopes, files, left };
}

export function addLines(p: AddPlan): string[] {
  const how = { new: 'new', modified: 'modified', deleted: 'deleted' } as const;
  return [
    `will stage ${p.files.length} file(s):`,
    ...p.files.map((f) => `  ${how[f.how]}: ${f.path}`),
    ...(p.left.length ? [`left out (never staged): ${p.left.map((l) => `${l.path} (${withheldWhy(l.why)})`).join(', ')}`] : []),
  ];
}

export async function runAdd(c: GitCtx, p: AddPlan): Promise<AddResult> {
  for (const f of p.files) {
    if (f.how === 'deleted') await c.git.remove({ ...c.args, filepath: f.path });
    else await c.git.add({ ...c.args, filepath: f.path, force: true });
  }
  const staged = p.files.map((f) => f.path);
  const left = p.left.map((l) => l.path);
  const text = `${staged.length ? `staged ${staged.join(', ')}` : 'staged nothing'}\n${left.length ? `left out (never staged: credential or read-approve files): ${left.join(', ')}\n` : ''}`;
  return { staged, left_out: left, text };
}
