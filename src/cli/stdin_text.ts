// What `cxl run` reads from its stdin: the whole of it when something is piped or redirected in
// (`git diff | cxl run "review this"`, `cxl run - < task.md`), nothing when stdin is a terminal
// or a device such as /dev/null (a run started from a shell or a CI step with no input).
import fs from 'node:fs';
import process from 'node:process';

/** Whether stdin carries input: a pipe, a socket or a regular file. */
export function stdinIsPiped(): boolean {
  if (process.stdin.isTTY) return false;
  try {
    const st = fs.fstatSync(0);
    return st.isFIFO() || st.isFile() || st.isSocket();
  } catch {
    return false;
  }
}

/** All of stdin as text (read to its end). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export const PIPED_BEGIN = '--- begin piped stdin ---';
export const PIPED_END = '--- end piped stdin ---';

/** The task with piped input after it, between markers the model can see the edges of. */
export function withPiped(task: string, piped: string): string {
  if (!piped) return task;
  return `${task}\n\n${PIPED_BEGIN}\n${piped.endsWith('\n') ? piped : `${piped}\n`}${PIPED_END}`;
}
