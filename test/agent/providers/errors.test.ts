// How the providers fail, against a real HTTP server on 127.0.0.1: a bad key, an unknown model
// (the message names the models the server has), 429 with and without Retry-After, 5xx sent
// again with a bounded backoff, a stream cut in the middle of a tool call, and a 200 that is
// not the stream (an HTML page, junk): the base URL is probably wrong.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_TIMEOUTS, type HttpSettings } from '../../../src/agent/providers/http.ts';
import { OllamaProvider } from '../../../src/agent/providers/ollama.ts';
import { OpenAIProvider } from '../../../src/agent/providers/openai.ts';
import { type ChatEvent, type Provider, ProviderError } from '../../../src/agent/providers/types.ts';
import { ndjson, sse, startReplay, type Replay, type Route } from '../../fixtures/replay_server.ts';

const FAST: HttpSettings = { timeouts: DEFAULT_TIMEOUTS, retry: { retries: 3, baseMs: 20, maxWaitS: 1 } };
const SSE = { 'content-type': 'text/event-stream' };
const OK_SSE: Replay = { headers: SSE, chunks: sse([{ choices: [{ index: 0, delta: { content: 'fine' }, finish_reason: null }] }, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }]) };
const OK_OLLAMA: Replay = { headers: { 'content-type': 'application/x-ndjson' }, chunks: ndjson([{ message: { role: 'assistant', content: 'fine' }, done: false }, { message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop' }]) };

interface Run {
  events: ChatEvent[];
  error?: ProviderError;
  retries: string[];
  ms: number;
}

async function run(p: Provider): Promise<Run> {
  const events: ChatEvent[] = [];
  const retries: string[] = [];
  const t0 = Date.now();
  try {
    for await (const e of p.chat({ messages: [{ role: 'user', content: 'hi' }], tools: [], onRetry: (m) => retries.push(m) })) events.push(e);
  } catch (err) {
    assert.ok(err instanceof ProviderError, String(err));
    return { events, error: err, retries, ms: Date.now() - t0 };
  }
  return { events, retries, ms: Date.now() - t0 };
}

type Kind = 'openai' | 'ollama';
const KINDS: Kind[] = ['openai', 'ollama'];
const chatPath = (k: Kind) => (k === 'openai' ? 'POST /v1/chat/completions' : 'POST /api/chat');
const ok = (k: Kind) => (k === 'openai' ? OK_SSE : OK_OLLAMA);

async function scenario(k: Kind, routes: Record<string, Route>, fn: (r: Run, requests: number) => void, model = 'qwen3:8b'): Promise<void> {
  const srv = await startReplay(routes);
  try {
    const p = k === 'openai' ? new OpenAIProvider({ baseUrl: `${srv.origin}/v1`, model, apiKey: 'sk-bad', http: FAST }) : new OllamaProvider({ baseUrl: srv.origin, model, http: FAST });
    const r = await run(p);
    fn(r, srv.requests.filter((q) => `${q.method} ${q.path}` === chatPath(k)).length);
  } finally {
    await srv.close();
  }
}

test('401: the credentials were refused, with the server\'s reason', async () => {
  await scenario('openai', { [chatPath('openai')]: { status: 401, chunks: [JSON.stringify({ error: { message: 'Incorrect API key provided: sk-bad.', type: 'invalid_request_error', code: 'invalid_api_key' } })] } }, (r, n) => {
    assert.equal(r.error?.kind, 'auth');
    assert.match(r.error!.message, /Incorrect API key provided/);
    assert.match(r.error!.message, /OPENAI_API_KEY/);
    assert.equal(n, 1, 'a refused key is not retried');
  });
});

test('404 for an unknown model names the models the server has (/v1/models, /api/tags)', async () => {
  await scenario('openai', {
    [chatPath('openai')]: { status: 404, chunks: [JSON.stringify({ error: { message: 'The model `gpt-5-mini` does not exist or you do not have access to it.', type: 'invalid_request_error', code: 'model_not_found' } })] },
    'GET /v1/models': { chunks: [JSON.stringify({ object: 'list', data: [{ id: 'qwen2.5-coder-7b', object: 'model' }, { id: 'llama-3.1-8b', object: 'model' }] })] },
  }, (r) => {
    assert.equal(r.error?.kind, 'model_not_found');
    assert.match(r.error!.message, /no model `gpt-5-mini`/);
    assert.match(r.error!.message, /It has: qwen2\.5-coder-7b, llama-3\.1-8b/);
  }, 'gpt-5-mini');
  await scenario('ollama', {
    [chatPath('ollama')]: { status: 404, chunks: [JSON.stringify({ error: "model 'qwen3:14b' not found" })] },
    'GET /api/tags': { chunks: [JSON.stringify({ models: [{ name: 'qwen3:8b', model: 'qwen3:8b', size: 5225387923 }, { name: 'llama3.2:3b', model: 'llama3.2:3b' }] })] },
  }, (r) => {
    assert.equal(r.error?.kind, 'model_not_found');
    assert.match(r.error!.message, /It has: qwen3:8b, llama3\.2:3b/);
    assert.match(r.error!.message, /ollama pull qwen3:14b/);
  }, 'qwen3:14b');
  // a 404 from a path that is not the API: the model list is not there either, so the URL is wrong
  await scenario('openai', { 'POST /chat/completions': { status: 404 } }, (r) => {
    assert.equal(r.error?.kind, 'model_not_found');
    assert.match(r.error!.message, /base URL is probably wrong/);
  });
});

for (const k of KINDS) {
  test(`${k}: 429 with a short Retry-After is waited out; a long one ends with the error at once`, async () => {
    await scenario(k, { [chatPath(k)]: [{ status: 429, headers: { 'retry-after': '0' }, chunks: ['{"error":"slow down"}'] }, ok(k)] }, (r, n) => {
      assert.equal(r.error, undefined, r.error?.message);
      assert.equal(n, 2);
      assert.equal(r.retries.length, 1);
      assert.match(r.retries[0], /HTTP 429 \(Retry-After 0 s\)/);
    });
    await scenario(k, { [chatPath(k)]: { status: 429, headers: { 'retry-after': '3600' }, chunks: ['{"error":"quota"}'] } }, (r, n) => {
      assert.equal(r.error?.kind, 'rate_limited');
      assert.equal(r.error?.retryAfter, 3600);
      assert.match(r.error!.message, /retry after 3600 s/);
      assert.equal(n, 1);
    });
  });

  test(`${k}: 429 without Retry-After backs off and tries again, at most twice`, async () => {
    await scenario(k, { [chatPath(k)]: { status: 429, chunks: ['{"error":"rate limit"}'] } }, (r, n) => {
      assert.equal(r.error?.kind, 'rate_limited');
      assert.equal(n, 3, 'the first try and two more');
      // 20 ms then 40 ms of backoff
      assert.ok(r.ms >= 55, `${r.ms} ms`);
    });
  });

  test(`${k}: 500, 502 and 503 are sent again with a doubling backoff, and give up after the bound`, async () => {
    await scenario(k, { [chatPath(k)]: [{ status: 500, chunks: ['boom'] }, { status: 502, chunks: ['<html>Bad Gateway</html>'], headers: { 'content-type': 'text/html' } }, { status: 503, chunks: ['{"error":"loading model"}'] }, ok(k)] }, (r, n) => {
      assert.equal(r.error, undefined, r.error?.message);
      assert.equal(n, 4);
      assert.deepEqual(r.retries.map((m) => /HTTP (\d+)/.exec(m)?.[1]), ['500', '502', '503']);
      assert.ok(r.ms >= 20 + 40 + 80, `${r.ms} ms: backoff 20, 40, 80`);
    });
    await scenario(k, { [chatPath(k)]: { status: 503, chunks: ['{"error":"overloaded"}'] } }, (r, n) => {
      assert.equal(r.error?.kind, 'http');
      assert.match(r.error!.message, /HTTP 503/);
      assert.match(r.error!.message, /overloaded/);
      assert.equal(n, 4, 'three retries, then the error');
    });
  });
}

test('a stream cut in the middle of a tool call: bad_stream, and the half call is never yielded', async () => {
  const head = [{ choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'write_file', arguments: '{"path":"a.txt","con' } }] }, finish_reason: null }] }];
  await scenario('openai', { [chatPath('openai')]: { headers: SSE, chunks: sse(head, false), cut: true } }, (r) => {
    assert.equal(r.error?.kind, 'bad_stream');
    assert.match(r.error!.message, /in the middle of a tool call, which was not run/);
    assert.equal(r.events.filter((e) => e.type === 'tool_call').length, 0);
  });
  const lines = ndjson([{ message: { role: 'assistant', content: 'Writing' }, done: false }]);
  await scenario('ollama', { [chatPath('ollama')]: { headers: { 'content-type': 'application/x-ndjson' }, chunks: lines, cut: true } }, (r) => {
    assert.equal(r.error?.kind, 'bad_stream');
    assert.match(r.error!.message, /send the prompt again/i);
  });
});

