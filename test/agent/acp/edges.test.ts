// `cxl acp` as a real child process at the edges of a turn and of the protocol: a cancel while the
// model's context window is still being asked for (a server that never answers) or while the
// model server holds the chat request without a first byte, or while the turn waits for its lease,
// prompt blocks
// the models cannot read, and the stable 2.4.0 schema's paging, logout and additional roots.
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { SessionStore } from '../../../src/agent/sessions/store.ts';
import { Harness, type HarnessOptions } from './harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** A model server on 127.0.0.1 that takes every request and never answers it. */
async function silentServer(): Promise<{ url: string; hits: string[] }> {
  const hits: string[] = [];
  const held: http.ServerResponse[] = [];
  const srv = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    held.push(res);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  cleanups.push(() => {
    for (const res of held) res.destroy();
    srv.closeAllConnections();
    return new Promise<void>((r) => srv.close(() => r()));
  });
  return { url: `http://127.0.0.1:${(srv.address() as { port: number }).port}/v1`, hits };
}

async function world(env: Record<string, string>, opts: HarnessOptions = {}): Promise<{ dir: string; root: string; h: Harness }> {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-edges-')));
  const dir = path.join(root, 'project');
  mkdirSync(dir);
  const h = new Harness({ ...opts, env: { HOME: root, XDG_DATA_HOME: path.join(root, 'data'), ...env } });
  cleanups.push(async () => {
    await h.stop();
    rmSync(root, { recursive: true, force: true });
  });
  await h.start();
  return { dir, root, h };
}


// Each cancel ends its turn well under 1.5 s on a quiet machine; the waits it must not sit out are
// 3 s lookups, a 15 s lease and a 600 s first byte: the bound is below the shortest, with room for a loaded CI machine.
const CANCEL_BOUND_MS = 2500;

/** Cancels the turn `prompt` runs and asserts it ends cancelled within CANCEL_BOUND_MS. */
async function cancelledInTime(h: Harness, sessionId: string, prompt: Promise<{ stopReason: string }>): Promise<void> {
  const asked = Date.now();
  await h.agent.notify(acp.methods.agent.session.cancel, { sessionId });
  const res = await prompt;
  const took = Date.now() - asked;
  assert.equal(res.stopReason, 'cancelled');
  assert.ok(took < CANCEL_BOUND_MS, `the cancel took ${took} ms`);
}
test('a cancel while the context window is still being asked of a server that never answers ends the turn at once', async () => {
  const srv = await silentServer();
  const { dir, h } = await world({ OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k' }, { args: ['--provider', 'openai', '--model', 'm'] });
  const { sessionId } = await h.newSession(dir);
  const prompt = h.prompt(sessionId, 'hello');
  // the lookup is under way: its first request has reached the server
  const t0 = Date.now();
  while (!srv.hits.some((x) => /models|props/.test(x)) && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 200));
  // the two 3 s lookup timeouts would make it ~5.5 s
  await cancelledInTime(h, sessionId, prompt);
});

test('a cancel while the model server has taken the request but not sent its first byte ends the turn at once', async () => {
  // the lookups answer at once; the chat request is held open without a byte
  const hits: string[] = [];
  const held: http.ServerResponse[] = [];
  let closed = 0;
  const srv = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    if (req.method === 'POST') {
      held.push(res);
      res.on('close', () => closed++);
      return;
    }
    if (req.url?.endsWith('/models')) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [{ id: 'm' }] }));
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  cleanups.push(() => {
    for (const res of held) res.destroy();
    srv.closeAllConnections();
    return new Promise<void>((r) => srv.close(() => r()));
  });
  const url = `http://127.0.0.1:${(srv.address() as { port: number }).port}/v1`;
  const { dir, h } = await world({ OPENAI_BASE_URL: url, OPENAI_API_KEY: 'k' }, { args: ['--provider', 'openai', '--model', 'm'] });
  const { sessionId } = await h.newSession(dir);
  const prompt = h.prompt(sessionId, 'hello');
  const t0 = Date.now();
  while (!hits.some((x) => x.startsWith('POST')) && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 20));
  assert.ok(hits.some((x) => x.startsWith('POST')), `the chat request reached the server (${hits.join(', ')})`);
  await new Promise((r) => setTimeout(r, 200));
  await cancelledInTime(h, sessionId, prompt);
  // the held request was given up: the server sees its connection closed
  const t1 = Date.now();
  // the connection's close may reach this server after the turn's end under load; what matters is
  // that it comes, well before the 600 s first-byte wait
  while (closed < held.length && Date.now() - t1 < 10_000) await new Promise((r) => setTimeout(r, 20));
  assert.equal(closed, held.length, `the request was aborted, not left open (${hits.join(', ')})`);
  // and not sent again (Deno's node:http resent it on a new connection: denoland/deno#36786)
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(hits.filter((x) => x.startsWith('POST')).length, 1, `the chat request was sent once (${hits.join(', ')})`);
});

