// A remote service that sends its headers and part of its answer, then nothing: the call still
// ends at its timeout, and at once on a cancel, with the read abandoned and the connection closed.
// Garbage is made while the body is pending, as in mcp_http_fetch.test.ts: under Deno fetch's own
// abort can be lost once the Request is collected. (Here it was not lost even before the reader
// was tied to the signal; the test holds the timeout and the cancel of a half-sent answer.)
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { send, type SendOptions } from '../../../../src/agent/tools/remote/http.ts';

const open = new Set<ServerResponse>();
const server = createServer((_req, res) => {
  open.add(res);
  res.on('close', () => open.delete(res));
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"pets": [');
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/pets`);
after(
  () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
);

const options = (o: Partial<SendOptions>): SendOptions => ({ fixedHeaders: {}, timeoutMs: 60_000, maxBytes: 1 << 20, secrets: [], label: 'pets.listPets', timeoutHint: 'timeout in [remote_tools.pets]', ...o });

/** `p`'s outcome within 5 s: its error code, 'answered', or that it was still waiting. */
async function settled(p: Promise<unknown>): Promise<string> {
  // young-generation collections while the body is pending
  let keep = 0;
  for (let i = 0; i < 400_000; i++) keep += [i, `${i}`, { i }].length;
  assert.equal(keep, 1_200_000);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const out = await Promise.race([
    p.then(() => 'answered', (e: { code?: string }) => e.code ?? String(e)),
    new Promise<string>((r) => (timer = setTimeout(() => r('still waiting after 5 s'), 5000))),
  ]);
  clearTimeout(timer);
  return out;
}

async function until(probe: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!probe()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('an answer that stops halfway meets the timeout: a timeout error, the connection closed', async () => {
  const p = send({ method: 'GET', url, headers: {} }, options({ timeoutMs: 400 }));
  await until(() => open.size === 1, 'the request');
  assert.equal(await settled(p), 'timeout');
  await until(() => open.size === 0, 'the server to see the connection closed');
});

test('a cancel while an answer stops halfway ends the call at once as cancelled', async () => {
  const ac = new AbortController();
  const p = send({ method: 'GET', url, headers: {} }, options({ signal: ac.signal }));
  await until(() => open.size === 1, 'the request');
  await new Promise((r) => setTimeout(r, 100));
  const t0 = Date.now();
  ac.abort();
  assert.equal(await settled(p), 'cancelled');
  assert.ok(Date.now() - t0 < 3000, `took ${Date.now() - t0} ms`);
  await until(() => open.size === 0, 'the server to see the connection closed');
});