test('a 200 that is not the stream (an HTML page, junk, an empty body) says the base URL is probably wrong', async () => {
  const html = { headers: { 'content-type': 'text/html; charset=utf-8' }, chunks: ['<!DOCTYPE html><html><head><title>Open WebUI</title></head><body>…</body></html>'] };
  for (const k of KINDS) {
    await scenario(k, { [chatPath(k)]: html }, (r) => {
      assert.equal(r.error?.kind, 'bad_stream');
      assert.match(r.error!.message, /HTML page/);
      assert.match(r.error!.message, /URL is probably wrong/);
      assert.match(r.error!.message, /Open WebUI/);
    });
  }
  await scenario('openai', { [chatPath('openai')]: { headers: { 'content-type': 'text/plain' }, chunks: ['Welcome to nginx!\n'] } }, (r) => {
    assert.equal(r.error?.kind, 'bad_stream');
    assert.match(r.error!.message, /not an event stream \("Welcome to nginx!"\)/);
    assert.match(r.error!.message, /should be the API root that ends in \/v1/);
  });
  await scenario('ollama', { [chatPath('ollama')]: { headers: { 'content-type': 'text/plain' }, chunks: ['Ollama is running'] } }, (r) => {
    assert.equal(r.error?.kind, 'bad_stream');
    assert.match(r.error!.message, /URL is probably wrong: OLLAMA_HOST/);
  });
  await scenario('openai', { [chatPath('openai')]: { headers: SSE, chunks: [] } }, (r) => {
    assert.match(r.error!.message, /no events at all/);
  });
});

test('too long: context_length with the limit and prompt size the server named', async () => {
  await scenario('openai', {
    [chatPath('openai')]: { status: 400, chunks: [JSON.stringify({ error: { message: "This model's maximum context length is 8192 tokens. However, you requested 9321 tokens (9321 in the messages, 0 in the completion).", code: 'context_length_exceeded' } })] },
  }, (r) => {
    assert.equal(r.error?.kind, 'context_length');
    assert.equal(r.error?.limit, 8192);
    assert.equal(r.error?.promptTokens, 9321);
  });
  // llama.cpp's shape
  await scenario('openai', {
    [chatPath('openai')]: { status: 400, chunks: [JSON.stringify({ error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error', n_prompt_tokens: 5210, n_ctx: 4096 } })] },
  }, (r) => {
    assert.equal(r.error?.kind, 'context_length');
    assert.equal(r.error?.limit, 4096);
    assert.equal(r.error?.promptTokens, 5210);
  });
});
