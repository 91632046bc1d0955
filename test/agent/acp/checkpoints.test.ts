// Checkpoints and the way back: `cxl acp` spawned as a real child process, a fake OpenAI server
// scripting the model, real files in a temp dir. Three prompts edit, create and move files (one
// with local_shell), someone else edits one of them meanwhile, and the rewind to before the first
// restores every byte, removes what was created, and keeps the file edited outside. Also: a fork
// leaves its original as it was.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import type { CheckpointsMeta, RewindMeta } from '../../../src/core/protocol_names.ts';
import { startFakeOpenAI, type FakeServer, type Reply, type ScriptedToolCall } from '../../fixtures/fake_models.ts';
import { Harness } from './harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

// bytes that a text round trip would spoil: CRLF, no final newline, a BOM, a NUL in the binary one
const A = '\uFEFFalpha\r\nbeta \u00e9\u20ac\r\ngamma';
const C = 'c one\nc two\n';
const GONE = Buffer.from([0, 1, 2, 255, 254, 10, 13, 0]);

interface World {
  root: string;
  project: string;
  h: Harness;
  srv: FakeServer;
  sessionId: string;
}

/** Each prompt's calls, in turns; a prompt's script ends with a text answer. */
function script(turns: Record<string, ScriptedToolCall[][]>): (body: Record<string, unknown>) => Reply {
  return (body) => {
    const msgs = body.messages as Array<{ role: string; content: string }>;
    const lastUser = [...msgs].reverse().find((m) => m.role === 'user')!.content;
    const key = Object.keys(turns).find((k) => lastUser.endsWith(k));
    const calls = key ? turns[key] : [];
    const since = msgs.length - 1 - msgs.map((m) => m.role).lastIndexOf('user');
    const step = msgs.slice(msgs.length - since).filter((m) => m.role === 'assistant').length;
    return step < calls.length ? { toolCalls: calls[step] } : { text: `done: ${key ?? lastUser}` };
  };
}

