// Which files a write tool acts on, from the status matrix: what git_add would stage under its
// paths, what the index holds against HEAD (what git_commit commits), and what git_restore would
// put back. Planned before anyone is asked (the envelope and the approval see these files) and
// computed again when the call runs.
import { ToolError } from '../errors.ts';
import type { GitCtx } from './engine.ts';
import { under } from './diff.ts';
import { statusRows, type Row } from './matrix.ts';
import { classifyRow } from './status.ts';

export interface Stageable {
  path: string;
  /** `new`, `modified`, `deleted` (in the working tree) */
  how: 'new' | 'modified' | 'deleted';
}

async function rows(c: GitCtx, scopes: readonly string[]): Promise<Row[]> {
  return await statusRows(c, scopes.includes('.') ? ['.'] : scopes);
}

/** The paths `paths` name (repository paths) as one string per path, for messages. */
export const shown = (paths: readonly string[]) => paths.map((p) => (p === '.' ? 'everything' : p)).join(', ');

/** Files under `scopes` whose working-tree state differs from the index. */
export async function stageable(c: GitCtx, scopes: readonly string[]): Promise<Stageable[]> {
  const out: Stageable[] = [];
  for (const [p, , work, stage] of await rows(c, scopes)) {
    if (!scopes.some((s) => under(p, s))) continue;
    if (work === 0 && stage !== 0) out.push({ path: p, how: 'deleted' });
    else if (work !== 0 && stage === 0) out.push({ path: p, how: 'new' });
    else if (stage === 3 || (stage === 1 && work === 2)) out.push({ path: p, how: 'modified' });
  }
  return out;
}

/** Files whose index entry differs from HEAD (what a commit would record). */
export async function staged(c: GitCtx): Promise<{ path: string; code: 'A' | 'M' | 'D' }[]> {
  const out: { path: string; code: 'A' | 'M' | 'D' }[] = [];
  for (const row of await rows(c, ['.'])) {
    const k = classifyRow(row);
    if (k.staged) out.push({ path: row[0], code: k.staged });
  }
  return out;
}

export interface Restorable {
  path: string;
  /** in HEAD: the working tree can be put back */
  inHead: boolean;
  /** the index differs from HEAD */
  staged: boolean;
  /** the working tree differs from HEAD */
  changed: boolean;
}

/** Files under `scopes` that differ from HEAD in the index or the working tree (untracked ones left out). */
export async function restorable(c: GitCtx, tool: string, scopes: readonly string[]): Promise<Restorable[]> {
  const out: Restorable[] = [];
  for (const row of await rows(c, scopes)) {
    const [p, head, work, stage] = row;
    if (!scopes.some((s) => under(p, s))) continue;
    if (head === 0 && stage === 0) continue; // untracked: git restore leaves it alone too
    const k = classifyRow(row);
    const changed = head === 1 ? work !== 1 : work !== 0;
    if (!k.staged && !changed) continue;
    out.push({ path: p, inHead: head === 1, staged: Boolean(k.staged), changed });
  }
  if (!out.length) throw new ToolError('not_found', `${tool}: nothing to restore under ${shown(scopes)}: no tracked file there differs from HEAD.`);
  return out;
}
