// A session whose additional directory is kept with it, opened by a real `cxl acp` child (a fake
// OpenAI server scripting the model, real files): the file tools read and edit there, a path
// outside both is refused, the edit is checkpointed by its absolute path and /rewind puts THAT
// file back; a later process refuses to load the session once the directory became a link to
// the home directory. (session/new still refuses the ACP field: edges.test.ts.)
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { ADDITIONAL_DIRS_KEY } from '../../../src/agent/acp/additional_dirs.ts';
import { SessionStore } from '../../../src/agent/sessions/store.ts';
import type { CheckpointsMeta, RewindMeta } from '../../../src/core/protocol_names.ts';
import { startFakeOpenAI, type Reply, type ScriptedToolCall } from '../../fixtures/fake_models.ts';
import { Harness } from './harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

test('a kept additional directory: read and edit there, outside both refused, the edit rewound in place; a later load refuses it once it became a link to home', async () => {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-extra-acp-')));
  const project = path.join(base, 'project');
  const lib = path.join(base, 'lib');
  const home = path.join(base, 'home');
  for (const d of [project, lib, home]) mkdirSync(d);
  const x = path.join(lib, 'x.txt');
  writeFileSync(x, 'x before\n');
  writeFileSync(path.join(base, 'outside.txt'), 'not yours\n');
  const calls: ScriptedToolCall[][] = [
    [{ name: 'read_file', arguments: { path: x } }],
    [{ name: 'edit_file', arguments: { path: x, old_string: 'before', new_string: 'after' } }],
    [{ name: 'read_file', arguments: { path: path.join(base, 'outside.txt') } }],
  ];
  const srv = await startFakeOpenAI((body): Reply => {
    const msgs = body.messages as Array<{ role: string }>;
    const step = msgs.slice(msgs.map((m) => m.role).lastIndexOf('user')).filter((m) => m.role === 'assistant').length;
    return step < calls.length ? { toolCalls: calls[step] } : { text: 'done' };
  });
  const env = { HOME: home, XDG_DATA_HOME: path.join(base, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k' };
  cleanups.push(async () => {
    await srv.close();
    rmSync(base, { recursive: true, force: true });
  });
  // the session as a process that took the directory would have kept it
  const store = new SessionStore(path.join(base, 'data', 'cxl'));
  const now = new Date().toISOString();
  const log = await store.create({ version: 1, sessionId: 'with-lib', cwd: project, createdAt: now, updatedAt: now, mode: 'default', history: [], replay: [], allows: [], extras: { [ADDITIONAL_DIRS_KEY]: [lib] } });
  await log.close();

  const h = new Harness({ args: ['--provider', 'openai', '--model', 'fake', '--context-window', '1000000'], env, permission: () => 'allow_once' });
  cleanups.push(() => h.stop());
  await h.start();
  await h.agent.request(acp.methods.agent.session.load, { sessionId: 'with-lib', cwd: project, mcpServers: [] });
  await h.prompt('with-lib', 'edit x');
  const results = srv.requests.slice(1).map((r) => JSON.stringify((r.messages as Array<{ role: string }>).at(-1)));
  assert.match(results[0], /x before/, 'read in the additional directory');
  assert.equal(readFileSync(x, 'utf8'), 'x after\n', 'edited there');
  assert.match(results[2], /outside the workspace root and the additional directories/);
  const list = await h.agent.request<CheckpointsMeta>('_cxl/checkpoints', { sessionId: 'with-lib' });
  assert.deepEqual(list.prompts.map((p) => p.files.map((f) => `${f.change} ${f.path}`)), [[`modified ${x}`]]);
  const done = await h.agent.request<RewindMeta>('_cxl/rewind', { sessionId: 'with-lib', n: 1, restore: 'files' });
  assert.deepEqual(done.restored, [x]);
  assert.equal(readFileSync(x, 'utf8'), 'x before\n', 'THAT file restored');
  await h.stop();

  // the directory becomes a link to the home directory: the next process refuses the session
  rmSync(lib, { recursive: true });
  symlinkSync(home, lib);
  const h2 = new Harness({ args: ['--provider', 'openai', '--model', 'fake'], env });
  cleanups.push(() => h2.stop());
  await h2.start();
  await assert.rejects(h2.agent.request(acp.methods.agent.session.load, { sessionId: 'with-lib', cwd: project, mcpServers: [] }), (e: acp.RequestError) => e.code === -32602 && /holds the home directory.*start a new session without it/.test(e.message + JSON.stringify(e.data ?? '')));
});
