// Tests that need a system tool (bubblewrap) return early only when it is truly absent, and say
// so: the note goes to the file `npm test` prints in its closing summary (CXL_TEST_NOTES), and
// to stderr when run alone. A tool that is present but broken is not a skip: those tests fail.
import { appendFileSync } from 'node:fs';
import process from 'node:process';
import { findOnPath as findIn, pathDirectories } from '../../src/core/platform/program_path.ts';

export function note(text: string): void {
  const file = process.env.CXL_TEST_NOTES;
  if (file) appendFileSync(file, `${text}\n`);
  else process.stderr.write(`note: ${text}\n`);
}

/** `name` on `pathEnv` (default: this process's PATH), as a command line would find it; undefined when absent. */
export function findOnPath(name: string, pathEnv: string | undefined = process.env.PATH): string | undefined {
  return findIn(name, pathDirectories(pathEnv)) ?? undefined;
}

/** True when `bwrap` is on PATH; otherwise records that `what` did not run and returns false. */
export function hasBwrap(what: string): boolean {
  if (process.platform === 'linux' && findOnPath('bwrap', process.env.PATH)) return true;
  note(`bubblewrap (bwrap) is not on PATH: ${what} did not run (apt-get install bubblewrap)`);
  return false;
}
