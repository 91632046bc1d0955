// Sessions between `cxl acp` processes, all real child processes on one data dir: a session
// handed out and never prompted is still there for the next process; two processes holding one
// session and prompting it in turn lose nothing and keep saving; a turn in one process refuses a
// prompt from another until it ends; a load shows every turn any process added.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { startFakeOpenAI, type FakeServer, type Reply } from '../../fixtures/fake_models.ts';
import { Harness } from './harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

interface Place {
  project: string;
  env: Record<string, string>;
  srv: FakeServer;
  sessionsDir: string;
  agent(): Promise<Harness>;
}

/** A project, a data dir and a scripted model shared by every agent process started with `agent()`. */
async function place(script: (body: Record<string, unknown>, n: number) => Reply): Promise<Place> {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-xproc-')));
  const project = path.join(base, 'project');
  mkdirSync(project);
  writeFileSync(path.join(project, 'a.txt'), 'alpha\n');
  const srv = await startFakeOpenAI(script);
  const env = { HOME: base, XDG_DATA_HOME: path.join(base, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k' };
  const agents: Harness[] = [];
  cleanups.push(async () => {
    for (const h of agents) await h.stop();
    await srv.close();
    rmSync(base, { recursive: true, force: true });
  });
  return {
    project,
    env,
    srv,
    sessionsDir: path.join(base, 'data', 'cxl', 'sessions'),
    async agent() {
      const h = new Harness({ args: ['--provider', 'openai', '--model', 'fake'], env });
      agents.push(h);
      await h.start();
      return h;
    },
  };
}

/** The last user message the model was sent in request `i`, and every user message of it. */
function asked(srv: FakeServer, i: number): string[] {
  const msgs = (srv.requests[i].messages ?? []) as Array<{ role: string; content: string }>;
  return msgs.filter((m) => m.role === 'user').map((m) => m.content);
}

/** The prompts (user_message_chunk) and answers (agent_message_chunk) a session/load replays, in order. */
function replayed(h: Harness, sessionId: string): string[] {
  return h.updates
    .filter((u) => u.sessionId === sessionId && (u.update.sessionUpdate === 'user_message_chunk' || u.update.sessionUpdate === 'agent_message_chunk'))
    .map((u) => `${u.update.sessionUpdate === 'user_message_chunk' ? '>' : '<'} ${(u.update as { content: { text?: string } }).content.text ?? ''}`);
}

const notices = (h: Harness) => JSON.stringify(h.updates.filter((u) => /Saving stopped|cannot be saved|was deleted/.test(JSON.stringify(u.update))));

test('a session handed out and never prompted outlives its process: the next one resumes it, prompts it, and a third loads every turn', async () => {
  const p = await place((_b, n) => ({ text: `answer ${n}` }));
  const first = await p.agent();
  const { sessionId } = await first.newSession(p.project);
  await first.stop();
  assert.ok(readdirSync(p.sessionsDir).includes(`${sessionId}.jsonl`), 'kept when the process exits');
  const second = await p.agent();
  await second.agent.request(acp.methods.agent.session.resume, { sessionId, cwd: p.project, mcpServers: [] });
  assert.equal((await second.prompt(sessionId, 'hello from the second')).stopReason, 'end_turn');
  await second.stop();
  const third = await p.agent();
  await third.agent.request(acp.methods.agent.session.load, { sessionId, cwd: p.project, mcpServers: [] });
  assert.deepEqual(replayed(third, sessionId), ['> hello from the second', '< answer 0']);
  const list = (await third.agent.request(acp.methods.agent.session.list, {})) as acp.ListSessionsResponse;
  assert.deepEqual(list.sessions.map((s) => s.sessionId), [sessionId]);
  // control: an id nobody handed out is still not found
  await assert.rejects(third.agent.request(acp.methods.agent.session.resume, { sessionId: 'never-made', cwd: p.project, mcpServers: [] }), /not found/i);
});

test('two processes holding one session and prompting it in turn: each model sees the other\'s turns, nothing is lost, nobody stops saving', async () => {
  const p = await place((_b, n) => ({ text: `answer ${n}` }));
  const a = await p.agent();
  const { sessionId } = await a.newSession(p.project);
  assert.equal((await a.prompt(sessionId, 'one')).stopReason, 'end_turn');
  // a second process loads it while the first still holds it open
  const b = await p.agent();
  await b.agent.request(acp.methods.agent.session.load, { sessionId, cwd: p.project, mcpServers: [] });
  assert.equal((await b.prompt(sessionId, 'two')).stopReason, 'end_turn');
  assert.equal((await a.prompt(sessionId, 'three')).stopReason, 'end_turn');
  assert.equal((await b.prompt(sessionId, 'four')).stopReason, 'end_turn');
  // each turn's model request carried every earlier prompt, whichever process sent it
  assert.deepEqual(asked(p.srv, 2).slice(-3), ['one', 'two', 'three']);
  assert.deepEqual(asked(p.srv, 3).slice(-4), ['one', 'two', 'three', 'four']);
  assert.equal(notices(a), '[]');
  assert.equal(notices(b), '[]');
  await a.stop();
  await b.stop();
  const c = await p.agent();
  await c.agent.request(acp.methods.agent.session.load, { sessionId, cwd: p.project, mcpServers: [] });
  assert.deepEqual(replayed(c, sessionId), ['> one', '< answer 0', '> two', '< answer 1', '> three', '< answer 2', '> four', '< answer 3']);
});

test('a turn running in one process refuses a prompt from another, naming it; once it ends the other prompts', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const p = await place((_b, n) => (n === 0 ? { text: 'slow answer', gate } : { text: `answer ${n}` }));
  const a = await p.agent();
  const { sessionId } = await a.newSession(p.project);
  const b = await p.agent();
  await b.agent.request(acp.methods.agent.session.resume, { sessionId, cwd: p.project, mcpServers: [] });
  const slow = a.prompt(sessionId, 'first');
  // the first turn holds the lease once its model request is out
  const end = Date.now() + 15_000;
  while (p.srv.requests.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  await assert.rejects(b.prompt(sessionId, 'meanwhile'), /running in another cxl process \(pid \d+/);
  release();
  assert.equal((await slow).stopReason, 'end_turn');
  assert.equal((await b.prompt(sessionId, 'after')).stopReason, 'end_turn');
  assert.deepEqual(asked(p.srv, 1).slice(-2), ['first', 'after'], 'the refused prompt was not sent nor kept');
});
