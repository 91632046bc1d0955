// "Allow for this session" is bound to the folder it was given in: a session whose allow of
// `write a.txt` was given in folder A, loaded into folder B, asks again before writing B's a.txt
// (and the rejection leaves it untouched); loaded back into A, the allow still answers. `cxl acp`
// as a real child process, a fake model server on 127.0.0.1, real files.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { startFakeOpenAI, type FakeServer } from '../../fixtures/fake_models.ts';
import { Harness } from './harness.ts';

const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-allow-folder-')));
const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  rmSync(base, { recursive: true, force: true });
});

const ORIGINAL = 'alpha\nbeta\ngamma\n';
const EDITS: Record<string, [string, string]> = { first: ['beta', 'BETA'], second: ['gamma', 'GAMMA'], third: ['gamma', 'GAMMA'] };

/** Each turn: read a.txt, then edit it as the prompt's word says, then say done. */
function model(): Promise<FakeServer> {
  return startFakeOpenAI((body) => {
    const msgs = (body.messages ?? []) as Array<{ role: string }>;
    const lastUser = msgs.map((m) => m.role).lastIndexOf('user');
    const word = Object.keys(EDITS).find((w) => JSON.stringify(msgs[lastUser]).includes(`turn ${w}`))!;
    const tools = msgs.slice(lastUser + 1).filter((m) => m.role === 'tool').length;
    if (tools === 0) return { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] };
    if (tools === 1) return { toolCalls: [{ name: 'edit_file', arguments: { path: 'a.txt', old_string: EDITS[word][0], new_string: EDITS[word][1] } }] };
    return { text: `done ${word}` };
  });
}

test('a session allow given in folder A does not apply when the session is loaded with cwd B, and still applies back in A', async () => {
  const a = path.join(base, 'A');
  const b = path.join(base, 'B');
  for (const d of [a, b]) {
    mkdirSync(d, { recursive: true });
    writeFileSync(path.join(d, 'a.txt'), ORIGINAL);
  }
  const srv = await model();
  cleanups.push(() => srv.close());
  const opts = { args: ['--provider', 'openai', '--model', 'fake-model', '--context-window', '131072'], env: { HOME: base, XDG_DATA_HOME: path.join(base, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'sk-test' } };

  // in A: the write asks, and is allowed for the session
  const h1 = new Harness({ ...opts, permission: () => 'allow_session' });
  cleanups.push(() => h1.stop());
  await h1.start();
  const { sessionId } = await h1.newSession(a);
  assert.equal((await h1.prompt(sessionId, 'turn first')).stopReason, 'end_turn');
  assert.equal(h1.permissions.length, 1);
  assert.equal(readFileSync(path.join(a, 'a.txt'), 'utf8'), 'alpha\nBETA\ngamma\n');
  await h1.stop();

  // loaded into B: the same write of `a.txt` asks again; rejected, B's file is untouched
  const h2 = new Harness({ ...opts, permission: () => 'reject' });
  cleanups.push(() => h2.stop());
  await h2.start();
  await h2.agent.request('session/load', { sessionId, cwd: b, mcpServers: [] });
  await h2.prompt(sessionId, 'turn second');
  assert.equal(h2.permissions.length, 1, "A's allow did not answer in B");
  assert.equal(readFileSync(path.join(b, 'a.txt'), 'utf8'), ORIGINAL);

  // control: loaded back into A, the allow given there still answers (nobody is asked)
  await h2.agent.request('session/load', { sessionId, cwd: a, mcpServers: [] });
  assert.equal((await h2.prompt(sessionId, 'turn third')).stopReason, 'end_turn');
  assert.equal(h2.permissions.length, 1, "A's allow answered in A");
  assert.equal(readFileSync(path.join(a, 'a.txt'), 'utf8'), 'alpha\nBETA\nGAMMA\n');
});
