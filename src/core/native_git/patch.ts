// One file's change as a unified diff with git's headers (`diff --git a/P b/P`, ±3 lines of
// context), or the line that stands in for it: binary files, files too large to diff, and files
// whose content is withheld (the credential quarantine, the read-approve list) are named, never
// printed.
import { structuredPatch } from 'diff';
import { withheldWhy, type Withheld } from './withheld.ts';

/** Either side above this is not diffed (the line diff is quadratic in the worst case). */
export const DIFF_MAX_SIDE = 1024 * 1024;

/** Past this many changed lines the diff stops looking for common lines and shows the file replaced (the search costs edits × lines). */
export const MAX_EDIT_LENGTH = 2000;

export interface FileChange {
  path: string;
  /** content before (null: the file did not exist) */
  before: Uint8Array | null;
  /** content after (null: the file is gone) */
  after: Uint8Array | null;
  /** the content may not be shown */
  withheld?: Withheld | null;
  /** a symbolic link on either side: its target is diffed as text, as git does */
}

const decoder = new TextDecoder();

function isBinary(b: Uint8Array | null): boolean {
  if (!b) return false;
  const n = Math.min(b.length, 8000);
  for (let i = 0; i < n; i++) if (b[i] === 0) return true;
  return false;
}

/** A hunk's range as git writes it: `3,2`, `3` for one line, `2,0` (the line before) for none. */
const range = (start: number, count: number) => (count === 1 ? `${start}` : count === 0 ? `${Math.max(0, start - 1)},0` : `${start},${count}`);

/** One hunk that removes every old line and adds every new one: a file rewritten past MAX_EDIT_LENGTH. */
function replaced(a: string, b: string): { oldStart: number; oldLines: number; newStart: number; newLines: number; lines: string[] } {
  const split = (t: string) => (t === '' ? [] : t.replace(/\n$/, '').split('\n'));
  const old = split(a).map((l) => `-${l}`);
  const neu = split(b).map((l) => `+${l}`);
  return { oldStart: 1, oldLines: old.length, newStart: 1, newLines: neu.length, lines: [...old, ...neu] };
}

/** The diff of one file, headers included, ending with a newline. */
export function filePatch(f: FileChange): string {
  const head = `diff --git a/${f.path} b/${f.path}\n${f.before === null ? 'new file\n' : f.after === null ? 'deleted file\n' : ''}`;
  if (f.withheld) return `${head}(content not shown: ${f.path}: ${withheldWhy(f.withheld)})\n`;
  if (isBinary(f.before) || isBinary(f.after)) return `${head}Binary files differ\n`;
  if ((f.before?.length ?? 0) > DIFF_MAX_SIDE || (f.after?.length ?? 0) > DIFF_MAX_SIDE) {
    return `${head}(not diffed: over ${DIFF_MAX_SIDE} bytes; read the part you need with read_file_range)\n`;
  }
  const a = f.before ? decoder.decode(f.before) : '';
  const b = f.after ? decoder.decode(f.after) : '';
  const p = structuredPatch(`a/${f.path}`, `b/${f.path}`, a, b, '', '', { context: 3, maxEditLength: MAX_EDIT_LENGTH });
  const lines = [head.trimEnd(), `--- ${f.before === null ? '/dev/null' : `a/${f.path}`}`, `+++ ${f.after === null ? '/dev/null' : `b/${f.path}`}`];
  for (const h of p?.hunks ?? [replaced(a, b)]) {
    lines.push(`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@`);
    lines.push(...h.lines);
  }
  return `${lines.join('\n')}\n`;
}
