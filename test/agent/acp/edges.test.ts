// `cxl acp` as a real child process at the edges of a turn and of the protocol: a cancel while the
// model's context window is still being asked for (a server that never answers), prompt blocks
// the models cannot read, and the stable 2.4.0 schema's paging, logout and additional roots.
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
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

test('a cancel while the context window is still being asked of a server that never answers ends the turn at once', async () => {
  const srv = await silentServer();
  const { dir, h } = await world({ OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k' }, { args: ['--provider', 'openai', '--model', 'm'] });
  const { sessionId } = await h.newSession(dir);
  const prompt = h.prompt(sessionId, 'hello');
  // the lookup is under way: its first request has reached the server
  const t0 = Date.now();
  while (!srv.hits.some((x) => /models|props/.test(x)) && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 200));
  const asked = Date.now();
  await h.agent.notify(acp.methods.agent.session.cancel, { sessionId });
  const res = await prompt;
  const took = Date.now() - asked;
  assert.equal(res.stopReason, 'cancelled');
  // the two 3 s lookup timeouts would make it ~5.5 s
  assert.ok(took < 1500, `the cancel took ${took} ms`);
});
