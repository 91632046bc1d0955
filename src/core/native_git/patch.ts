// One file's change as a unified diff with git's headers (`diff --git a/P b/P`, ±3 lines of
// context), or the line that stands in for it: binary files, files too large to diff, and files
// whose content is withheld (the credential quarantine, the read-approve list) are named, never
// printed.
import { structuredPatch } from 'diff';
import { withheldWhy, type Withheld } from './withheld.ts';

/** Either side above this is not diffed (the line diff is quadratic in the worst case). */
export const DIFF_MAX_SIDE = 1024 * 1024;

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
  const p = structuredPatch(`a/${f.path}`, `b/${f.path}`, a, b, '', '', { context: 3 });
  const lines = [head.trimEnd(), `--- ${f.before === null ? '/dev/null' : `a/${f.path}`}`, `+++ ${f.after === null ? '/dev/null' : `b/${f.path}`}`];
  for (const h of p.hunks) {
    lines.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`);
    lines.push(...h.lines);
  }
  return `${lines.join('\n')}\n`;
}
