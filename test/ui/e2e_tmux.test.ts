// End to end in a real terminal (tmux), under the runtime running this test: start `cxl`, run
// `!ls` in the person's own shell (no approval: the person typed it), write a file through `/tool write_file` after seeing its diff,
// switch the envelope with Shift+Tab, quit with Ctrl+D and check the exit code, then
// `cxl --continue` shows that session again. With a scripted agent: text and Enter in one write
// send, a bracketed paste does not, and a resize from 120 to 60 columns re-flows history. Each run
// has its own tmux server, always killed.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { moduleCommand, runtimeName } from '../../src/core/platform/runtime.ts';
import { cxlCommand } from '../helpers/cxl.ts';
import { exitCode, Tmux } from '../helpers/tmux.ts';

const fixture = fileURLToPath(new URL('../fixtures/scripted_agent.ts', import.meta.url));

function startCxl(tmux: Tmux, dir: string, rcFile: string, extra: string[], columns = 100): void {
  // The built-in agent keeps sessions under XDG_DATA_HOME: keep them in the temp dir.
  // CI=true as in CI itself: Ink would draw nothing live under it unless cxl sets it aside.
  const env = ['NO_COLOR=1', 'CI=true', `XDG_DATA_HOME=${dir}/.data`, `XDG_CONFIG_HOME=${dir}/.config`];
  tmux.start(dir, [...cxlCommand(), ...extra], env, rcFile, columns);
}

function workdir(): { dir: string; rcFile: string } {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-e2e-')));
  writeFileSync(path.join(dir, 'marker-e2e.txt'), 'x');
  return { dir, rcFile: path.join(dir, '.rc') };
}

