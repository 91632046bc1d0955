// The three model-request timeouts, each firing at its setting against a server that stalls at
// that stage: a listener that never accepts (connect), a server that takes the request and sends
// nothing (first byte, before and after its headers), and one that stops between chunks (idle).
// Each message says which timeout fired and what to raise.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { DEFAULT_RETRY, type Timeouts } from '../../../src/agent/providers/http.ts';
import { OllamaProvider } from '../../../src/agent/providers/ollama.ts';
import { OpenAIProvider } from '../../../src/agent/providers/openai.ts';
import { type Provider, ProviderError } from '../../../src/agent/providers/types.ts';
import { moduleCommand } from '../../../src/core/platform/runtime.ts';
import { ndjson, sse, startReplay } from '../../fixtures/replay_server.ts';

const cleanups: Array<() => unknown> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

const T = (t: Partial<Timeouts>): Timeouts => ({ connectMs: 5000, firstByteMs: 5000, idleMs: 5000, ...t });

async function failure(p: Provider): Promise<{ err: ProviderError; ms: number }> {
  const t0 = Date.now();
  try {
    for await (const _ of p.chat({ messages: [{ role: 'user', content: 'hi' }], tools: [] })) {
      // drain
    }
  } catch (err) {
    assert.ok(err instanceof ProviderError, String(err));
    return { err, ms: Date.now() - t0 };
  }
  assert.fail('expected a timeout');
}

/** A port whose accept queue is full: connections to it hang in SYN-SENT. */
async function unacceptingPort(): Promise<number> {
  const [cmd, ...args] = moduleCommand(fileURLToPath(new URL('../../fixtures/unaccepting_listener.ts', import.meta.url)));
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(() => child.kill('SIGKILL'));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
    child.once('error', reject);
  });
  // fill the queue: connect until one connection no longer completes
  for (let i = 0; i < 16; i++) {
    const s = net.connect(port, '127.0.0.1');
    cleanups.push(() => s.destroy());
    const up = await new Promise<boolean>((r) => {
      const t = setTimeout(() => r(false), 300);
      s.once('connect', () => {
        clearTimeout(t);
        r(true);
      });
      s.once('error', () => r(false));
    });
    if (!up) return port;
  }
  throw new Error('the listener kept accepting connections');
}

