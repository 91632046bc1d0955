// The composer end to end in a real terminal (tmux), under the runtime running this test, with the
// scripted agent (it echoes prompts and keeps its sessions in a file): a word in the middle of a
// two-line prompt edited with Alt+B and Ctrl+W, Ctrl+G with EDITOR set to a script that rewrites
// the draft, then a second `cxl --continue` that finds a prompt of the first with Ctrl+R.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { moduleCommand, runtimeName } from '../../src/core/platform/runtime.ts';
import { cxlCommand } from '../helpers/cxl.ts';
import { exitCode, Tmux } from '../helpers/tmux.ts';

const fixture = fileURLToPath(new URL('../fixtures/scripted_agent.ts', import.meta.url));

function startCxl(tmux: Tmux, dir: string, rcFile: string, extra: string[]): void {
  const env = ['NO_COLOR=1', `XDG_DATA_HOME=${dir}/.data`, `XDG_CONFIG_HOME=${dir}/.config`, `EDITOR=${dir}/rewrite.sh`, 'VISUAL='];
  tmux.start(dir, [...cxlCommand(), '--agent', quote(moduleCommand(fixture)), ...extra], env, rcFile, 100, 30);
}

test(`composer in tmux (${runtimeName}): Alt+B and Ctrl+W in a two-line prompt, Ctrl+G with $EDITOR, Ctrl+R after --continue`, { timeout: 90_000 }, async () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-e2e-composer-')));
  const rcFile = path.join(dir, '.rc');
  // the "editor": appends a line to the file it is given and turns `draft` into `rewritten`
  writeFileSync(path.join(dir, 'rewrite.sh'), '#!/bin/sh\nsed -i "s/draft/rewritten/" "$1"\nprintf "\\nby the editor" >> "$1"\n');
  chmodSync(path.join(dir, 'rewrite.sh'), 0o755);
  const tmux = new Tmux();
  try {
    startCxl(tmux, dir, rcFile, []);
    await tmux.waitFor(/scripted-agent · .*mode Ask/, 'the session');

    tmux.type('fix the parser bug');
    tmux.keys('M-Enter');
    tmux.type('in lexer.ts');
    await tmux.waitFor(/› fix the parser bug\n {2}in lexer\.ts/, 'the two-line prompt');
    // ↑ goes to the first line (not to history), End, Alt+B before `bug`, Ctrl+W cuts `parser `
    tmux.keys('Up', 'End', 'M-b', 'C-w');
    tmux.type('lexer ');
    await tmux.waitFor(/› fix the lexer bug\n {2}in lexer\.ts/, 'the edited prompt');
    tmux.keys('Enter');
    await tmux.waitFor(/echo: fix the lexer bug\nin lexer\.ts/, 'the edited prompt sent');

    tmux.type('a draft for the editor');
    await tmux.waitFor(/› a draft for the editor/, 'the draft');
    tmux.keys('C-g');
    await tmux.waitFor(/› a rewritten for the editor\n {2}by the editor/, 'the draft as the editor left it');
    tmux.keys('Enter');
    await tmux.waitFor(/echo: a rewritten for the editor\nby the editor/, 'the edited draft sent');
    tmux.keys('C-d');
    assert.equal(await exitCode(rcFile), '0');
    tmux.kill();

    const files = readdirSync(path.join(dir, '.data', 'cxl', 'history'));
    assert.equal(files.length, 1, 'one history file for the project');
    assert.equal(statSync(path.join(dir, '.data', 'cxl', 'history', files[0])).mode & 0o777, 0o600);

    rmSync(rcFile, { force: true });
    const again = new Tmux();
    try {
      startCxl(again, dir, rcFile, ['--continue']);
      await again.waitFor(/echo: a rewritten[\s\S]*scripted-agent · .*mode Ask/, 'the session resumed');
      again.keys('C-r');
      again.type('lexer');
      await again.waitFor(/search prompts: lexer.*1 of 1\n {2}fix the lexer bug\n {2}in lexer\.ts/, 'the earlier session\'s prompt found');
      again.keys('Enter');
      await again.waitFor(/─\n› fix the lexer bug\n {2}in lexer\.ts/, 'the found prompt in the composer');
      again.keys('Enter');
      await again.waitFor(/echo: fix the lexer bug\nin lexer\.ts[\s\S]*echo: fix the lexer bug\nin lexer\.ts/, 'sent again');
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

test(`cxl "<prompt>" in tmux (${runtimeName}): the UI opens and sends it once the session is open`, { timeout: 60_000 }, async () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-e2e-prompt-')));
  const rcFile = path.join(dir, '.rc');
  const tmux = new Tmux();
  try {
    startCxl(tmux, dir, rcFile, ['hello from the command line']);
    await tmux.waitFor(/› hello from the command line\n[\s\S]*echo: hello from the command line/, 'the prompt sent and answered');
    tmux.keys('Up');
    await tmux.waitFor(/─\n› hello from the command line/, 'and kept in the history');
    tmux.keys('C-c', 'C-d');
    assert.equal(await exitCode(rcFile), '0');
  } finally {
    tmux.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