async function world(turns: Record<string, ScriptedToolCall[][]>, models?: string[]): Promise<World> {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-rewind-')));
  const project = path.join(root, 'project');
  mkdirSync(path.join(project, 'sub'), { recursive: true });
  writeFileSync(path.join(project, 'a.txt'), A);
  writeFileSync(path.join(project, 'sub/c.txt'), C);
  writeFileSync(path.join(project, 'gone.bin'), GONE);
  const srv = await startFakeOpenAI(script(turns), models ? { models: models.map((id) => ({ id, object: 'model' })) } : {});
  const h = new Harness({
    // a window no compaction reaches: a compaction would stop the conversation going back
    args: ['--provider', 'openai', '--model', models?.[0] ?? 'fake-model', '--context-window', '1000000'],
    env: { HOME: path.join(root, 'home'), XDG_DATA_HOME: path.join(root, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'sk-test' },
    permission: () => 'allow_once',
  });
  cleanups.push(async () => {
    await h.stop();
    await srv.close();
    rmSync(root, { recursive: true, force: true });
  });
  await h.start();
  const { sessionId } = await h.newSession(project);
  return { root, project, h, srv, sessionId };
}

const THREE = {
  'edit a and c': [
    [{ name: 'read_file', arguments: { path: 'a.txt' } }, { name: 'read_file', arguments: { path: 'sub/c.txt' } }],
    [{ name: 'edit_file', arguments: { path: 'a.txt', old_string: 'beta', new_string: 'BETA' } }],
    [{ name: 'edit_file', arguments: { path: 'sub/c.txt', old_string: 'c two', new_string: 'c TWO' } }],
  ],
  'create new': [[{ name: 'write_file', arguments: { path: 'sub/new.txt', content: 'fresh\n' } }]],
  'move it away': [[{ name: 'local_shell', arguments: { command: 'mv gone.bin moved.bin' } }]],
};

async function threePrompts(w: World): Promise<void> {
  for (const p of Object.keys(THREE)) assert.equal((await w.h.prompt(w.sessionId, p)).stopReason, 'end_turn');
  assert.match(readFileSync(path.join(w.project, 'a.txt'), 'utf8'), /BETA/);
  assert.equal(readFileSync(path.join(w.project, 'sub/c.txt'), 'utf8'), 'c one\nc TWO\n');
  assert.equal(readFileSync(path.join(w.project, 'sub/new.txt'), 'utf8'), 'fresh\n');
  assert.equal(existsSync(path.join(w.project, 'gone.bin')), false, 'the command moved it');
  assert.deepEqual(readFileSync(path.join(w.project, 'moved.bin')), GONE);
}

test('after three prompts that edit, create and move files (one with local_shell), the rewind to the first restores every byte, removes what was created, and keeps the file edited outside', async () => {
  const w = await world(THREE);
  await threePrompts(w);
  // someone else edits a file the session changed
  writeFileSync(path.join(w.project, 'sub/c.txt'), 'c one\nc TWO\nmine, from my editor\n');

  const list = await w.h.agent.request<CheckpointsMeta>('_cxl/checkpoints', { sessionId: w.sessionId });
  assert.deepEqual(list.prompts.map((p) => [p.n, p.text, p.files.map((f) => `${f.change} ${f.path}`).sort()]), [
    [1, 'edit a and c', ['modified a.txt', 'modified sub/c.txt']],
    [2, 'create new', ['created sub/new.txt']],
    [3, 'move it away', ['created moved.bin', 'deleted gone.bin']],
  ]);

  const preview = await w.h.agent.request<RewindMeta>('_cxl/rewind_preview', { sessionId: w.sessionId, n: 1, restore: 'both' });
  const byPath = Object.fromEntries(preview.files.map((f) => [f.path, f]));
  assert.deepEqual(Object.keys(byPath).sort(), ['a.txt', 'gone.bin', 'moved.bin', 'sub/c.txt', 'sub/new.txt']);
  assert.equal(byPath['a.txt'].action, 'restore');
  assert.match(byPath['a.txt'].diff, /^-BETA/m);
  assert.match(byPath['a.txt'].diff, /^\+beta/m);
  assert.equal(byPath['sub/new.txt'].action, 'delete');
  assert.equal(byPath['gone.bin'].action, 'recreate');
  assert.match(byPath['gone.bin'].diff, /binary or too big to show/);
  assert.match(byPath['sub/c.txt'].changedSince ?? '', /changed since the session last changed it/);
  assert.deepEqual(preview.conversation, { prompts: 3 });
  // a preview changes nothing
  assert.match(readFileSync(path.join(w.project, 'a.txt'), 'utf8'), /BETA/);

  const done = await w.h.agent.request<RewindMeta>('_cxl/rewind', { sessionId: w.sessionId, n: 1, restore: 'both' });
  assert.deepEqual(done.restored?.sort(), ['a.txt', 'gone.bin', 'moved.bin', 'sub/new.txt']);
  assert.deepEqual(done.skipped?.map((s) => s.path), ['sub/c.txt']);
  assert.equal(readFileSync(path.join(w.project, 'a.txt'), 'utf8'), A, 'every byte of a.txt');
  assert.deepEqual(readFileSync(path.join(w.project, 'gone.bin')), GONE, 'the moved file, back in place, every byte');
  assert.equal(existsSync(path.join(w.project, 'moved.bin')), false);
  assert.equal(existsSync(path.join(w.project, 'sub/new.txt')), false, 'the created file is removed');
  assert.equal(readFileSync(path.join(w.project, 'sub/c.txt'), 'utf8'), 'c one\nc TWO\nmine, from my editor\n', 'the file edited outside is kept');

  // the conversation went back too: the next request starts after the system prompt
  const before = w.srv.requests.length;
  await w.h.prompt(w.sessionId, 'what now?');
  const msgs = w.srv.requests[before].messages as Array<{ role: string; content: string }>;
  assert.deepEqual(msgs.map((m) => m.role), ['system', 'user']);
  assert.equal(msgs[1].content, 'what now?');
  // and the records of the prompts gone with it
  const after = await w.h.agent.request<CheckpointsMeta>('_cxl/checkpoints', { sessionId: w.sessionId });
  assert.deepEqual(after.prompts.map((p) => p.text), ['what now?']);
});

test('a file changed outside is overwritten only when named; files only keeps the conversation', async () => {
  const w = await world(THREE);
  await threePrompts(w);
  writeFileSync(path.join(w.project, 'sub/c.txt'), 'from outside\n');
  const done = await w.h.agent.request<RewindMeta>('_cxl/rewind', { sessionId: w.sessionId, n: 1, restore: 'files', overwrite: ['sub/c.txt'] });
  assert.deepEqual(done.skipped, []);
  assert.equal(readFileSync(path.join(w.project, 'sub/c.txt'), 'utf8'), C);
  assert.equal(done.conversation, undefined);
  const before = w.srv.requests.length;
  await w.h.prompt(w.sessionId, 'still there?');
  const roles = (w.srv.requests[before].messages as Array<{ role: string }>).map((m) => m.role);
  assert.ok(roles.filter((r) => r === 'user').length >= 4, `the earlier prompts are still in the conversation: ${roles}`);
});

test('a rewind never writes through a directory swapped for a link out of the workspace', async () => {
  const w = await world(THREE);
  await threePrompts(w);
  // after the session: sub/ is replaced by a link to a directory outside the workspace
  const outside = path.join(w.root, 'outside');
  mkdirSync(outside);
  rmSync(path.join(w.project, 'sub'), { recursive: true });
  (await import('node:fs')).symlinkSync(outside, path.join(w.project, 'sub'));
  const done = await w.h.agent.request<RewindMeta>('_cxl/rewind', { sessionId: w.sessionId, n: 1, restore: 'files', overwrite: ['sub/c.txt', 'sub/new.txt'] });
  assert.deepEqual(readdirSync(outside), [], 'nothing was written outside');
  assert.ok(done.skipped?.some((s) => s.path === 'sub/c.txt' && /outside the workspace/.test(s.why)), JSON.stringify(done.skipped));
  assert.equal(readFileSync(path.join(w.project, 'a.txt'), 'utf8'), A, 'the rest is restored');
});

test('session/fork starts a new session with the history and leaves the original unchanged', async () => {
  const w = await world({ 'first question': [] });
  await w.h.prompt(w.sessionId, 'first question');
  const init = await w.h.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  assert.ok((init.agentCapabilities?.sessionCapabilities as Record<string, unknown> | undefined)?.fork, 'fork is offered');
  const logOf = (id: string) => readFileSync(path.join(w.root, 'data/cxl/sessions', `${id}.jsonl`), 'utf8');
  const original = logOf(w.sessionId);
  const fork = await w.h.agent.request<{ sessionId: string }>('session/fork', { sessionId: w.sessionId, cwd: w.project, mcpServers: [] });
  assert.notEqual(fork.sessionId, w.sessionId);
  await w.h.prompt(fork.sessionId, 'a different approach');
  const msgs = (w.srv.requests.at(-1)!.messages as Array<{ role: string; content: string }>).map((m) => m.content);
  assert.ok(msgs.includes('first question') && msgs.at(-1) === 'a different approach', 'the fork carries the history');
  assert.equal(logOf(w.sessionId), original, 'the original session is as it was');
  // the original goes on from where it was, without the fork's prompt
  await w.h.prompt(w.sessionId, 'back in the original');
  const orig = (w.srv.requests.at(-1)!.messages as Array<{ content: string }>).map((m) => m.content);
  assert.ok(!orig.includes('a different approach'));
});
