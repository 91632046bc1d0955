// `cxl serve` as a real process on 127.0.0.1 with a scripted model server, reached over the SDK's
// own Streamable HTTP and WebSocket clients: a prompt's answer streams over each; the token
// guards every request; the host's shape holds whatever the client declares; several clients,
// sessions that move between connections and outlive the process; bad requests answered 4xx.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { RemoteClient, raw, serve, upgrade, workspaceWithModel, type Served, type Transport } from '../helpers/serve.ts';

const cleanups: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function host(script: Parameters<typeof workspaceWithModel>[0], files?: Record<string, string>): Promise<Served> {
  const w = await workspaceWithModel(script, files);
  const s = await serve(w);
  cleanups.push(async () => {
    await s.stop();
    await w.cleanup();
  });
  return s;
}

for (const transport of ['http', 'ws'] as Transport[]) {
  test(`${transport}: initialize → session/new → prompt, the answer streamed back`, async () => {
    const s = await host([{ text: 'hello from the host' }]);
    const c = new RemoteClient(s.url, transport);
    const init = await c.start();
    assert.equal(init.agentInfo?.name, 'cxl');
    assert.equal((init.agentCapabilities?._meta?.['cxl/host'] as { workspace: string }).workspace, s.dir);
    const { sessionId } = await c.newSession(s.dir);
    const r = await c.prompt(sessionId, 'hi');
    assert.equal(r.stopReason, 'end_turn');
    assert.equal(c.text(sessionId), 'hello from the host');
    await c.close();
  });
}

test('no token, a wrong token: 401 on HTTP and on the WebSocket upgrade, and nothing starts', async () => {
  const s = await host([{ text: 'never' }]);
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
  for (const token of [null, 'wrong-token-0123456789abcdef', '']) {
    const r = await raw(s.url, { method: 'POST', body: init, headers: { 'Content-Type': 'application/json' }, token });
    assert.equal(r.status, 401, `token ${token}`);
    assert.equal(r.headers.get('acp-connection-id'), null);
    assert.doesNotMatch(r.text, /test-token/);
    assert.deepEqual(await upgrade(s.url, token), { opened: false, status: 401 });
  }
  // a client of the SDK with the wrong token gets no session either
  const c = new RemoteClient(s.url, 'http', 'wrong-token-0123456789abcdef');
  await assert.rejects(c.start());
  await c.close();
  assert.equal(s.srv.requests.length, 0, 'the model was never asked');
  assert.doesNotMatch(s.log(), /connection opened/);
  assert.match(s.log(), /401 POST from 127\.0\.0\.1:\d+: no token/);
  assert.doesNotMatch(s.log() + s.stdout() + s.stderr(), /test-token-0123456789abcdef/, 'the token is never printed or logged');
  assert.equal(fs.existsSync(path.join(s.data, 'sessions')) && fs.readdirSync(path.join(s.data, 'sessions')).some((f) => f.endsWith('.jsonl')), false);
  // the right one works
  assert.equal((await upgrade(s.url, 'test-token-0123456789abcdef')).opened, true);
});

test("the host's shape: read_file and local_shell refused by shape (the marker unread, the command not run), list_dir works, though the client declares fs and terminal", async () => {
  const script = [
    { toolCalls: [{ name: 'read_file', arguments: { path: 'secret-marker.txt' } }] },
    { toolCalls: [{ name: 'local_shell', arguments: { command: 'touch ran-marker' } }] },
    { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] },
    { text: 'done' },
  ];
  const s = await host(script, { 'secret-marker.txt': 'MARKER-CONTENT-42\n', 'visible.txt': 'x\n' });
  for (const transport of ['ws'] as Transport[]) {
    const c = new RemoteClient(s.url, transport);
    await c.start();
    const { sessionId } = await c.newSession(s.dir);
    assert.equal((await c.prompt(sessionId, 'go')).stopReason, 'end_turn');
    assert.deepEqual(c.fsCalls, [], 'the client was never asked for a file');
    assert.deepEqual(c.terminalCalls, [], 'the client was never asked for a terminal');
    assert.equal(fs.existsSync(path.join(s.dir, 'ran-marker')), false, 'the command did not run');
    // what the model got back for each call
    const toModel = s.srv.requests.slice(1).map((b) => JSON.stringify((b.messages as unknown[]).at(-1)));
    assert.match(toModel[0], /read_file is not served here: this session runs on a standing host \(cxl serve\)/);
    assert.match(toModel[0], /cxl acp/);
    assert.doesNotMatch(toModel.join('\n'), /MARKER-CONTENT-42/, 'the marker was not read');
    assert.match(toModel[1], /local_shell is not served here.*runs no commands/);
    assert.match(toModel[2], /visible\.txt/, 'list_dir works');
    await c.close();
  }
});

test('two clients at once, one on each transport, each with its own session', async () => {
  const s = await host((body) => ({ text: `answer to ${JSON.stringify((body.messages as Array<{ content: string }>).at(-1)?.content).includes('first') ? 'first' : 'second'}`, delayMs: 300 }));
  const a = new RemoteClient(s.url, 'http');
  const b = new RemoteClient(s.url, 'ws');
  await Promise.all([a.start(), b.start()]);
  const [sa, sb] = await Promise.all([a.newSession(s.dir), b.newSession(s.dir)]);
  const [ra, rb] = await Promise.all([a.prompt(sa.sessionId, 'first'), b.prompt(sb.sessionId, 'second')]);
  assert.equal(ra.stopReason, 'end_turn');
  assert.equal(rb.stopReason, 'end_turn');
  assert.equal(a.text(), 'answer to first');
  assert.equal(b.text(), 'answer to second');
  assert.equal(a.updates.some((u) => u.sessionId === sb.sessionId), false, "a client hears nothing of another's session");
  await Promise.all([a.close(), b.close()]);
});

