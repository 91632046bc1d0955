// The way back, end to end in a real terminal (tmux) with the built-in agent: a prompt writes a
// file (approved with its diff), /fork opens a new session with its history, Esc Esc on the empty
// prompt lists the prompts, Enter shows what going back does (the file deleted, its diff) before
// anything happens, y does it: the file is gone, the conversation is back before the prompt and
// the prompt is in the composer again; sent again, /undo shows and takes it back the same way, and
// with nothing left to undo says so.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runtimeName } from '../../src/core/platform/runtime.ts';
import { cxlCommand } from '../helpers/cxl.ts';
import { exitCode, Tmux } from '../helpers/tmux.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test(`cxl in tmux (${runtimeName}): a written file, /fork, Esc Esc, the preview and y take the file and the prompt back`, { timeout: 120_000 }, async () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-e2e-rewind-')));
  const rcFile = path.join(dir, '.rc');
  writeFileSync(path.join(dir, 'keep.txt'), 'kept\n');
  const tmux = new Tmux();
  try {
    tmux.start(dir, cxlCommand(), ['NO_COLOR=1', 'CI=true', `XDG_DATA_HOME=${dir}/.data`, `XDG_CONFIG_HOME=${dir}/.config`], rcFile, 110);
    const started = await tmux.waitFor(/cxl · .*session ([0-9a-f]{4})/, "the built-in agent's session");
    const first = /session ([0-9a-f]{4})/.exec(started)![1];

    tmux.type('/tool write_file {"path":"made.txt","content":"made by the prompt\\n"}');
    await tmux.waitFor(/write_file \{"path"/, 'the typed tool command');
    tmux.keys('Enter');
    await tmux.waitFor(/── approval[\s\S]*Allow once {2}\(y\)/, 'the approval');
    await tmux.answer('y');
    await tmux.waitFor(/✓ edit .*write_file.*made\.txt/, 'the finished write');
    assert.equal(readFileSync(path.join(dir, 'made.txt'), 'utf8'), 'made by the prompt\n');

    // a fork: a new session (another id on the status line), with the history and its checkpoints
    tmux.type('/fork');
    await tmux.waitFor(/› \/fork/, 'the typed command');
    tmux.keys('Enter');
    let screen = await tmux.waitFor(/Forked: this is a new session \(([0-9a-f]{8})\)/, 'the fork');
    const forked = /new session \(([0-9a-f]{4})/.exec(screen)![1];
    assert.notEqual(forked, first);
    await tmux.waitFor(new RegExp(`cxl · .*session ${forked}`), 'the forked session on the status line');

    // Esc Esc on the empty prompt: the prompts to go back to
    tmux.keys('Escape');
    await sleep(150);
    tmux.keys('Escape');
    screen = await tmux.waitFor(/go back to before a prompt \(1\)[\s\S]*› +1 \/tool write_file.*1 created/, 'the rewind picker');
    assert.equal(existsSync(path.join(dir, 'made.txt')), true, 'the picker changes nothing');

    // Enter: what going back would do, before it is done
    tmux.keys('Enter');
    screen = await tmux.waitFor(/going back to before .*\(files and conversation\)[\s\S]*delete made\.txt[\s\S]*-made by the prompt[\s\S]*y: go back/, 'the preview with its diff');
    assert.match(screen, /the conversation goes back 1 prompt/);
    assert.equal(existsSync(path.join(dir, 'made.txt')), true, 'the preview changes nothing');

    tmux.keys('y');
    screen = await tmux.waitFor(/Went back to before “\/tool write_file[^”]*”: 1 file restored;\s+the\s+conversation\s+is\s+back\s+to\s+before\s+it\s+\(1\s+prompt\s+gone\)/, 'the notice of what was done');
    assert.equal(existsSync(path.join(dir, 'made.txt')), false, 'the file the prompt created is gone');
    assert.equal(readFileSync(path.join(dir, 'keep.txt'), 'utf8'), 'kept\n', 'a file the prompt did not touch is as it was');
    // the prompt is back in the composer, to edit and send again
    screen = await tmux.waitFor(/─{20,}\n› \/tool write_file \{"path":"made\.txt","content":"made by the prompt\\n"\}\n/, 'the prompt back in the composer');
    assert.doesNotMatch(screen, /✓ edit .*made\.txt/, 'the conversation, shown again, has no call of it');

    // sent again as it is: the file is written again, and /undo shows going back before it, then does it
    tmux.keys('Enter');
    await tmux.waitFor(/── approval[\s\S]*Allow once {2}\(y\)/, 'the approval of the prompt sent again');
    await tmux.answer('y');
    await tmux.waitFor(/✓ edit .*write_file.*made\.txt/, 'the file written again');
    assert.equal(existsSync(path.join(dir, 'made.txt')), true);
    tmux.type('/undo');
    await tmux.waitFor(/› \/undo/, 'the typed command');
    tmux.keys('Enter');
    await tmux.waitFor(/going back to before .*\(files and conversation\)[\s\S]*delete made\.txt[\s\S]*y: go back/, 'the preview of the undo');
    assert.equal(existsSync(path.join(dir, 'made.txt')), true, 'the preview changes nothing');
    tmux.keys('y');
    // done once the screen starts over without the call, the prompt back in the composer
    await tmux.waitFor(/^(?![\s\S]*✓ edit)[\s\S]*Went back to before “\/tool write_file[^”]*”: 1 file restored[\s\S]*─{20,}\n› \/tool write_file \{"path":"made\.txt"/, 'the undo done, the screen shown again');
    assert.equal(existsSync(path.join(dir, 'made.txt')), false, 'undone');

    // nothing left to undo
    tmux.keys('C-u');
    tmux.type('/undo');
    await tmux.waitFor(/› \/undo/, 'the typed command');
    tmux.keys('Enter');
    await tmux.waitFor(/Nothing to undo: no prompt yet\./, 'nothing to undo');

    tmux.keys('C-d');
    assert.equal(await exitCode(rcFile), '0');
  } finally {
    tmux.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
