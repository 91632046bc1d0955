// Spawns the cxl binary as a child process under the runtime running the test, as users run it:
// Node runs bin/cxl.js, Deno the bundle `deno task start` runs (dist/cli.js); both are built from
// src/ by `npm test` (and `npm install`) before the tests.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { runtimeBinary, runtimeName } from '../../src/core/platform/runtime.ts';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

// the scripted subcommands keep a V8 code cache (bin/code_cache.js): tests keep theirs in a
// directory of this test process, not in the user's ~/.cache
const codeCacheDir = path.join(os.tmpdir(), `cxl-test-code-cache-${process.pid}`);
process.once('exit', () => fs.rmSync(codeCacheDir, { recursive: true, force: true }));

export function cxlCommand(): string[] {
  if (runtimeName === 'deno') return [runtimeBinary(), 'run', '-A', '--no-check', `${repoRoot}dist/cli.js`];
  return [runtimeBinary(), `${repoRoot}bin/cxl.js`];
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCxl(
  args: string[],
  opts: { cwd?: string; input?: string; env?: Record<string, string | undefined>; timeoutMs?: number } = {},
): Promise<RunResult> {
  const [cmd, ...pre] = cxlCommand();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, [...pre, ...args], {
      cwd: opts.cwd,
      env: { ...process.env, NO_COLOR: '1', CXL_CODE_CACHE_DIR: codeCacheDir, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}
