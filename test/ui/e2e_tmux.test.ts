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

function startCxl(tmux: Tmux, dir: string, rcFile: string, extra: string[]): void {
  const line = `cd ${quote([dir])} && ${quote([...cxlCommand(), ...extra])}; echo $? > ${quote([rcFile])}; sleep 30`;
  // The built-in agent keeps sessions under XDG_DATA_HOME: keep them in the temp dir.
  // CI=true as in CI itself: Ink would draw nothing live under it unless cxl sets it aside.
  const env = ['NO_COLOR=1', 'CI=true', `XDG_DATA_HOME=${dir}/.data`, `XDG_CONFIG_HOME=${dir}/.config`];
  tmux.run('new-session', '-d', '-s', 'cxl', '-x', '100', '-y', '30', 'env', ...env, 'sh', '-c', line);
}

async function exitCode(rcFile: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  while (!existsSync(rcFile) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return existsSync(rcFile) ? readFileSync(rcFile, 'utf8').trim() : 'no exit within 15 s';
}

function workdir(): { dir: string; rcFile: string } {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-e2e-')));
  writeFileSync(path.join(dir, 'marker-e2e.txt'), 'x');
  return { dir, rcFile: path.join(dir, '.rc') };
}

test(`cxl in tmux (${runtimeName}), built-in agent: !ls, /tool write_file with its diff and y, Ctrl+D exits 0`, { timeout: 90_000 }, async () => {
  const { dir, rcFile } = workdir();
  const tmux = new Tmux();
  try {
    startCxl(tmux, dir, rcFile, []);
    await tmux.waitFor(/cxl · .*session [0-9a-f]{8}/, 'the built-in agent\'s session');

    tmux.type('!ls');
    await tmux.waitFor(/› !ls/, 'the typed command');
    tmux.keys('Enter');
    let screen = await tmux.waitFor(/approval|│ marker-e2e\.txt/, 'an approval or the output');
    if (/── approval/.test(screen)) tmux.keys('y');
    await tmux.waitFor(/✓ execute .*ls[\s\S]*│ marker-e2e\.txt[\s\S]*└ exit 0/, 'the finished ls and its output');

    tmux.type('/tool write_file {"path":"hello.txt","content":"hi there\\nsecond line\\n"}');
    await tmux.waitFor(/write_file \{"path"/, 'the typed tool command');
    tmux.keys('Enter');
    screen = await tmux.waitFor(/── approval[\s\S]*2 \+ second line[\s\S]*Allow once {2}\(y\)/, 'the approval with its diff');
    assert.match(screen, /1 \+ hi there/);
    assert.equal(existsSync(path.join(dir, 'hello.txt')), false, 'nothing is written before the answer');
    tmux.keys('y');
    await tmux.waitFor(/✓ edit .*write_file.*hello\.txt.*  \+2 -0 \(new file\)/, 'the collapsed, finished call');
    assert.equal(readFileSync(path.join(dir, 'hello.txt'), 'utf8'), 'hi there\nsecond line\n');

    // A narrower terminal: the live region is laid out again at 60 columns.
    tmux.run('resize-window', '-t', 'cxl', '-x', '60', '-y', '24');
    await tmux.waitFor(/\nTab tool list · Shift\+Tab next mode · Ctrl\+T transcript\nCtrl\+C cancel \(twice quits\) · Ctrl\+D quit\s*$/, 'the footer re-wrapped at 60 columns');

    tmux.keys('C-d');
    assert.equal(await exitCode(rcFile), '0', 'Ctrl+D quits with exit code 0');
  } finally {
    tmux.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

test(`cxl in tmux (${runtimeName}), --agent: an approval answered with y, then the agent crashes and the UI stays usable`, { timeout: 90_000 }, async () => {
  const { dir, rcFile } = workdir();
  const tmux = new Tmux();
  try {
    startCxl(tmux, dir, rcFile, ['--agent', quote(moduleCommand(fixture))]);
    await tmux.waitFor(/scripted-agent · model Large Model 2 · mode Ask · sandbox bubblewrap/, 'the session to start (its model, mode and sandbox on the status line)');
    tmux.type('!ls');
    await tmux.waitFor(/› !ls/, 'the typed command');
    tmux.keys('Enter');
    let screen = await tmux.waitFor(/── approval[\s\S]*\$ ls[\s\S]*y allow once/, 'the approval');
    tmux.keys('y');
    screen = await tmux.waitFor(/│ marker-e2e\.txt[\s\S]*exit=0/, 'the ls output');

    tmux.type('crash');
    await tmux.waitFor(/› crash/, 'the typed prompt');
    tmux.keys('Enter');
    screen = await tmux.waitFor(/exited with code 3[\s\S]*fatal: out of cheese/, 'the crash report');
    assert.match(screen, /\(exited 3\)/, 'the status line says so');
    tmux.type('still here?');
    await tmux.waitFor(/› still here\?/, 'the typed prompt');
    tmux.keys('Enter');
    await tmux.waitFor(/not running, so nothing was sent/, 'the UI still answering');
    tmux.keys('C-d');
    assert.equal(await exitCode(rcFile), '0', 'Ctrl+D quits with exit code 0');
  } finally {
    tmux.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
