// git_blame, which isomorphic-git lacks, written on top of it: the file's history from HEAD (the
// commits that changed it, newest first, at most BLAME_DEPTH), each version diffed line by line
// against its first parent's, every line of HEAD's version attributed to the commit that added
// it. Lines older than the walk are attributed to the oldest commit walked, and the result says
// so. Blame is of HEAD, never of the working tree.
import { diffArrays } from 'diff';
import { ToolError } from '../errors.ts';
import type { GitCtx } from './engine.ts';
import { DIFF_MAX_SIDE, MAX_EDIT_LENGTH } from './patch.ts';
import { headOid, isoDate } from './refs.ts';
import { blobAt } from './worktree.ts';

export const BLAME_DEPTH = 500;

export interface BlameLine {
  hash: string;
  author: string;
  date: string;
  line: number;
  text: string;
}

export interface BlameResult {
  path: string;
  lines: BlameLine[];
  /** some lines are older than the commits walked */
  incomplete: boolean;
  text: string;
}

const decoder = new TextDecoder();
const toLines = (b: Uint8Array | null): string[] => {
  if (!b) return [];
  const t = decoder.decode(b);
  const ls = t.split('\n');
  if (ls[ls.length - 1] === '') ls.pop();
  return ls;
};

/** For each line of `after`, the index of the same line in `before`, or -1 when `after` added it (all of them past MAX_EDIT_LENGTH). */
function lineOrigins(before: string[], after: string[]): number[] {
  const out: number[] = [];
  let b = 0;
  const parts = diffArrays(before, after, { maxEditLength: MAX_EDIT_LENGTH });
  if (!parts) return after.map(() => -1);
  for (const part of parts) {
    const n = part.value.length;
    if (part.added) for (let i = 0; i < n; i++) out.push(-1);
    else if (part.removed) b += n;
    else for (let i = 0; i < n; i++) out.push(b++);
  }
  return out;
}

export async function gitBlame(c: GitCtx, rel: string): Promise<BlameResult> {
  const head = await headOid(c);
  if (!head) throw new ToolError('not_found', `git_blame: the repository has no commits yet, so ${rel} has no history.`);
  const current = await blobAt(c, head, rel);
  if (!current) throw new ToolError('not_found', `git_blame: cannot blame ${rel}: is it a file tracked in this repository (committed at HEAD)?`);
  if (current.length > DIFF_MAX_SIDE) throw new ToolError('too_large', `git_blame: ${rel} is ${current.length} bytes, over the ${DIFF_MAX_SIDE}-byte blame limit; read the part you need with read_file_range.`);
  if (current.subarray(0, 8000).includes(0)) throw new ToolError('binary', `git_blame: ${rel} is a binary file; blame shows text files.`);
  const headLines = toLines(current);
  const commits = await c.git.log({ ...c.args, ref: head, filepath: rel, depth: BLAME_DEPTH, force: true });
  const owner: (typeof commits)[number][] = new Array(headLines.length);
  // pending: line index in the version being looked at → line index in HEAD's version
  let pending = new Map<number, number>(headLines.map((_, i) => [i, i]));
  let version = headLines;
  for (let i = 0; i < commits.length && pending.size; i++) {
    const k = commits[i];
    const mine = toLines(await blobAt(c, k.oid, rel));
    if (mine.join('\n') !== version.join('\n')) pending = remap(pending, lineOrigins(mine, version));
    const parentLines = toLines(await blobAt(c, k.commit.parent[0] ?? null, rel));
    const origins = lineOrigins(parentLines, mine);
    const next = new Map<number, number>();
    for (const [at, h] of pending) {
      const from = origins[at];
      if (from === undefined || from < 0) owner[h] = k;
      else next.set(from, h);
    }
    pending = next;
    version = parentLines;
  }
  const incomplete = pending.size > 0 && commits.length > 0;
  const oldest = commits[commits.length - 1];
  for (const h of pending.values()) owner[h] = oldest;
  const lines: BlameLine[] = headLines.map((text, i) => {
    const k = owner[i] ?? oldest;
    return { hash: k.oid.slice(0, 8), author: k.commit.author.name, date: isoDate(k.commit.author.timestamp, k.commit.author.timezoneOffset), line: i + 1, text };
  });
  const body = lines.map((l) => `${l.hash} ${l.author.slice(0, 20).padEnd(20)} ${String(l.line).padStart(4)}) ${l.text}`).join('\n');
  const note = incomplete ? `\n(lines marked ${oldest.oid.slice(0, 8)} may be older: blame walked the newest ${commits.length} commits that changed ${rel})` : '';
  return { path: rel, lines, incomplete, text: `${body}${note}\n` };
}

/** `pending` (line in `to` → HEAD line) re-keyed by the line in `from`, through `origins` (for each line of `to`, its line in `from`). */
function remap(pending: Map<number, number>, origins: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const [at, h] of pending) if (origins[at] !== undefined && origins[at] >= 0) out.set(origins[at], h);
  return out;
}