test(`cxl in tmux (${runtimeName}), built-in agent: !ls, /tool write_file with its diff and y, Shift+Tab, Ctrl+D exits 0; --continue shows it again`, { timeout: 90_000 }, async () => {
  const { dir, rcFile } = workdir();
  const tmux = new Tmux();
  try {
    startCxl(tmux, dir, rcFile, []);
    // a session is open once its id begins to show (a 100-column status line with the no-model
    // notice and a temp path cuts the id's end)
    await tmux.waitFor(/cxl · .*session [0-9a-f]/, 'the built-in agent\'s session');

    tmux.type('!ls');
    await tmux.waitFor(/› !ls/, 'the typed command');
    tmux.keys('Enter');
    let screen = await tmux.waitFor(/✓ \$ ls[\s\S]*│ marker-e2e\.txt[\s\S]*└ exit 0 · the agent gets this output with your next prompt/, 'the finished ls, its output and where it goes');
    assert.doesNotMatch(screen, /── approval/, 'the person typed it: nobody asks');

    tmux.type('/tool write_file {"path":"hello.txt","content":"hi there\\nsecond line\\n"}');
    await tmux.waitFor(/write_file \{"path"/, 'the typed tool command');
    tmux.keys('Enter');
    screen = await tmux.waitFor(/── approval[\s\S]*2 \+ second line[\s\S]*Allow once {2}\(y\)/, 'the approval with its diff');
    assert.match(screen, /1 \+ hi there/);
    assert.equal(existsSync(path.join(dir, 'hello.txt')), false, 'nothing is written before the answer');
    await tmux.answer('y');
    await tmux.waitFor(/✓ edit .*write_file.*hello\.txt.*  \+2 -0 \(new file\)/, 'the collapsed, finished call');
    assert.equal(readFileSync(path.join(dir, 'hello.txt'), 'utf8'), 'hi there\nsecond line\n');

    // Shift+Tab: the next envelope (session/set_mode), shown on the status line: from default, one
    // press reaches auto_edit.
    await tmux.waitFor(/cxl · .*envelope default/, 'the envelope on the status line');
    tmux.keys('BTab');
    await tmux.waitFor(/cxl · .*envelope auto_edit/, 'the next envelope on the status line');

    // A narrower terminal: the live region is laid out again at 60 columns.
    tmux.run('resize-window', '-t', 'cxl', '-x', '60', '-y', '24');
    // the footer is one row below 80 columns, `?` at its end for the rest
    await tmux.waitFor(/\ncxl · .*session [0-9a-f]{8}…[0-9a-f]{4}\nEnter send · .* · \? keys\s*$/, 'one footer row at 60 columns, under the status line with the whole id');

    tmux.keys('C-d');
    assert.equal(await exitCode(rcFile), '0', 'Ctrl+D quits with exit code 0');
    tmux.kill();

    // --continue: the same session, replayed by the agent, in the envelope it was left in.
    rmSync(rcFile, { force: true });
    const again = new Tmux();
    try {
      startCxl(again, dir, rcFile, ['--continue']);
      screen = await again.waitFor(/› \/tool write_file[\s\S]*✓ edit .*write_file.*hello\.txt[\s\S]*cxl · .*envelope auto_edit/, 'the previous session, replayed');
      // as the live screen showed them: the `!` line in its frame, the approved change collapsed
      assert.match(screen, /✓ \$ ls\n[\s\S]*│ marker-e2e\.txt[\s\S]*└ exit 0 · the agent gets this output with your next prompt[\s\S]*› \/tool write_file/, 'the shell line framed, before the prompt it went with');
      assert.match(screen, /✓ edit .*write_file.*hello\.txt.*  \+2 -0 \(new file\)/);
      assert.doesNotMatch(screen, /1 \+ hi there/, 'the approved diff is not expanded again');
      again.keys('C-d');
      assert.equal(await exitCode(rcFile), '0');
    } finally {
      again.kill();
    }
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
    tmux.type('run ls');
    await tmux.waitFor(/› run ls/, 'the typed command');
    tmux.keys('Enter');
    let screen = await tmux.waitFor(/── approval[\s\S]*\$ ls[\s\S]*y allow once/, 'the approval');
    await tmux.answer('y');
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

test(`cxl in tmux (${runtimeName}), --agent: text and Enter in one write send it, a bracketed paste does not, 120 → 60 columns re-flows history, Shift+Tab`, { timeout: 90_000 }, async () => {
  const { dir, rcFile } = workdir();
  const tmux = new Tmux();
  try {
    startCxl(tmux, dir, rcFile, ['--agent', quote(moduleCommand(fixture))], 120);
    await tmux.waitFor(/scripted-agent · .*mode Ask/, 'the session');

    // One write holding the text and its Enter (a fast typist over ssh): it is sent, once.
    tmux.write('hello in one read\r');
    let screen = await tmux.waitFor(/echo: hello in one read/, 'the answer to the one-read prompt');
    assert.doesNotMatch(screen, /─\n› hello in one read/, 'nothing is left in the composer');

    // A bracketed paste with newlines stays in the composer until Enter.
    tmux.write('pasted line one\npasted line two\n', true);
    screen = await tmux.waitFor(/─\n› pasted line one\n {2}pasted line two/, 'the paste in the composer');
    await new Promise((r) => setTimeout(r, 300));
    assert.doesNotMatch(tmux.screen(), /echo: pasted/, 'a paste never sends');
    tmux.keys('BSpace', 'Enter');
    await tmux.waitFor(/echo: pasted line one\npasted line two/, 'the paste sent by Enter');

    // A long line in history, one row at 120 columns, re-flowed at 60 on word boundaries.
    const long = 'please rename every helper in the utilities module so that each name says what it returns';
    tmux.type(long);
    tmux.keys('Enter');
    await tmux.waitFor(new RegExp(`\n› ${long}\n`), 'the long prompt on one row');
    tmux.run('resize-window', '-t', 'cxl', '-x', '60', '-y', '30');
    screen = await tmux.waitFor(/\n› please rename every helper in the utilities module so that\n {2}each name says what it returns\n/, 'the prompt re-flowed at 60 columns');
    assert.equal(screen.split('\n').filter((l) => l.startsWith('› please rename')).length, 1, 'printed once, not once per width');
    for (const l of screen.split('\n')) assert.ok([...l].length <= 60, `wider than 60 after the resize: ${l}`);

    // Shift+Tab: the agent's next mode, shown on the status line.
    tmux.keys('BTab');
    // at 60 columns the status line says the mode without the word `mode`
    await tmux.waitFor(/scripted-agent · .* · Code · /, 'the next mode on the status line');
    tmux.keys('C-d');
    assert.equal(await exitCode(rcFile), '0');
  } finally {
    tmux.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
