// A tmux server of its own for one end-to-end test: start a command in a window of a chosen
// size, read the screen (and the scrollback), send keys and literal text, always kill it after.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import process from 'node:process';
import { quote } from 'shell-quote';
import { runtimeName } from '../../src/core/platform/runtime.ts';

export class Tmux {
  readonly socket = `cxl-e2e-${runtimeName}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  run(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', timeout: 10_000 });
  }
  /** Runs `argv` in `dir` under `env`, then writes its exit code to `rcFile` (and waits, so the pane stays readable). */
  start(dir: string, argv: string[], env: string[], rcFile: string, columns = 100, rows = 30): void {
    const line = `cd ${quote([dir])} && ${quote(argv)}; echo $? > ${quote([rcFile])}; sleep 30`;
    this.run('new-session', '-d', '-s', 'cxl', '-x', String(columns), '-y', String(rows), 'env', ...env, 'sh', '-c', line);
  }
  screen(): string {
    return this.run('capture-pane', '-p', '-t', 'cxl');
  }
  /** The screen with `lines` of scrollback above it. */
  scrollback(lines = 300): string {
    return this.run('capture-pane', '-p', '-S', `-${lines}`, '-t', 'cxl');
  }
  keys(...keys: string[]): void {
    this.run('send-keys', '-t', 'cxl', ...keys);
  }
  type(text: string): void {
    this.run('send-keys', '-t', 'cxl', '-l', '--', text);
  }
  /** Writes `text` to the pane in one go, as a terminal does with fast input; `bracketed`: as a paste. */
  write(text: string, bracketed = false): void {
    this.run('set-buffer', '-b', 'e2e', '--', text);
    this.run('paste-buffer', '-b', 'e2e', '-d', '-r', ...(bracketed ? ['-p'] : []), '-t', 'cxl');
  }
  async waitFor(pattern: RegExp, what: string, ms = 20_000, read: () => string = () => this.screen()): Promise<string> {
    const deadline = Date.now() + ms;
    let last = '';
    while (Date.now() < deadline) {
      try {
        last = read();
      } catch {
        /* the session may be gone */
      }
      if (pattern.test(last)) return last;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`timed out waiting for ${what} (${pattern}); the screen was:\n${last}`);
  }
  /** Waits until the approval on screen takes answers (it holds its keys a moment after it appears), then presses `key`. */
  async answer(key: string, ms = 10_000): Promise<void> {
    await this.waitFor(/^(?![\s\S]*keys held)[\s\S]*── approval/, 'the approval to take answers', ms);
    this.keys(key);
  }
  kill(): void {
    try {
      execFileSync('tmux', ['-L', this.socket, 'kill-server'], { stdio: 'ignore', timeout: 5_000 });
    } catch {
      /* already gone */
    }
  }
}

export async function exitCode(rcFile: string, ms = 15_000): Promise<string> {
  const deadline = Date.now() + ms;
  // the shell creates the file before it writes the code into it
  const read = () => (existsSync(rcFile) ? readFileSync(rcFile, 'utf8').trim() : '');
  while (read() === '' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return read() || `no exit within ${ms / 1000} s`;
}
