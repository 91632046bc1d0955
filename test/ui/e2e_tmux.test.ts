// End to end in a real terminal (tmux), under the runtime running this test: start `cxl`, run
// `!ls` through its approval, write a file through `/tool write_file` after seeing its diff,
// quit with Ctrl+D and check the exit code. Each run has its own tmux server, always killed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { moduleCommand, runtimeName } from '../../src/core/runtime.ts';
import { cxlCommand } from '../helpers/cxl.ts';

const fixture = fileURLToPath(new URL('../fixtures/scripted_agent.ts', import.meta.url));

class Tmux {
  readonly socket = `cxl-e2e-${runtimeName}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  run(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', timeout: 10_000 });
  }
  screen(): string {
    return this.run('capture-pane', '-p', '-t', 'cxl');
  }
  keys(...keys: string[]): void {
    this.run('send-keys', '-t', 'cxl', ...keys);
  }
  type(text: string): void {
    this.run('send-keys', '-t', 'cxl', '-l', '--', text);
  }
  async waitFor(pattern: RegExp, what: string, ms = 20_000): Promise<string> {
    const deadline = Date.now() + ms;
    let last = '';
    while (Date.now() < deadline) {
      try {
        last = this.screen();
      } catch {
        /* the session may be gone */
      }
      if (pattern.test(last)) return last;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`timed out waiting for ${what} (${pattern}); the screen was:\n${last}`);
  }
  kill(): void {
    try {
      execFileSync('tmux', ['-L', this.socket, 'kill-server'], { stdio: 'ignore', timeout: 5_000 });
    } catch {
      /* already gone */
    }
  }
}

test(`cxl in tmux (${runtimeName}): !ls through an approval, /tool write_file with its diff, Ctrl+D exits 0`, { timeout: 90_000 }, async () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-e2e-')));
  writeFileSync(path.join(dir, 'marker-e2e.txt'), 'x');
  const rcFile = path.join(dir, '.rc');
  const tmux = new Tmux();
  try {
    const agent = quote(moduleCommand(fixture));
    const line = `cd ${quote([dir])} && ${quote(cxlCommand())} --agent ${quote([agent])}; echo $? > ${quote([rcFile])}; sleep 30`;
    tmux.run('new-session', '-d', '-s', 'cxl', '-x', '100', '-y', '30', 'env', 'NO_COLOR=1', 'sh', '-c', line);
    await tmux.waitFor(/scripted-agent · .*session sess-1/, 'the session to start');
    await tmux.waitFor(/Enter send/, 'the composer footer');

    tmux.type('!ls');
    await tmux.waitFor(/› !ls/, 'the typed command');
    tmux.keys('Enter');
    let screen = await tmux.waitFor(/approval|marker-e2e\.txt/, 'an approval or the output');
    if (/approval/.test(screen)) {
      assert.match(screen, /y allow once/);
      tmux.keys('y');
    }
    screen = await tmux.waitFor(/│ marker-e2e\.txt[\s\S]*exit=0/, 'the ls output');
    assert.match(screen, /✓ execute ls/);

    tmux.type('/tool write_file {"path":"hello.txt","content":"hi there\\nsecond line\\n"}');
    await tmux.waitFor(/write_file \{"path"/, 'the typed tool command');
    tmux.keys('Enter');
    screen = await tmux.waitFor(/approval[\s\S]*2 \+ second line[\s\S]*Allow once/, 'the approval with its diff');
    assert.match(screen, /1 \+ hi there/);
    assert.equal(existsSync(path.join(dir, 'hello.txt')), false, 'nothing is written before the answer');
    tmux.keys('y');
    screen = await tmux.waitFor(/✓ edit write_file hello\.txt {2}\+2 -0 hello\.txt \(new file\)/, 'the collapsed, finished call');
    assert.equal(readFileSync(path.join(dir, 'hello.txt'), 'utf8'), 'hi there\nsecond line\n');

    tmux.keys('C-d');
    const deadline = Date.now() + 15_000;
    while (!existsSync(rcFile) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(readFileSync(rcFile, 'utf8').trim(), '0', 'Ctrl+D quits with exit code 0');
  } finally {
    tmux.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
