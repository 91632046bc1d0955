// What a session keeps for its replay, against the real `cxl acp` child process and a scripted
// model on 127.0.0.1: the person's own `!` lines (`_cxl/shell_run`) make a session to resume,
// come back framed on session/load, and reach the model with the next prompt even from a new
// process; a call the person was asked about is replayed marked so (the UI shows it collapsed);
// the sessions unattended runs wrote are marked on session/list.
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type * as acp from '@agentclientprotocol/sdk';
import { META_ASKED, META_SHELL_CONTEXT, META_SHELL_RUN, META_UNATTENDED, METHOD_SHELL_RUN, type ShellRunMeta } from '../../../src/core/protocol_names.ts';
import { SessionStore } from '../../../src/agent/sessions/store.ts';
import { startFakeOpenAI, type FakeServer, type Reply } from '../../fixtures/fake_models.ts';
import { Harness } from './harness.ts';

const cleanups: Array<() => unknown> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function world(script: Reply[]): Promise<{ dir: string; env: Record<string, string>; args: string[]; srv: FakeServer; start(o?: { permission?: () => string }): Promise<Harness> }> {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-acp-shell-')));
  const dir = path.join(root, 'project');
  (await import('node:fs')).mkdirSync(dir);
  writeFileSync(path.join(dir, 'a.txt'), 'alpha\n');
  const srv = await startFakeOpenAI(script);
  const env = { HOME: root, XDG_DATA_HOME: path.join(root, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k' };
  const args = ['--provider', 'openai', '--model', 'm', '--context-window', '131072'];
  cleanups.push(async () => {
    await srv.close();
    rmSync(root, { recursive: true, force: true });
  });
  return {
    dir,
    env,
    args,
    srv,
    start: async (o = {}) => {
      const h = new Harness({ args, env, ...(o.permission ? { permission: o.permission } : {}) });
      cleanups.push(() => h.stop());
      await h.start();
      return h;
    },
  };
}

const RUN: ShellRunMeta = { command: 'echo marker-7', output: 'marker-7\n', truncated: false, exitCode: 0, signal: null, sandbox: { state: 'bubblewrap' }, handed: true };

test('a session of `!` lines only is kept: listed under the line, replayed framed, and its output read by the model with the next prompt in a new process', async () => {
  const w = await world([{ text: 'I see marker-7.' }]);
  const h = await w.start();
  const { sessionId } = await h.newSession(w.dir);
  assert.deepEqual(await h.agent.request(METHOD_SHELL_RUN, { sessionId, run: RUN, context: '$ echo marker-7\nmarker-7\n[exit 0]' }), {});
  await h.stop();

  const h2 = await w.start();
  const list = (await h2.agent.request('session/list', {})) as acp.ListSessionsResponse;
  assert.deepEqual(list.sessions.map((s) => [s.sessionId, s.title]), [[sessionId, '!echo marker-7']], 'kept, and named after the line');
  await h2.agent.request('session/load', { sessionId, cwd: w.dir, mcpServers: [] });
  const replayed = h2.updates.map((u) => u.update as Record<string, unknown> & { content?: { text?: string; _meta?: Record<string, unknown> } });
  assert.equal(replayed.length, 1);
  assert.equal(replayed[0].sessionUpdate, 'user_message_chunk');
  assert.deepEqual(replayed[0].content?._meta?.[META_SHELL_RUN], RUN, 'the run as the client showed it');

  // a prompt from a client that no longer has the output (a new UI): the session sends it
  assert.equal((await h2.prompt(sessionId, 'what did I run?')).stopReason, 'end_turn');
  const user = (w.srv.requests[0].messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'user').at(-1)!.content;
  assert.match(user, /^I ran this command in my own shell[\s\S]*\$ echo marker-7\nmarker-7\n\[exit 0\]\n\nwhat did I run\?$/);
  await h2.stop();

  // loaded again: the line once (no second copy as the prompt's shell context), then the prompt
  const h3 = await w.start();
  await h3.agent.request('session/load', { sessionId, cwd: w.dir, mcpServers: [] });
  const again = h3.updates.map((u) => u.update as Record<string, unknown> & { content?: { text?: string; _meta?: Record<string, unknown> } });
  assert.equal(again.filter((u) => u.content?._meta?.[META_SHELL_RUN]).length, 1);
  assert.equal(again.filter((u) => u.content?._meta?.[META_SHELL_CONTEXT] !== undefined).length, 0);
  assert.deepEqual(again.map((u) => u.content?.text), ['$ echo marker-7\nmarker-7\n', 'what did I run?', 'I see marker-7.']);
  // read once: the next prompt does not carry it again
  assert.equal((await h3.prompt(sessionId, 'and now?')).stopReason, 'end_turn');
  const next = (w.srv.requests[1].messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'user').at(-1)!.content;
  assert.equal(next, 'and now?');
});

test('a `!` line whose output the client also sends with the prompt is read once and replayed once; a session left unused is kept for a later process', async () => {
  const w = await world([{ text: 'ok' }]);
  const h = await w.start();
  const unused = (await h.newSession(w.dir)).sessionId;
  const { sessionId } = await h.newSession(w.dir);
  await h.agent.request(METHOD_SHELL_RUN, { sessionId, run: RUN, context: '$ echo marker-7\nmarker-7\n[exit 0]' });
  const context = 'I ran this command in my own shell (not tool calls of yours); the output is for you to see:\n\n$ echo marker-7\nmarker-7\n[exit 0]';
  await h.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: context, _meta: { [META_SHELL_CONTEXT]: true } }, { type: 'text', text: 'see?' }] });
  const user = (w.srv.requests[0].messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'user').at(-1)!.content;
  assert.equal(user, `${context}\n\nsee?`, 'the output once');
  await h.stop();
  const h2 = await w.start();
  const list = (await h2.agent.request('session/list', {})) as acp.ListSessionsResponse;
  assert.deepEqual(list.sessions.map((s) => s.sessionId).sort(), [sessionId, unused].sort(), `the unused ${unused} is kept`);
  await h2.agent.request('session/load', { sessionId, cwd: w.dir, mcpServers: [] });
  const replayed = h2.updates.map((u) => u.update as Record<string, unknown> & { content?: { text?: string; _meta?: Record<string, unknown> } });
  assert.deepEqual(replayed.map((u) => (u.content?._meta?.[META_SHELL_RUN] ? 'run' : u.content?._meta?.[META_SHELL_CONTEXT] ? 'context' : u.content?.text)), ['run', 'see?', 'ok']);
});

