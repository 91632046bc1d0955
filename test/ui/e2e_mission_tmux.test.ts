// End to end in a real terminal (tmux): `/mission` typed in the UI fires a unit (asked first:
// the envelope's missions.fire is unset, so it asks), the unit's plan and reports arrive as
// mission rows while it runs in a process of its own, its edit comes to this UI as an approval
// answered with `y`, and its verdict ends the rows. One scripted model on 127.0.0.1 serves the
// unit; the session's own model is never asked.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runtimeName } from '../../src/core/platform/runtime.ts';
import { startFakeOpenAI, type Reply } from '../fixtures/fake_models.ts';
import { cxlCommand } from '../helpers/cxl.ts';
import { exitCode, Tmux } from '../helpers/tmux.ts';

test(`cxl in tmux (${runtimeName}): /mission shows the unit's plan and reports as rows, and its ask is answered with y`, { timeout: 120_000 }, async () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-e2e-mission-')));
  writeFileSync(path.join(dir, 'notes.txt'), 'one\n');
  mkdirSync(path.join(dir, '.contenox'));
  writeFileSync(path.join(dir, '.contenox', 'agents.toml'), '# the user\'s own (HOME is this folder)\n');
  const unit: Reply[] = [
    { toolCalls: [{ name: 'mission_plan', arguments: { entries: [{ content: 'read notes.txt', status: 'completed' }, { content: 'change one to uno', status: 'in_progress' }] } }] },
    { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
    { toolCalls: [{ name: 'edit_file', arguments: { path: 'notes.txt', old_string: 'one', new_string: 'uno' } }] },
    { toolCalls: [{ name: 'mission_report', arguments: { kind: 'result', summary: 'Changed one to uno.', refs: ['notes.txt'] } }, { name: 'mission_finish', arguments: { status: 'landed', reason: 'edited' } }] },
    { text: 'done' },
  ];
  let n = 0;
  const srv = await startFakeOpenAI(() => unit[Math.min(n++, unit.length - 1)]);
  const rcFile = path.join(dir, '.rc');
  const tmux = new Tmux();
  try {
    const env = ['NO_COLOR=1', 'CI=true', `HOME=${dir}`, `XDG_DATA_HOME=${dir}/.data`, `XDG_CONFIG_HOME=${dir}/.config`, `OPENAI_BASE_URL=${srv.url}`, 'OPENAI_API_KEY=k'];
    tmux.start(dir, [...cxlCommand(), '--provider', 'openai', '--model', 'm'], env, rcFile, 110, 40);
    // a session is open once its id begins to show (a 100-column status line with the no-model
    // notice and a temp path cuts the id's end)
    await tmux.waitFor(/cxl · .*session [0-9a-f]/, 'the session');
    tmux.type('/mission change one to uno in notes.txt');
    await tmux.waitFor(/› \/mission change one/, 'the typed command');
    tmux.keys('Enter');
    // missions.fire is unset under `default`, so a model's mission_start asks; the person typing
    // /mission is the approval: they are not asked again
    const rows = await tmux.waitFor(/◆ m-\w+ plan, revision 1: 1\/2 done[\s\S]*\[x\] read notes\.txt[\s\S]*\[~\] change one to uno/, 'the unit\'s plan as rows', 40_000);
    assert.match(rows, /◆ m-\w+ fired \(agent run, envelope default\): change one to uno in notes\.txt/);
    const fired = tmux.scrollback();
    assert.match(fired, /✓ other mission\.mission_start: change one to uno/, 'the call, done');
    assert.doesNotMatch(fired, /\? other mission\.mission_start/, 'firing it was not asked');
    // the unit's edit, asked of this UI with its diff
    await tmux.waitFor(/── approval[\s\S]*m-\w+: local_fs\.edit_file: notes\.txt[\s\S]*- one[\s\S]*\+ uno[\s\S]*Allow once {2}\(y\)/, 'the unit\'s ask with its diff', 40_000);
    assert.equal(readFileSync(path.join(dir, 'notes.txt'), 'utf8'), 'one\n', 'nothing written before the answer');
    await tmux.answer('y');
    const end = await tmux.waitFor(/◆ m-\w+ finished landed: edited/, 'the unit\'s verdict', 40_000);
    assert.match(end, /◆ m-\w+ \[result\] Changed one to uno\.\n\s+refs: notes\.txt/);
    assert.equal(readFileSync(path.join(dir, 'notes.txt'), 'utf8'), 'uno\n');
    tmux.keys('C-d');
    assert.equal(await exitCode(rcFile), '0');
  } finally {
    tmux.kill();
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
