// The UI against `cxl acp` as a real child process: the agent keeps every session it hands out
// (a later process may resume it), so the UI deletes the one it opened itself and never used as
// it leaves it, and keeps one it prompted, which a later process resumes with its turn.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { AcpClient } from '../../src/client/acp_client.ts';
import { startFakeOpenAI } from '../fixtures/fake_models.ts';
import { cxlCommand } from '../helpers/cxl.ts';
import { allText, removeWorkdirs, waitFor, workdir } from './client_harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  removeWorkdirs();
});

test('a session the UI opened and never used is deleted as it leaves it (/clear, quit); one it prompted is kept and resumed by a later process', async () => {
  const dir = workdir();
  const srv = await startFakeOpenAI(() => ({ text: 'kept answer' }));
  cleanups.push(() => srv.close());
  const env = { ...process.env, HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'sk-test' };
  const sessions = path.join(dir, 'data', 'cxl', 'sessions');
  const logs = () => (existsSync(sessions) ? readdirSync(sessions).filter((f) => f.endsWith('.jsonl')).sort() : []);
  const open = async (resume?: string) => {
    const c = new AcpClient({ argv: [...cxlCommand(), 'acp', '--provider', 'openai', '--model', 'fake'], label: 'cxl acp', builtin: true, cwd: dir, env, settleMs: 5, ...(resume ? { resume: { kind: 'id' as const, id: resume } } : {}) });
    cleanups.push(() => c.close());
    await c.start();
    await waitFor(c, (s) => s.sessionId !== undefined, 'the session', 30_000);
    return c;
  };

  const idle = await open();
  const idleId = idle.store.getState().sessionId!;
  assert.deepEqual(logs(), [`${idleId}.jsonl`], 'the agent keeps what it hands out');
  assert.equal(idle.resumable, false);
  // /clear leaves it for a new one: deleted too
  await idle.newSession();
  await waitFor(idle, (s) => s.sessionId !== undefined && s.sessionId !== idleId, 'the new session', 30_000);
  const idleId2 = idle.store.getState().sessionId!;
  assert.deepEqual(logs(), [`${idleId2}.jsonl`], '/clear deleted the unused session it left');
  await idle.close();
  assert.deepEqual(logs(), [], 'the unused session is gone with the UI that made it');

  const used = await open();
  const id = used.store.getState().sessionId!;
  used.send('remember this');
  await waitFor(used, (s) => !s.running && allText(s).includes('kept answer'), 'the answer', 30_000);
  assert.equal(used.resumable, true);
  await used.close();
  assert.deepEqual(logs(), [`${id}.jsonl`]);

  const later = await open(id);
  const s = later.store.getState();
  assert.equal(s.sessionId, id);
  assert.match(allText(s), /remember this/);
  assert.match(allText(s), /kept answer/);
  await later.close();
  assert.deepEqual(logs(), [`${id}.jsonl`], 'a resumed session is used: leaving it keeps it');
});