test('connect timeout: a server that cannot be reached in time', async () => {
  const port = await unacceptingPort();
  for (const p of [
    new OllamaProvider({ baseUrl: `http://127.0.0.1:${port}`, model: 'qwen3:8b', http: { timeouts: T({ connectMs: 300 }), retry: DEFAULT_RETRY } }),
    new OpenAIProvider({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', http: { timeouts: T({ connectMs: 300 }), retry: DEFAULT_RETRY } }),
  ]) {
    const { err, ms } = await failure(p);
    assert.equal(err.kind, 'timeout');
    assert.equal(err.stage, 'connect');
    assert.match(err.message, /connect timeout of 300ms/);
    assert.match(err.message, /connect_timeout in \[agents\.<name>\] or pass --connect-timeout/);
    assert.ok(ms >= 280 && ms < 2500, `${ms} ms`);
  }
});

test('first-byte timeout: the server takes the request and sends nothing, before or after its headers', async () => {
  const srv = await startReplay({
    'POST /api/chat': [{ stallBeforeHeadersMs: 3000 }, { stallAfterHeadersMs: 3000, chunks: ndjson([{ message: { content: 'late' }, done: true }]) }],
  });
  cleanups.push(() => srv.close());
  const p = new OllamaProvider({ baseUrl: srv.origin, model: 'qwen3:8b', http: { timeouts: T({ firstByteMs: 400 }), retry: DEFAULT_RETRY } });
  for (const where of ['before headers', 'after headers']) {
    const { err, ms } = await failure(p);
    assert.equal(err.kind, 'timeout', where);
    assert.equal(err.stage, 'first_byte', where);
    assert.match(err.message, /sent nothing within the first-byte timeout of 400ms/);
    assert.match(err.message, /raise first_byte_timeout in \[agents\.<name>\] or pass --first-byte-timeout/);
    assert.ok(ms >= 380 && ms < 2500, `${where}: ${ms} ms`);
  }
});

test('idle timeout: the answer stops between chunks; a slow but steady stream is not cut', async () => {
  const head = { choices: [{ index: 0, delta: { content: 'part' }, finish_reason: null }] };
  const stalls = await startReplay({
    'POST /v1/chat/completions': [
      // one chunk, then nothing for 3 s
      { headers: { 'content-type': 'text/event-stream' }, chunks: [...sse([head], false), ...sse([{ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }])], gapMs: 3000 },
      // chunks 150 ms apart, under the idle timeout: the whole answer arrives
      { headers: { 'content-type': 'text/event-stream' }, chunks: sse([head, head, head, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }]), gapMs: 150 },
    ],
  });
  cleanups.push(() => stalls.close());
  const p = new OpenAIProvider({ baseUrl: `${stalls.origin}/v1`, model: 'm', http: { timeouts: T({ idleMs: 500 }), retry: DEFAULT_RETRY } });
  const { err, ms } = await failure(p);
  assert.equal(err.kind, 'timeout');
  assert.equal(err.stage, 'idle');
  assert.match(err.message, /nothing arrived for 500ms \(the idle timeout between stream chunks\)/);
  assert.match(err.message, /raise idle_timeout in \[agents\.<name>\] or pass --idle-timeout/);
  assert.ok(ms >= 480 && ms < 2500, `${ms} ms`);
  let text = '';
  for await (const e of p.chat({ messages: [{ role: 'user', content: 'hi' }], tools: [] })) if (e.type === 'text') text += e.text;
  assert.equal(text, 'partpartpart');
});

test('an answer that ends with [DONE] closes its connection, even when the server would hold it open', async () => {
  const closed: number[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sse([{ choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: 'stop' }] }]).join(''));
      // and never ends the response
    });
    res.on('close', () => closed.push(Date.now()));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanups.push(() => (server.closeAllConnections(), new Promise((r) => server.close(r))));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const p = new OpenAIProvider({ baseUrl: `${origin}/v1`, model: 'm', http: { timeouts: T({}), retry: DEFAULT_RETRY } });
  for (let turn = 0; turn < 3; turn++) {
    let text = '';
    for await (const e of p.chat({ messages: [{ role: 'user', content: 'hi' }], tools: [] })) if (e.type === 'text') text += e.text;
    assert.equal(text, 'hi');
    const t0 = Date.now();
    while (closed.length <= turn && Date.now() - t0 < 2000) await new Promise((r) => setTimeout(r, 10));
    assert.equal(closed.length, turn + 1, `the connection of turn ${turn + 1} is still open after the answer ended`);
  }
});

test('a request given up on a kept-alive connection (a cancel, a first-byte timeout) is sent once and its connection closed', async () => {
  // Deno's node:http resent such a request on a new connection (denoland/deno#36786): the model
  // server computed a second answer for a cancelled turn
  const posts: number[] = [];
  let closed = 0;
  const server = createServer((req, res) => {
    if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[{"id":"m"}]}');
    posts.push(req.socket.remotePort ?? 0);
    res.on('close', () => closed++);
    // holds the chat request without a byte
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanups.push(() => (server.closeAllConnections(), new Promise((r) => server.close(r))));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const settle = async (want: number) => {
    const t0 = Date.now();
    while (closed < want && Date.now() - t0 < 3000) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 300)); // time for a resend to arrive
  };
  const kinds: string[] = [];
  for (const how of ['cancel', 'timeout'] as const) {
    const p = new OpenAIProvider({ baseUrl, model: 'm', http: { timeouts: T({ firstByteMs: how === 'timeout' ? 300 : 60_000 }), retry: DEFAULT_RETRY } });
    // the lookup leaves a kept-alive connection that the chat request then takes
    assert.deepEqual(await p.listModels(), ['m']);
    const before = posts.length;
    const ac = new AbortController();
    const drained = (async () => {
      for await (const _ of p.chat({ messages: [{ role: 'user', content: 'hi' }], tools: [], signal: ac.signal })) {
        // drain
      }
    })().catch((err: unknown) => kinds.push(err instanceof ProviderError ? err.kind : String(err)));
    const t0 = Date.now();
    while (posts.length === before && Date.now() - t0 < 3000) await new Promise((r) => setTimeout(r, 10));
    if (how === 'cancel') ac.abort();
    await drained;
    await settle(before + 1);
    assert.equal(posts.length, before + 1, `${how}: the chat request was sent ${posts.length - before} times`);
    assert.equal(closed, posts.length, `${how}: its connection was closed`);
  }
  assert.deepEqual(kinds, ['cancelled', 'timeout']);
});