test('a replayed call the person was asked about is marked so; one allowed unasked is not', async () => {
  const w = await world([
    { toolCalls: [{ name: 'write_file', arguments: { path: 'new.txt', content: 'x\n' } }] },
    { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
    { text: 'Done.' },
  ]);
  const h = await w.start({ permission: () => 'allow_once' });
  const { sessionId } = await h.newSession(w.dir);
  await h.prompt(sessionId, 'write then read');
  assert.equal(h.permissions.length, 1, 'the write was asked, the read not');
  const h2 = await w.start();
  await h2.agent.request('session/load', { sessionId, cwd: w.dir, mcpServers: [] });
  const calls = h2.updates.map((u) => u.update as Record<string, unknown> & { _meta?: Record<string, unknown>; title?: string }).filter((u) => u.sessionUpdate === 'tool_call');
  assert.deepEqual(calls.map((c) => [/write/.test(c.title ?? '') ? 'write' : 'read', c._meta?.[META_ASKED] === true]), [['write', true], ['read', false]]);
});

test('session/list marks the sessions unattended runs and mission units wrote', async () => {
  const w = await world([{ text: 'hi' }]);
  const store = new SessionStore(path.join(w.env.XDG_DATA_HOME, 'cxl'));
  const now = new Date().toISOString();
  const log = await store.create({ version: 1, sessionId: 'run-0123abcd', cwd: w.dir, title: 'fix the tests', createdAt: now, updatedAt: now, mode: 'default', history: [{ role: 'user', content: 'fix the tests' }], replay: [], allows: [] });
  await log.close({ endOfTurn: true });
  const h = await w.start();
  const { sessionId } = await h.newSession(w.dir);
  await h.prompt(sessionId, 'mine');
  const list = (await h.agent.request('session/list', {})) as acp.ListSessionsResponse;
  const marked = Object.fromEntries(list.sessions.map((s) => [s.sessionId, s._meta?.[META_UNATTENDED] === true]));
  assert.deepEqual(marked, { 'run-0123abcd': true, [sessionId]: false });
});
