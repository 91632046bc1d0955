// Ctrl+G and /edit: the prompt in the user's own editor ($VISUAL, else $EDITOR, else vi), in a
// private temp file. The screen lends the terminal for the time: raw mode and bracketed paste off,
// the live region erased, the editor run in the foreground, then everything back as it was.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { splitCommandLine } from '../client/connection/command_line.ts';
import { spawnSyncSettled } from '../core/platform/runtime.ts';

export interface Terminal {
  /** Give the terminal to another program (raw mode off, modes off, the live region erased). */
  release(): void;
  /** Take it back after it. */
  reclaim(): void;
}

/** The editor command as words: $VISUAL, else $EDITOR, else vi. */
export function editorArgv(env: Record<string, string | undefined>): string[] {
  const line = (env.VISUAL || env.EDITOR || 'vi').trim();
  return splitCommandLine(line);
}

/** Edit `text` in the editor; the saved text (one final newline taken off), or why there is none. */
export function editInEditor(text: string, env: Record<string, string | undefined>, term: Terminal): { text?: string; error?: string } {
  let argv: string[];
  try {
    argv = editorArgv(env);
  } catch (err) {
    return { error: `$VISUAL/$EDITOR cannot be read as a command: ${(err as Error).message}.` };
  }
  if (argv.length === 0) return { error: 'Set $VISUAL or $EDITOR to the editor to use.' };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-prompt-'));
  const file = path.join(dir, 'prompt.md');
  try {
    fs.writeFileSync(file, text, { mode: 0o600 });
    term.release();
    let res;
    try {
      res = spawnSyncSettled(argv[0], [...argv.slice(1), file], { stdio: 'inherit', env });
    } finally {
      term.reclaim();
    }
    if (res.error) return { error: `The editor \`${argv.join(' ')}\` did not start: ${res.error.message}. Set $VISUAL or $EDITOR to one that is installed.` };
    if (res.status !== 0) return { error: `The editor exited with ${res.status ?? res.signal}; the prompt is as it was.` };
    return { text: fs.readFileSync(file, 'utf8').replace(/\r?\n$/, '') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