test('a cancel while the turn waits for its lease (another live process writing it) ends the turn at once', async () => {
  const { dir, root, h } = await world({});
  const { sessionId } = await h.newSession(dir);
  // a live process (pid 1) holds the lease's own write lock, as another cxl does for a moment
  const locks = path.join(root, 'data', 'cxl', 'sessions.locks');
  mkdirSync(locks, { recursive: true });
  const lock = path.join(locks, `.${sessionId}.turn.cxl-lock`);
  writeFileSync(lock, JSON.stringify({ pid: 1, host: hostname() }));
  const prompt = h.prompt(sessionId, 'hello');
  let settled = false;
  void prompt.finally(() => (settled = true)).catch(() => {});
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(settled, false, 'the turn waits for the lease');
  // the lock wait alone is 15 s
  await cancelledInTime(h, sessionId, prompt);
  // the lease comes free: the next prompt runs (no provider here: it says how to set one up)
  rmSync(lock);
  const next = await h.prompt(sessionId, 'again');
  assert.equal(next.stopReason, 'end_turn');
});

test('image and audio blocks are refused with the reason, never dropped; the capability is not advertised', async () => {
  const { dir, h } = await world({});
  const { sessionId } = await h.newSession(dir);
  for (const block of [
    { type: 'image' as const, data: 'iVBORw0KGgo=', mimeType: 'image/png' },
    { type: 'audio' as const, data: 'UklGRg==', mimeType: 'audio/wav' },
  ]) {
    await assert.rejects(
      h.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'what is this?' }, block] }),
      (e: { code: number; message: string }) => e.code === -32602 && new RegExp(`${block.type} block \\(${block.mimeType}\\) cannot be read`).test(e.message),
      block.type,
    );
  }
});

test('logout is advertised and answered; additionalDirectories is advertised and taken', async () => {
  const { dir, root, h } = await world({});
  const init = await h.conn.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  assert.deepEqual(init.agentCapabilities?.auth?.logout, {});
  assert.equal(init.agentCapabilities?.promptCapabilities?.image ?? false, false);
  assert.equal(init.agentCapabilities?.promptCapabilities?.audio ?? false, false);
  assert.deepEqual(init.agentCapabilities?.sessionCapabilities?.additionalDirectories, {});
  assert.deepEqual(await h.agent.request(acp.methods.agent.logout, {}), {});
  const other = path.join(root, 'other');
  mkdirSync(other);
  const { sessionId } = await h.agent.request(acp.methods.agent.session.new, { cwd: dir, mcpServers: [], additionalDirectories: [other] });
  assert.ok(sessionId);
  // what the session does there: additional_dirs_session.test.ts
  await assert.rejects(
    h.agent.request(acp.methods.agent.session.new, { cwd: dir, mcpServers: [], additionalDirectories: ['other'] }),
    (e: { code: number; message: string }) => e.code === -32602 && /relative/.test(e.message),
  );
});

test('session/list pages: 230 sessions in three pages by nextCursor, none twice or missed; a made-up cursor is refused', async () => {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-edges-')));
  const dir = path.join(root, 'project');
  mkdirSync(dir);
  const data = path.join(root, 'data');
  const store = new SessionStore(path.join(data, 'cxl'));
  for (let i = 0; i < 230; i++) {
    const t = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    const log = await store.create({ version: 1, sessionId: `s-${i}`, cwd: dir, createdAt: t, updatedAt: t, mode: 'default', history: [], replay: [], allows: [], title: `number ${i}` });
    log.session.history.push({ role: 'user', content: `hello ${i}` });
    await log.checkpoint();
    await log.close();
  }
  const h = new Harness({ env: { HOME: root, XDG_DATA_HOME: data } });
  cleanups.push(async () => {
    await h.stop();
    rmSync(root, { recursive: true, force: true });
  });
  await h.start();
  const seen: string[] = [];
  const pages: number[] = [];
  let cursor: string | undefined;
  do {
    const page: acp.ListSessionsResponse = await h.agent.request(acp.methods.agent.session.list, { cwd: dir, ...(cursor ? { cursor } : {}) });
    pages.push(page.sessions.length);
    seen.push(...page.sessions.map((x) => x.sessionId));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  assert.deepEqual(pages, [100, 100, 30]);
  assert.equal(new Set(seen).size, 230);
  await assert.rejects(h.agent.request(acp.methods.agent.session.list, { cursor: 'not-a-cursor' }), (e: { code: number }) => e.code === -32602);
});
