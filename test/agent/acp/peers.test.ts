// `cxl acp` facing clients that are not the cxl UI: a client's error reply to fs/* or
// terminal/* reaches the model and the client as `client_refused` with the client's words, and
// the direct commands are advertised with available_commands_update once the session is known.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { startFakeOpenAI, type FakeServer, type Reply } from '../../fixtures/fake_models.ts';
import { Harness, type HarnessOptions } from './harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function world(script: Reply[], opts: HarnessOptions = {}) {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-peers-')));
  const project = path.join(dir, 'project');
  mkdirSync(project);
  writeFileSync(path.join(project, 'a.txt'), 'alpha\n');
  const srv = await startFakeOpenAI(script);
  const h = new Harness({ ...opts, args: ['--provider', 'openai', '--model', 'fake-model'], env: { HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k' } });
  cleanups.push(async () => {
    await h.stop();
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await h.start();
  return { project, h, srv };
}

function toolResults(srv: FakeServer, n: number): string[] {
  return ((srv.requests[n]?.messages ?? []) as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool').map((m) => m.content);
}

async function until<T>(f: () => T | undefined, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

// acpx's words when its permission mode refuses a terminal (`--approve-reads`, its default).
const acpxRefusal = () => new acp.RequestError(-32603, 'Internal error', { details: 'Permission denied for terminal/create' });

test('a client that refuses terminal/create: the model and the client read client_refused with the client\'s message', async () => {
  const w = await world([{ toolCalls: [{ name: 'local_shell', arguments: { command: 'echo hi' } }] }, { text: 'The client would not run it.' }], { permission: () => 'allow_once', refuse: (m) => (m === 'terminal/create' ? acpxRefusal() : undefined) });
  const { sessionId } = await w.h.newSession(w.project);
  const res = await w.h.prompt(sessionId, 'say hi in the shell');
  assert.equal(res.stopReason, 'end_turn');
  const result = JSON.parse(toolResults(w.srv, 1)[0]) as { code: string; error: string };
  assert.equal(result.code, 'client_refused');
  assert.match(result.error, /Permission denied for terminal\/create/);
  const failed = w.h.toolUpdates().find((u) => u.status === 'failed') as { content: Array<{ content: { text: string } }> } | undefined;
  assert.ok(failed, 'the call is reported failed');
  assert.ok(failed.content.some((c) => c.content?.text === 'client_refused: Permission denied for terminal/create'), JSON.stringify(failed.content));
});

test('a client that refuses fs/write_text_file: client_refused, naming the method when the client does not', async () => {
  const w = await world(
    [{ toolCalls: [{ name: 'write_file', arguments: { path: 'new.txt', content: 'x\n' } }] }, { text: 'Not written.' }],
    { permission: () => 'allow_once', refuse: (m) => (m === 'fs/write_text_file' ? new acp.RequestError(-32603, 'Internal error', { message: 'read-only buffer' }) : undefined) },
  );
  const { sessionId } = await w.h.newSession(w.project);
  await w.h.prompt(sessionId, 'write new.txt');
  const result = JSON.parse(toolResults(w.srv, 1)[0]) as { code: string; error: string };
  assert.equal(result.code, 'client_refused');
  assert.equal(result.error, 'read-only buffer (fs/write_text_file)');
});

test('a stable code the client sends in data.code is kept; a missing file is still not_found', async () => {
  let n = 0;
  const w = await world(
    [{ toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] }, { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] }, { text: 'done' }],
    { refuse: (m) => (m !== 'fs/read_text_file' ? undefined : ++n === 1 ? new acp.RequestError(-32603, 'a.txt is in the credential quarantine', { code: 'quarantined' }) : new acp.RequestError(-32002, 'Resource not found', { details: 'ENOENT: no such file' })) },
  );
  const { sessionId } = await w.h.newSession(w.project);
  await w.h.prompt(sessionId, 'read a.txt twice');
  assert.equal((JSON.parse(toolResults(w.srv, 1)[0]) as { code: string }).code, 'quarantined');
  assert.equal((JSON.parse(toolResults(w.srv, 2)[1]) as { code: string }).code, 'not_found');
});

test('the direct commands are advertised after session/new and session/load answer; /shell runs like !', async () => {
  const w = await world([], { permission: () => 'allow_once' });
  const { sessionId } = await w.h.newSession(w.project);
  const adverts = () => w.h.updates.filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'available_commands_update');
  const first = await until(() => adverts()[0], 'available_commands_update');
  const cmds = (first.update as { availableCommands: acp.AvailableCommand[] }).availableCommands;
  assert.deepEqual(cmds.map((c) => c.name), ['help', 'tool', 'compact', 'mission', 'memory', 'init', 'shell']);
  assert.deepEqual(cmds.find((c) => c.name === 'shell')?.input, { hint: '<command line>' });
  const res = await w.h.prompt(sessionId, '/shell echo from-slash');
  assert.equal(res.stopReason, 'end_turn');
  const call = w.h.toolUpdates().find((u) => u.sessionUpdate === 'tool_call');
  assert.match(String(call?.title), /local_shell: echo from-slash/);
  await w.h.agent.request(acp.methods.agent.session.load, { sessionId, cwd: w.project, mcpServers: [] });
  await until(() => (adverts().length === 2 ? true : undefined), 'a second advert after session/load');
});
