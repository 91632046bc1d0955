// The fetch HTTP MCP servers are reached with, against a real server on 127.0.0.1: a streamed
// answer ends when the request's signal aborts, even after the Response is dropped and garbage
// made (Deno's own fetch could lose that abort then); what is not a streamed answer is fetch's own.
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { abortEndsBodyFetch } from '../../../src/agent/tools/mcp_http_fetch.ts';

const open = new Set<ServerResponse>();
const server = createServer((req, res) => {
  if (req.url === '/stream') {
    // a stream the server never ends, as an MCP server's GET stream
    open.add(res);
    res.on('close', () => open.delete(res));
    res.writeHead(200, { 'content-type': 'text/event-stream', 'x-kept': 'yes' });
    res.write(': hello\n\n');
    return;
  }
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end('no such thing');
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
after(
  () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
);

async function until(probe: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a streamed answer ends when the signal aborts: the reader fails and the server sees the connection close', async () => {
  const ac = new AbortController();
  const fetchFn = abortEndsBodyFetch();
  // only the reader is kept, as the MCP SDK keeps it: the Response is dropped
  const reading = (async () => {
    const res = await fetchFn(`${base}/stream`, { headers: { accept: 'text/event-stream' }, signal: ac.signal });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-kept'), 'yes');
    return res.body!.pipeThrough(new TextDecoderStream()).getReader();
  })();
  const reader = await reading;
  assert.match((await reader.read()).value ?? '', /hello/);
  const next = reader.read();
  await until(() => open.size === 1, 'the stream to be open');
  let keep = 0;
  for (let i = 0; i < 400_000; i++) keep += [i, `${i}`, { i }].length; // garbage: young-generation collections
  assert.equal(keep, 1_200_000);
  ac.abort();
  // a bound, so a lost abort fails here rather than hanging the run
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    next.then(() => 'read on', () => 'failed'),
    new Promise<string>((r) => (timer = setTimeout(() => r('still reading after 5 s'), 5000))),
  ]);
  clearTimeout(timer);
  assert.equal(outcome, 'failed', 'the abort ends the read');
  await until(() => open.size === 0, 'the server to see the stream closed');
});

test('an answer that is not ok is fetch`s own, left for the caller to read', async () => {
  const res = await abortEndsBodyFetch()(`${base}/missing`, { signal: new AbortController().signal });
  assert.equal(res.status, 404);
  assert.equal(await res.text(), 'no such thing');
});
