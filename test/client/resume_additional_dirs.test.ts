// The UI's picker and resume against `cxl acp` as a real child process, for a session saved with
// additional directories: session/list answers them (the 2.4.0 SessionInfo field), the picker
// offers the session as any other, and resuming it works; the UI names no directory itself, so
// the agent keeps none for it from then on (the schema: none given is none).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { ADDITIONAL_DIRS_KEY, keptAdditionalDirs } from '../../src/agent/acp/additional_dirs.ts';
import { SessionStore } from '../../src/agent/sessions/store.ts';
import { AcpClient } from '../../src/client/acp_client.ts';
import { pickerRows } from '../../src/ui/session_picker_rows.ts';
import { startFakeOpenAI } from '../fixtures/fake_models.ts';
import { cxlCommand } from '../helpers/cxl.ts';
import { allText, removeWorkdirs, waitFor, workdir } from './client_harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  removeWorkdirs();
});

test('a session saved with additional directories: listed with them, offered by the picker, resumed by the UI, which names none', async () => {
  const dir = workdir();
  const project = path.join(dir, 'project');
  const lib = path.join(dir, 'lib');
  for (const d of [project, lib]) mkdirSync(d);
  const srv = await startFakeOpenAI(() => ({ text: 'answer' }));
  cleanups.push(() => srv.close());
  const env = { ...process.env, HOME: path.join(dir, 'home'), XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'sk-test' };
  const store = new SessionStore(path.join(dir, 'data', 'cxl'));
  const now = new Date().toISOString();
  const log = await store.create({ version: 1, sessionId: 'with-lib', cwd: project, title: 'work in lib', createdAt: now, updatedAt: now, mode: 'default', history: [{ role: 'user', content: 'work in lib' }], replay: [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'work in lib' } }], allows: [], extras: { [ADDITIONAL_DIRS_KEY]: [lib] } });
  await log.close();

  const c = new AcpClient({ argv: [...cxlCommand(), 'acp', '--provider', 'openai', '--model', 'fake'], label: 'cxl acp', builtin: true, cwd: project, env, settleMs: 5, resume: { kind: 'pick' } });
  cleanups.push(() => c.close());
  await c.start();
  const s = await waitFor(c, (x) => x.sessionChoices !== undefined, 'the picker', 30_000);
  const offered = s.sessionChoices!.sessions;
  assert.deepEqual(offered.map((x) => x.sessionId), ['with-lib']);
  assert.deepEqual(offered[0].additionalDirectories, [lib], 'session/list answered the directories the session was saved with');
  const rows = pickerRows(s.sessionChoices!, 0, 80, 10).map((r) => r.map((cell) => cell.text).join(''));
  assert.ok(rows.some((r) => r.includes('work in lib')), `the picker shows it as any other: ${rows.join(' | ')}`);

  assert.equal(await c.loadSession('with-lib'), true);
  const after1 = await waitFor(c, (x) => x.sessionId === 'with-lib' && !x.loading, 'the resumed session', 30_000);
  assert.match(allText(after1), /work in lib/, 'its history replayed');
  c.send('more');
  await waitFor(c, (x) => !x.running && allText(x).includes('answer'), 'a prompt in it', 30_000);
  await c.close();
  // the UI named no directory: the session keeps none from this open on, saved as []
  const stored = await new SessionStore(path.join(dir, 'data', 'cxl')).load('with-lib');
  assert.deepEqual(stored && keptAdditionalDirs(stored), []);
  assert.deepEqual(stored?.extras?.[ADDITIONAL_DIRS_KEY], []);
  const listed = await new SessionStore(path.join(dir, 'data', 'cxl')).list(project);
  assert.deepEqual(listed[0]?.additionalDirectories, [], 'and lists it so');
});
