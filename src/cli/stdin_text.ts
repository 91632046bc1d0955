// What `cxl run` and `cxl -p` read from their stdin: the whole of it when something is piped or
// redirected in (`git diff | cxl run "review this"`, `cxl run - < task.md`), nothing when stdin
// is a terminal or a device such as /dev/null (a run started from a shell or a CI step with no input).
import fs from 'node:fs';
import process from 'node:process';
import { oneLine } from '../agent/missions/records.ts';

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

/** A run's task or prompt, as the model reads it (`text`) and as it was typed, with the size of what was piped in. */
export interface TaskInput {
  text: string;
  typed: string;
  pipedBytes: number;
}

/**
 * The task from the command's words: `-` reads it from stdin; otherwise what is piped in rides
 * after it between markers. `pipedAlone`: with no words, what is piped in is the task itself
 * (`git diff | cxl -p`). Undefined when there is no task.
 */
export async function taskInput(words: string[], o: { pipedAlone?: boolean } = {}): Promise<TaskInput | undefined> {
  let typed = words.join(' ').trim();
  let piped = '';
  if (typed === '-' || (!typed && o.pipedAlone && stdinIsPiped())) typed = (await readStdin()).trim();
  else if (stdinIsPiped()) piped = await readStdin();
  if (!typed) return undefined;
  return { text: withPiped(typed, piped), typed, pipedBytes: Buffer.byteLength(piped) };
}

/** The task on one line, with what was piped in as its size: `review this (+ 512 bytes piped stdin)`. */
export function taskLine(t: TaskInput, max: number): string {
  return `${oneLine(t.typed, max)}${t.pipedBytes ? ` (+ ${t.pipedBytes} bytes piped stdin)` : ''}`;
}
