// A checkpoint that could not be kept is said when it happens, not first at /rewind: `cxl acp` as
// a real child process whose data dir is a tiny tmpfs (the session log fits, the version of a
// 300 KB file the prompt edits does not), a fake OpenAI server scripting the edit. The client
// hears a notice during the prompt; the edit itself is made; the notice is said once.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { startFakeOpenAI, type Reply } from '../../fixtures/fake_models.ts';
import { mountTmpfs } from '../../helpers/tmpfs.ts';
import { Harness } from './harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

test('a full disk under the checkpoints: the client is told during the prompt that the change was not checkpointed, once; the edit is made', async () => {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-cp-full-')));
  const data = path.join(base, 'data');
  const fsys = mountTmpfs(data, '128k');
  cleanups.push(() => rmSync(base, { recursive: true, force: true }));
  assert.ok(!('error' in fsys), `this test mounts a tmpfs (as root): ${'error' in fsys ? fsys.error : ''}`);
  cleanups.push(() => fsys.unmount());
  const project = path.join(base, 'project');
  mkdirSync(project);
  const big = `HEADER\n${`${'x'.repeat(99)}\n`.repeat(3000)}`;
  writeFileSync(path.join(project, 'big.txt'), big);
  // each prompt: a small read, then an edit of its first line; then a text answer
  const steps: Reply[] = [
    { toolCalls: [{ name: 'read_file_range', arguments: { path: 'big.txt', start_line: 1, end_line: 2 } }] },
    { toolCalls: [{ name: 'edit_file', arguments: { path: 'big.txt', old_string: 'HEADER\n', new_string: 'FIRST\n' } }] },
    { text: 'edited' },
  ];
  let n = 0;
  const srv = await startFakeOpenAI(() => steps[n++ % steps.length]);
  const h = new Harness({
    args: ['--provider', 'openai', '--model', 'fake-model', '--context-window', '1000000'],
    env: { HOME: path.join(base, 'home'), XDG_DATA_HOME: data, OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'sk-test' },
    session: { notices: {} },
    permission: () => 'allow_once',
  });
  cleanups.push(async () => {
    await h.stop();
    await srv.close();
  });
  await h.start();
  const { sessionId } = await h.newSession(project);
  const notices = () => h.updates.filter((u) => u.update.sessionUpdate === 'notice').map((u) => u.update as { severity: string; title: string; description: string });
  assert.equal((await h.prompt(sessionId, 'edit the first line')).stopReason, 'end_turn');
  // notifications come before the prompt's answer: the notice was sent during the turn
  const said = notices().filter((x) => x.title === 'A change was not checkpointed');
  assert.equal(said.length, 1, JSON.stringify(notices()));
  assert.equal(said[0].severity, 'warning');
  assert.match(said[0].description, /Checkpoint not kept for big\.txt: the disk is full: no space left on the device/);
  assert.match(said[0].description, /\/rewind cannot put it back/);
  assert.ok(readFileSync(path.join(project, 'big.txt'), 'utf8').startsWith('FIRST\nxx'), 'the edit is made');
});

test('the session cap set by checkpoint_session_bytes: reaching it is a notice during the prompt, once per session; the edit is made', async () => {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-cp-cap-')));
  cleanups.push(() => rmSync(base, { recursive: true, force: true }));
  const home = path.join(base, 'home');
  mkdirSync(path.join(home, '.contenox'), { recursive: true });
  // 100 kB: the 300 kB file's version does not fit
  writeFileSync(path.join(home, '.contenox', 'agents.toml'), 'checkpoint_session_bytes = 100000\n');
  const project = path.join(base, 'project');
  mkdirSync(project);
  writeFileSync(path.join(project, 'big.txt'), `HEADER\n${`${'x'.repeat(99)}\n`.repeat(3000)}`);
  const steps: Reply[] = [
    { toolCalls: [{ name: 'read_file_range', arguments: { path: 'big.txt', start_line: 1, end_line: 2 } }] },
    { toolCalls: [{ name: 'edit_file', arguments: { path: 'big.txt', old_string: 'HEADER\n', new_string: 'FIRST\n' } }] },
    { text: 'edited' },
    { toolCalls: [{ name: 'read_file_range', arguments: { path: 'big.txt', start_line: 1, end_line: 2 } }] },
    { toolCalls: [{ name: 'edit_file', arguments: { path: 'big.txt', old_string: 'FIRST\n', new_string: 'SECOND\n' } }] },
    { text: 'edited again' },
  ];
  let n = 0;
  const srv = await startFakeOpenAI(() => steps[n++ % steps.length]);
  const h = new Harness({
    args: ['--provider', 'openai', '--model', 'fake-model', '--context-window', '1000000'],
    env: { HOME: home, XDG_DATA_HOME: path.join(base, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'sk-test' },
    session: { notices: {} },
    permission: () => 'allow_once',
  });
  cleanups.push(async () => {
    await h.stop();
    await srv.close();
  });
  await h.start();
  const { sessionId } = await h.newSession(project);
  const capNotices = () =>
    h.updates
      .filter((u) => u.update.sessionUpdate === 'notice')
      .map((u) => u.update as { severity: string; title: string; description: string })
      .filter((x) => x.title === 'A change was not checkpointed');
  assert.equal((await h.prompt(sessionId, 'edit the first line')).stopReason, 'end_turn');
  // notifications come before the prompt's answer: the notice was sent during the turn
  const said = capNotices();
  assert.equal(said.length, 1, JSON.stringify(said));
  assert.equal(said[0].severity, 'warning');
  assert.match(said[0].description, /big\.txt: the session's checkpoint cap is reached: .*\(the cap is 100000\)/);
  assert.match(said[0].description, /Start a new session to checkpoint again/);
  assert.ok(readFileSync(path.join(project, 'big.txt'), 'utf8').startsWith('FIRST\nxx'), 'the edit is made');
  assert.equal((await h.prompt(sessionId, 'edit it again')).stopReason, 'end_turn');
  assert.equal(capNotices().length, 1, 'the cap is said once per session');
  assert.ok(readFileSync(path.join(project, 'big.txt'), 'utf8').startsWith('SECOND\nxx'));
});
