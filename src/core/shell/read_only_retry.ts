// A command the prefix allowlist ran unasked sees the workspace read-only. A test runner that
// writes (a cache, a snapshot, a build dir) then fails with EROFS, and a model that reads that
// failure may "fix" the code. So such a failure is never silent: the person is asked whether to
// run the line again with the workspace writable (the same sandbox an approved command gets, the
// write wall still read-only), and when nobody can answer or the answer is no, the result says
// plainly that the failure was the sandbox's. Chosen over running test runners writable unasked
// (docs/local-shell.md, "Tests that write"): nothing writes the workspace without a person's yes.
import { isToolError } from '../errors.ts';
import type { SessionAllow } from '../contract/session_scope.ts';
import type { RunQuestion } from '../contract/toolset.ts';
import type { ShellResult } from './runner.ts';

/** strerror(EROFS) as C libraries print it, and the error code as Node, Go and Rust name it. */
const EROFS = /Read-only file system|\bEROFS\b/;

/** The run failed, and what it printed says a write met the read-only workspace. */
export function failedOnReadOnly(r: unknown): boolean {
  const x = r as Partial<ShellResult> | null;
  if (!x || typeof x !== 'object' || x.success !== false || x.signal !== undefined) return false;
  return EROFS.test(`${x.stdout ?? ''}\n${x.stderr ?? ''}`);
}

/** The question: run `line` again with the workspace writable. */
export function writableRetryQuestion(line: string, args: Record<string, unknown>, scope: readonly SessionAllow[]): RunQuestion {
  return {
    tool: 'local_shell',
    title: `run \`${line}\` again with the workspace writable?`,
    kind: 'execute',
    args,
    locations: [],
    scope: [...scope],
    rule: 'shell.prefix_allowlist',
    sentence: `approve: \`${line}\` ran unasked with the workspace read-only and failed writing to it (EROFS); run it again where it may write the workspace (the write wall stays read-only)`,
    refusal: `\`${line}\` failed writing to the read-only workspace and nobody can approve a writable run`,
    again: true,
  };
}

/** What the model is told when the line is not run again. */
export function readOnlyNote(answer: 'declined' | 'nobody'): string {
  const why = answer === 'declined' ? 'the user declined running it again with writes allowed' : 'nobody is here to approve running it again with writes allowed';
  return `This command ran unasked in a sandbox where the workspace is read-only, and it failed writing there (EROFS): the failure is the sandbox's, not the code's, so do not change code to avoid it. ${why[0].toUpperCase()}${why.slice(1)}; work without it, or ask the user to run it.`;
}

/**
 * Asks the question and runs the line again writable on a yes. On a no, or with nobody to ask,
 * the first result comes back with a note saying why it failed.
 */
export async function retryWritable<T extends object>(first: T, ask: () => Promise<boolean>, again: () => Promise<T>): Promise<T | (T & { note: string })> {
  let yes: boolean;
  try {
    yes = await ask();
  } catch (err) {
    if (!isToolError(err) || (err.code !== 'rejected' && err.code !== 'approval_required')) throw err;
    return { ...first, note: readOnlyNote(err.code === 'rejected' ? 'declined' : 'nobody') };
  }
  if (!yes) return { ...first, note: readOnlyNote('declined') };
  const second = await again();
  return { ...second, note: 'It ran first unasked with the workspace read-only and failed writing to it; this is the second run, with the workspace writable, after approval.' };
}
