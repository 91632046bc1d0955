// A `result` report is the unit's claim that work exists. The artifacts it names (refs, and the
// handover's artifacts) are looked up on disk; a result naming one that does not exist is filed as
// `progress` instead and says which were missing, so a run never lands on a claim about files
// nobody wrote. URLs, words with spaces and anything the file system will not answer about
// count as present: only a certain "no such file" downgrades.
import fs from 'node:fs';
import path from 'node:path';

const URL_RE = /^[a-z][a-z0-9+.-]*:\/\//i;

/** `src/a.ts:12` and `src/a.ts:12:3` name src/a.ts; `src/a.ts#L12` too. */
function asPath(ref: string): string | undefined {
  const r = ref.trim();
  if (!r || URL_RE.test(r) || /\s/.test(r) || r.includes('\0')) return undefined;
  return r.replace(/#L?\d+(?:-L?\d+)?$/, '').replace(/:\d+(?::\d+)?$/, '');
}

/** The artifacts among `refs` that certainly do not exist (relative ones from `cwd`). */
export function missingArtifacts(cwd: string, refs: readonly string[]): string[] {
  const missing: string[] = [];
  for (const ref of refs) {
    const p = asPath(ref);
    if (p === undefined) continue;
    try {
      fs.statSync(path.resolve(cwd, p));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') missing.push(ref);
    }
  }
  return missing;
}

export function downgradeNote(missing: readonly string[]): string {
  return `claimed artifacts not found: ${missing.map((m) => JSON.stringify(m)).join(', ')}. The result named artifacts that do not exist at their claimed paths, so this report was filed as progress, not result.`;
}