test('a session made on one connection loads on another, and after the host restarts', async () => {
  const w = await workspaceWithModel([{ text: 'remembered answer' }, { text: 'second turn' }]);
  cleanups.push(() => w.cleanup());
  let s = await serve(w);
  const a = new RemoteClient(s.url, 'http');
  await a.start();
  const { sessionId } = await a.newSession(w.dir);
  await a.prompt(sessionId, 'remember this');
  const b = new RemoteClient(s.url, 'ws');
  await b.start();
  await b.load(sessionId, w.dir);
  assert.match(b.text(sessionId), /remembered answer/, 'replayed on the other connection');
  assert.equal((await b.prompt(sessionId, 'again')).stopReason, 'end_turn');
  assert.match(b.text(sessionId), /second turn/);
  await Promise.all([a.close(), b.close()]);
  assert.equal((await s.stop()).code, 0);
  s = await serve(w);
  cleanups.push(() => s.stop());
  const c = new RemoteClient(s.url, 'ws');
  await c.start();
  await c.load(sessionId, '/a/folder/on/the/client');
  assert.match(c.text(sessionId), /remembered answer[\s\S]*second turn/, 'replayed by a later host process');
  await c.close();
});

test('bad JSON and a 20 MB body are answered 4xx, and the host still serves', async () => {
  const s = await host([{ text: 'still here' }]);
  const bad = await raw(s.url, { method: 'POST', body: '{"jsonrpc": "2.0", "id": 1, "meth', headers: { 'Content-Type': 'application/json' } });
  assert.equal(bad.status, 400);
  const big = await raw(s.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { pad: 'x'.repeat(20 * 1024 * 1024) } }), headers: { 'Content-Type': 'application/json' } }).catch((err: Error) => ({ status: -1, text: err.message }));
  assert.equal(big.status, 413, big.text.slice(0, 200));
  const wrongPath = await raw(s.url.replace('/acp', '/other'));
  assert.equal(wrongPath.status, 404);
  const c = new RemoteClient(s.url, 'http');
  await c.start();
  const { sessionId } = await c.newSession(s.dir);
  await c.prompt(sessionId, 'hi');
  assert.equal(c.text(), 'still here');
  await c.close();
});

test('SIGTERM ends the host with exit 0 and no process of its group left', async () => {
  const s = await host([{ text: 'slow', delayMs: 5000 }]);
  const c = new RemoteClient(s.url, 'ws');
  await c.start();
  const { sessionId } = await c.newSession(s.dir);
  const turn = c.prompt(sessionId, 'take your time').catch((e: Error) => e);
  await new Promise((r) => setTimeout(r, 500));
  const t0 = Date.now();
  const exit = await s.stop();
  assert.deepEqual(exit, { code: 0, signal: null });
  assert.ok(Date.now() - t0 < 4000, 'within the exit bound');
  await turn;
  const { groupAlive } = await import('../helpers/serve.ts');
  assert.equal(groupAlive(s.child.pid!), false, 'nothing of its process group is left');
  assert.match(s.log(), /SIGTERM: cancelling the running turns[\s\S]*stopped/);
  await c.close();
});

test('--max-connections: one more connection is answered 503, and the host serves the ones it has', async () => {
  const w = await workspaceWithModel([{ text: 'one at a time' }]);
  const s = await serve(w, ['--max-connections', '1']);
  cleanups.push(async () => {
    await s.stop();
    await w.cleanup();
  });
  const a = new RemoteClient(s.url, 'ws');
  await a.start();
  assert.deepEqual(await upgrade(s.url, 'test-token-0123456789abcdef'), { opened: false, status: 503 });
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
  assert.equal((await raw(s.url, { method: 'POST', body: init, headers: { 'Content-Type': 'application/json' } })).status, 503);
  const { sessionId } = await a.newSession(s.dir);
  await a.prompt(sessionId, 'hi');
  assert.equal(a.text(), 'one at a time');
  assert.match(s.log(), /503 from 127\.0\.0\.1:\d+: 1 connections open \(limit 1\)/);
  await a.close();
});

test('--idle-close: an HTTP connection with no stream open and no request is closed; one with a stream is kept', async () => {
  const w = await workspaceWithModel([{ text: 'x' }]);
  const s = await serve(w, ['--idle-close', '1s']);
  cleanups.push(async () => {
    await s.stop();
    await w.cleanup();
  });
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
  const r = await raw(s.url, { method: 'POST', body: init, headers: { 'Content-Type': 'application/json' } });
  assert.equal(r.status, 200);
  const id = r.headers.get('acp-connection-id')!;
  assert.ok(id);
  // a client that keeps its stream open (as the SDK's HTTP client does) is not idle
  const kept = new RemoteClient(s.url, 'http');
  await kept.start();
  await new Promise((res) => setTimeout(res, 3000));
  const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/list', params: {} });
  const after = await raw(s.url, { method: 'POST', body: list, headers: { 'Content-Type': 'application/json', 'Acp-Connection-Id': id } });
  assert.equal(after.status, 404, 'the idle connection is gone');
  assert.match(s.log(), /closing idle http connection/);
  const { sessionId } = await kept.newSession(s.dir);
  await kept.prompt(sessionId, 'still there?');
  assert.equal(kept.text(), 'x');
  await kept.close();
});
