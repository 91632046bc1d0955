import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { OllamaProvider, ollamaBaseUrl } from '../../../src/agent/providers/ollama.ts';
import { OpenAIProvider } from '../../../src/agent/providers/openai.ts';
import { selectProvider } from '../../../src/agent/providers/select.ts';
import { type ChatEvent, type Provider, ProviderError } from '../../../src/agent/providers/types.ts';
import { startFakeOllama, startFakeOpenAI, type FakeServer } from '../../fixtures/fake_models.ts';

async function collect(p: Provider, tools = [{ name: 'local_fs.read_file', description: 'read', parameters: { type: 'object', properties: {} } }]): Promise<ChatEvent[]> {
  const out: ChatEvent[] = [];
  for await (const e of p.chat({ messages: [{ role: 'user', content: 'hi' }], tools })) out.push(e);
  return out;
}

async function rejects(p: Provider): Promise<ProviderError> {
  try {
    await collect(p);
  } catch (err) {
    assert.ok(err instanceof ProviderError, String(err));
    return err;
  }
  assert.fail('expected a ProviderError');
}

const both: Array<[string, (s: Parameters<typeof startFakeOpenAI>[0]) => Promise<FakeServer>, (srv: FakeServer) => Provider]> = [
  ['openai', startFakeOpenAI, (srv) => new OpenAIProvider({ baseUrl: srv.url, apiKey: 'sk-test', model: 'm1' })],
  ['ollama', startFakeOllama, (srv) => new OllamaProvider({ baseUrl: srv.url, model: 'qwen3:8b' })],
];

for (const [name, start, make] of both) {
  test(`${name}: streamed text, reasoning and tool calls become events in order`, async () => {
    const srv = await start([{ reasoning: 'let me think', text: 'hello there world', toolCalls: [{ name: 'local_fs.read_file', arguments: { path: 'a.txt' } }] }]);
    try {
      const ev = await collect(make(srv));
      const text = ev.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text);
      assert.ok(text.length >= 3, 'text arrives in several chunks');
      assert.equal(text.join(''), 'hello there world');
      assert.equal(ev.filter((e) => e.type === 'reasoning').map((e) => (e as { text: string }).text).join(''), 'let me think');
      const calls = ev.filter((e) => e.type === 'tool_call');
      assert.equal(calls.length, 1);
      const call = (calls[0] as { call: { name: string; arguments: string } }).call;
      assert.equal(call.name, 'local_fs.read_file');
      assert.deepEqual(JSON.parse(call.arguments), { path: 'a.txt' });
      assert.equal(ev.at(-1)?.type, 'done');
      const req = srv.requests[0];
      assert.equal(req.stream, true);
      const wireTool = ((req.tools as Array<{ function: { name: string } }>)[0]).function.name;
      assert.equal(wireTool, name === 'openai' ? 'local_fs__read_file' : 'local_fs.read_file');
      if (name === 'openai') assert.equal(req._auth, 'Bearer sk-test');
    } finally {
      await srv.close();
    }
  });

  test(`${name}: a dropped stream is a bad_stream error`, async () => {
    const srv = await start([{ drop: true, text: 'partial answer' }]);
    try {
      const e = await rejects(make(srv));
      assert.equal(e.kind, 'bad_stream');
      assert.match(e.message, /send the prompt again/i);
    } finally {
      await srv.close();
    }
  });

  test(`${name}: a chunk that is not JSON is a bad_stream error`, async () => {
    const srv = await start([{ garbage: '{not json' }]);
    try {
      assert.equal((await rejects(make(srv))).kind, 'bad_stream');
    } finally {
      await srv.close();
    }
  });

  test(`${name}: 401, 429 with a long retry-after, context too long, 404`, async () => {
    const srv = await start([
      { status: 401, body: JSON.stringify({ error: { message: 'invalid api key' } }) },
      { status: 429, body: '{"error":"slow down"}', headers: { 'retry-after': '700' } },
      { status: 400, body: JSON.stringify({ error: { message: "This model's maximum context length is 8192 tokens", code: 'context_length_exceeded' } }) },
      { status: 404, body: JSON.stringify({ error: "model 'nope' not found" }) },
    ]);
    try {
      const p = make(srv);
      const auth = await rejects(p);
      assert.equal(auth.kind, 'auth');
      assert.match(auth.message, /invalid api key/);
      const rl = await rejects(p);
      assert.equal(rl.kind, 'rate_limited');
      assert.equal(rl.retryAfter, 700);
      assert.match(rl.message, /retry after 700 s/);
      const ctx = await rejects(p);
      assert.equal(ctx.kind, 'context_length');
      assert.equal(ctx.limit, 8192);
      assert.match(ctx.message, /\/compact/);
      assert.equal((await rejects(p)).kind, 'model_not_found');
    } finally {
      await srv.close();
    }
  });
}

test('an unreachable server is an unreachable error naming the URL', async () => {
  // a port that was free a moment ago
  const port = await new Promise<number>((r) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => r(p));
    });
  });
  const e = await rejects(new OllamaProvider({ baseUrl: `http://127.0.0.1:${port}`, model: 'qwen3:8b' }));
  assert.equal(e.kind, 'unreachable');
  assert.match(e.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
  assert.match(e.message, /OLLAMA_HOST/);
});

test('OLLAMA_HOST forms', () => {
  assert.equal(ollamaBaseUrl(undefined), 'http://127.0.0.1:11434');
  assert.equal(ollamaBaseUrl('example.org'), 'http://example.org:11434');
  assert.equal(ollamaBaseUrl('0.0.0.0:9999'), 'http://127.0.0.1:9999');
  assert.equal(ollamaBaseUrl('https://ollama.example.org'), 'https://ollama.example.org');
});

test('provider selection: flags over config over environment', () => {
  assert.equal(selectProvider({}, {}, {}).name, 'ollama');
  assert.equal(selectProvider({}, {}, {}).model, 'qwen3:8b');
  assert.equal(selectProvider({}, {}, { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' }).name, 'openai');
  assert.equal(selectProvider({ provider: 'ollama' }, { provider: 'openai' }, {}).name, 'ollama');
  const p = selectProvider({ model: 'flag-model' }, { provider: 'openai', model: 'cfg-model' }, { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' });
  assert.equal(p.model, 'flag-model');
  assert.equal(p.endpoint, 'http://127.0.0.1:1/v1/chat/completions');
  assert.throws(() => selectProvider({ provider: 'bard' }, {}, {}), /unknown provider `bard`/);
});
