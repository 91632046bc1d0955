// git_show: one commit, its header and message, and its patch against its first parent (the
// files a root commit added are listed). Withheld files are named, never printed.
import type { GitCtx } from './engine.ts';
import { filePatch } from './patch.ts';
import { isoDate, readCommit, resolveCommit } from './refs.ts';
import { withheld } from './withheld.ts';

export interface ChangedPath {
  path: string;
  before: string | null;
  after: string | null;
}

/** The files that differ between two commits' trees (null: no tree on that side), with their blob ids. */
export async function changedPaths(c: GitCtx, a: string | null, b: string): Promise<ChangedPath[]> {
  const { TREE } = c.git;
  const out: ChangedPath[] = [];
  const trees = a ? [TREE({ ref: a }), TREE({ ref: b })] : [TREE({ ref: b })];
  await c.git.walk({
    ...c.args,
    trees,
    map: async (filepath, entries) => {
      if (filepath === '.') return true;
      const [x, y] = a ? entries : [null, entries[0]];
      const tx = x ? await x.type() : undefined;
      const ty = y ? await y.type() : undefined;
      if (tx === 'tree' || ty === 'tree') return tx === 'tree' && ty === 'tree' && (await x!.oid()) === (await y!.oid()) ? null : true;
      const ox = x && tx === 'blob' ? await x.oid() : null;
      const oy = y && ty === 'blob' ? await y.oid() : null;
      if (ox !== oy) out.push({ path: filepath, before: ox, after: oy });
      return true;
    },
  });
  return out.sort((p, q) => (p.path < q.path ? -1 : p.path > q.path ? 1 : 0));
}

export interface ShowResult {
  hash: string;
  files: string[];
  text: string;
}

export async function gitShow(c: GitCtx, ref: string): Promise<ShowResult> {
  const oid = await resolveCommit(c, 'git_show', ref);
  const k = await readCommit(c, oid);
  const header = `commit ${oid}\nAuthor: ${k.author.name} <${k.author.email}>\nDate:   ${isoDate(k.author.timestamp, k.author.timezoneOffset)}\n\n${k.message.trimEnd().split('\n').map((l) => `    ${l}`).join('\n')}\n\n`;
  const parent = k.parents[0] ?? null;
  const changed = await changedPaths(c, parent, oid);
  const files = changed.map((p) => p.path);
  if (!parent) return { hash: oid, files, text: `${header}(root commit) files:\n${files.map((f) => `  ${f}`).join('\n')}\n` };
  const blob = async (id: string | null) => (id ? (await c.git.readBlob({ ...c.args, oid: id })).blob : null);
  const parts = [header];
  for (const p of changed) parts.push(filePatch({ path: p.path, before: await blob(p.before), after: await blob(p.after), withheld: withheld(c.repo, p.path) }));
  if (!changed.length) parts.push('(no file changes)\n');
  return { hash: oid, files, text: parts.join('') };
}
