// Locates the ripgrep binary shipped by @vscode/ripgrep. grep and find_files use it as a fast
// engine when present; without it they fall back to the in-process implementation.
import fs from 'node:fs';
import { ToolError } from '../errors.ts';
import { childProcess } from '../platform/runtime.ts';

let cached: Promise<string | null> | undefined;

/** Path of the bundled `rg`, or null when the platform package is not installed. */
export function findRipgrep(): Promise<string | null> {
  cached ??= import('@vscode/ripgrep').then(
    (m: { rgPath?: string }) => (m.rgPath && fs.existsSync(m.rgPath) ? m.rgPath : null),
    () => null,
  );
  return cached;
}

/**
 * Runs `rg` in `cwd`, handing `onLine` each line of its output; `onLine` returning false kills
 * it (later lines are dropped). Resolves its exit code and whether it was stopped so; a `signal`
 * abort kills it and rejects `cancelled` for `tool`.
 */
export function runRipgrep(
  rg: string,
  args: readonly string[],
  cwd: string,
  onLine: (line: string) => boolean | void,
  tool: string,
  signal?: AbortSignal,
): Promise<{ code: number | null; stopped: boolean }> {
  return new Promise((resolve, reject) => {
    const child = childProcess().spawn(rg, args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    let stopped = false;
    let rest = '';
    const feed = (line: string) => {
      if (stopped || onLine(line) !== false) return;
      stopped = true;
      child.kill('SIGKILL');
    };
    const onAbort = () => child.kill('SIGKILL');
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const l of lines) feed(l);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) return reject(new ToolError('cancelled', `${tool} was cancelled.`));
      if (rest) feed(rest);
      resolve({ code, stopped });
    });
  });
}

/** Escapes glob metacharacters so a directory name is matched literally by `rg -g`. */
export const rgGlobLiteral = (name: string) => name.replace(/[*?[\]{}!\\]/g, '\\$&');
