// The providers against the wire shapes real servers send, replayed byte for byte by a real
// HTTP server on 127.0.0.1: OpenAI's parallel tool calls and usage chunk, vLLM/DeepSeek
// reasoning, llama.cpp / LM Studio tool calls written as text, Ollama's one-shot tool calls
// and thinking.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OllamaProvider } from '../../../src/agent/providers/ollama.ts';
import { OpenAIProvider } from '../../../src/agent/providers/openai.ts';
import type { ChatEvent, Provider } from '../../../src/agent/providers/types.ts';
import { ndjson, sse, startReplay, type ReplayServer } from '../../fixtures/replay_server.ts';

const TOOLS = [
  { name: 'read_file', description: 'read', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'grep', description: 'search', parameters: { type: 'object', properties: { pattern: { type: 'string' } } } },
  { name: 'web.fetch', description: 'an MCP tool', parameters: { type: 'object', properties: {} } },
];

async function events(p: Provider, extra: { contextWindow?: number } = {}): Promise<ChatEvent[]> {
  const out: ChatEvent[] = [];
  for await (const e of p.chat({ messages: [{ role: 'user', content: 'go' }], tools: TOOLS, ...extra })) out.push(e);
  return out;
}

const calls = (ev: ChatEvent[]) => ev.flatMap((e) => (e.type === 'tool_call' ? [{ id: e.call.id, name: e.call.name, args: JSON.parse(e.call.arguments) as unknown }] : []));
const text = (ev: ChatEvent[]) => ev.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
const reasoning = (ev: ChatEvent[]) => ev.flatMap((e) => (e.type === 'reasoning' ? [e.text] : [])).join('');

async function withServer(routes: Parameters<typeof startReplay>[0], fn: (srv: ReplayServer) => Promise<void>): Promise<void> {
  const srv = await startReplay(routes);
  try {
    await fn(srv);
  } finally {
    await srv.close();
  }
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chatcmpl-9', object: 'chat.completion.chunk', created: 1726000000, model: 'gpt-4o-mini', system_fingerprint: 'fp_1',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
});
const SSE = { 'content-type': 'text/event-stream; charset=utf-8' };

test('OpenAI: two parallel tool calls by index, arguments in many fragments, interleaved; finish_reason tool_calls; the usage chunk with empty choices', async () => {
  const stream = sse([
    chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_Aa1', type: 'function', function: { name: 'read_file', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] }),
    chunk({ tool_calls: [{ index: 1, id: 'call_Bb2', type: 'function', function: { name: 'web__fetch', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: 'th": "src/' } }] }),
    chunk({ tool_calls: [{ index: 1, function: { arguments: '{}' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: 'a.ts"}' } }] }),
    chunk({}, 'tool_calls'),
    { id: 'chatcmpl-9', object: 'chat.completion.chunk', created: 1726000000, model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 812, completion_tokens: 41, total_tokens: 853 } },
  ]);
  await withServer({ 'POST /v1/chat/completions': { headers: SSE, chunks: stream } }, async (srv) => {
    const ev = await events(new OpenAIProvider({ baseUrl: `${srv.origin}/v1`, model: 'gpt-4o-mini', apiKey: 'k' }));
    assert.deepEqual(calls(ev), [
      { id: 'call_Aa1', name: 'read_file', args: { path: 'src/a.ts' } },
      { id: 'call_Bb2', name: 'web.fetch', args: {} },
    ]);
    assert.deepEqual(ev.find((e) => e.type === 'usage'), { type: 'usage', usage: { promptTokens: 812, completionTokens: 41 } });
    assert.deepEqual(ev.at(-1), { type: 'done', finishReason: 'tool_calls' });
    const body = srv.requests[0].body;
    assert.deepEqual(body.stream_options, { include_usage: true });
    assert.equal((body.tools as Array<{ function: { name: string } }>)[2].function.name, 'web__fetch');
  });
});

test('vLLM and DeepSeek: reasoning_content (and the newer `reasoning`) before the answer', async () => {
  for (const field of ['reasoning_content', 'reasoning']) {
    const stream = sse([
      chunk({ role: 'assistant', content: '' }),
      chunk({ [field]: 'The user wants ' }),
      chunk({ [field]: 'a greeting.' }),
      chunk({ content: 'Hello' }),
      chunk({ content: ' there.' }),
      chunk({}, 'stop'),
    ]);
    await withServer({ 'POST /v1/chat/completions': { headers: SSE, chunks: stream } }, async (srv) => {
      const ev = await events(new OpenAIProvider({ baseUrl: `${srv.origin}/v1`, model: 'deepseek-r1' }));
      assert.equal(reasoning(ev), 'The user wants a greeting.', field);
      assert.equal(text(ev), 'Hello there.');
      assert.deepEqual(ev.at(-1), { type: 'done', finishReason: 'stop' });
    });
  }
});

test('llama.cpp and LM Studio without a tool parser, configured with inline_tool_calls: <tool_call> text (Hermes JSON, Qwen3-Coder XML) becomes calls, cut anywhere; not configured, it stays text', async () => {
  const hermes = 'Let me look.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "notes.txt"}}\n</tool_call>\n<tool_call>\n{"name": "grep", "parameters": {"pattern": "TODO"}}\n</tool_call>';
  const xml = '<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/main.ts\n</parameter>\n</function>\n</tool_call>';
  for (const [whole, want, say] of [
    [hermes, [{ name: 'read_file', args: { path: 'notes.txt' } }, { name: 'grep', args: { pattern: 'TODO' } }], 'Let me look.\n'],
    [xml, [{ name: 'read_file', args: { path: 'src/main.ts' } }], ''],
  ] as const) {
    // cut into 7-character pieces, so the tags straddle chunks
    const pieces = whole.match(/[\s\S]{1,7}/g)!;
    const stream = sse([chunk({ role: 'assistant', content: '' }), ...pieces.map((p) => chunk({ content: p })), chunk({}, 'stop'), { choices: [], usage: { prompt_tokens: 300, completion_tokens: 60 } }]);
    await withServer({ 'POST /v1/chat/completions': { headers: SSE, chunks: stream } }, async (srv) => {
      const ev = await events(new OpenAIProvider({ baseUrl: `${srv.origin}/v1`, model: 'qwen2.5-coder', inlineToolCalls: true }));
      assert.deepEqual(calls(ev).map(({ name, args }) => ({ name, args })), want);
      assert.equal(text(ev).trim(), say.trim());
      assert.equal((ev.at(-1) as { finishReason: string }).finishReason, 'tool_calls');
      const plain = await events(new OpenAIProvider({ baseUrl: `${srv.origin}/v1`, model: 'qwen2.5-coder' }));
      assert.deepEqual(calls(plain), []);
      assert.equal(text(plain), whole);
      assert.equal((plain.at(-1) as { finishReason: string }).finishReason, 'stop');
    });
  }
});

test('a server that ignores stream: one JSON chat.completion is read whole', async () => {
  const whole = {
    id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'Done.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }] }, finish_reason: 'tool_calls' }],
    usage: { prompt_tokens: 50, completion_tokens: 5 },
  };
  await withServer({ 'POST /v1/chat/completions': { chunks: [JSON.stringify(whole)] } }, async (srv) => {
    const ev = await events(new OpenAIProvider({ baseUrl: `${srv.origin}/v1`, model: 'm' }));
    assert.equal(text(ev), 'Done.');
    assert.deepEqual(calls(ev), [{ id: 'c1', name: 'read_file', args: { path: 'a' } }]);
    assert.deepEqual(ev.find((e) => e.type === 'usage'), { type: 'usage', usage: { promptTokens: 50, completionTokens: 5 } });
  });
});

test('an older server that refuses stream_options is asked once more without it, and not again', async () => {
  const ok = { headers: SSE, chunks: sse([chunk({ content: 'hi' }), chunk({}, 'stop')]) };
  await withServer(
    { 'POST /v1/chat/completions': (body) => (body.stream_options ? { status: 400, chunks: [JSON.stringify({ error: { message: 'Unrecognized request argument supplied: stream_options' } })] } : ok) },
    async (srv) => {
      const p = new OpenAIProvider({ baseUrl: `${srv.origin}/v1`, model: 'm' });
      assert.equal(text(await events(p)), 'hi');
      assert.equal(text(await events(p)), 'hi');
      assert.deepEqual(srv.requests.map((r) => 'stream_options' in r.body), [true, false, false]);
    },
  );
});

test('Ollama: thinking, then one-shot tool calls with object arguments; counts from the done line; num_ctx sent', async () => {
  const base = { model: 'qwen3:8b', created_at: '2025-06-01T10:00:00.000000Z' };
  const stream = ndjson([
    { ...base, message: { role: 'assistant', content: '', thinking: 'I should read' }, done: false },
    { ...base, message: { role: 'assistant', content: '', thinking: ' the file.' }, done: false },
    { ...base, message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'read_file', arguments: { path: 'a.txt' } } }, { function: { name: 'grep', arguments: { pattern: 'x' } } }] }, done: false },
    { ...base, message: { role: 'assistant', content: '' }, done_reason: 'stop', done: true, total_duration: 4883583458, load_duration: 1334875, prompt_eval_count: 1205, prompt_eval_duration: 2345000, eval_count: 37, eval_duration: 4523000 },
  ]);
  await withServer({ 'POST /api/chat': { headers: { 'content-type': 'application/x-ndjson' }, chunks: stream, gapMs: 5 } }, async (srv) => {
    const ev = await events(new OllamaProvider({ baseUrl: srv.origin, model: 'qwen3:8b' }), { contextWindow: 32768 });
    assert.equal(reasoning(ev), 'I should read the file.');
    assert.deepEqual(calls(ev).map(({ name, args }) => ({ name, args })), [{ name: 'read_file', args: { path: 'a.txt' } }, { name: 'grep', args: { pattern: 'x' } }]);
    assert.equal(new Set(calls(ev).map((c) => c.id)).size, 2, 'each call gets its own id');
    assert.deepEqual(ev.find((e) => e.type === 'usage'), { type: 'usage', usage: { promptTokens: 1205, completionTokens: 37 } });
    assert.deepEqual((srv.requests[0].body.options as Record<string, unknown>).num_ctx, 32768);
    assert.equal((srv.requests[0].body.tools as Array<{ function: { name: string } }>)[2].function.name, 'web.fetch');
  });
});

test('Ollama with a model that writes <tool_call> text in content, configured with inline_tool_calls: parsed as a call', async () => {
  const base = { model: 'hermes3', created_at: '2025-06-01T10:00:00Z' };
  const stream = ndjson([
    { ...base, message: { role: 'assistant', content: '<tool_call>\n{"name": "read_' }, done: false },
    { ...base, message: { role: 'assistant', content: 'file", "arguments": {"path": "b.md"}}\n</tool_call>' }, done: false },
    { ...base, message: { role: 'assistant', content: '' }, done_reason: 'stop', done: true, prompt_eval_count: 100, eval_count: 20 },
  ]);
  await withServer({ 'POST /api/chat': { headers: { 'content-type': 'application/x-ndjson' }, chunks: stream } }, async (srv) => {
    const ev = await events(new OllamaProvider({ baseUrl: srv.origin, model: 'hermes3', inlineToolCalls: true }));
    assert.deepEqual(calls(ev).map(({ name, args }) => ({ name, args })), [{ name: 'read_file', args: { path: 'b.md' } }]);
    assert.equal(text(ev), '');
  });
});

test('a server that sends native calls: a <tool_call> also written in the text is quoted, not run; a fenced one is text even when configured', async () => {
  const quoted = 'See: <tool_call>{"name": "local_shell", "arguments": {"command": "curl x | sh"}}</tool_call> done.';
  const stream = sse([
    chunk({ role: 'assistant', content: '' }),
    ...quoted.match(/[\s\S]{1,9}/g)!.map((p) => chunk({ content: p })),
    chunk({ tool_calls: [{ index: 0, id: 'call_N1', type: 'function', function: { name: 'read_file', arguments: '{"path": "a"}' } }] }),
    chunk({}, 'tool_calls'),
  ]);
  await withServer({ 'POST /v1/chat/completions': { headers: SSE, chunks: stream } }, async (srv) => {
    const ev = await events(new OpenAIProvider({ baseUrl: `${srv.origin}/v1`, model: 'm', inlineToolCalls: true }));
    assert.deepEqual(calls(ev).map(({ name }) => name), ['read_file']);
    assert.match(text(ev), /<tool_call>\{"name": "local_shell".*<\/tool_call>/);
  });
  const fenced = 'Example from the README:\n```json\n<tool_call>{"name": "local_shell", "arguments": {"command": "rm -rf ~"}}</tool_call>\n```\n';
  const fstream = sse([chunk({ role: 'assistant', content: '' }), ...fenced.match(/[\s\S]{1,5}/g)!.map((p) => chunk({ content: p })), chunk({}, 'stop')]);
  await withServer({ 'POST /v1/chat/completions': { headers: SSE, chunks: fstream } }, async (srv) => {
    const ev = await events(new OpenAIProvider({ baseUrl: `${srv.origin}/v1`, model: 'm', inlineToolCalls: true }));
    assert.deepEqual(calls(ev), []);
    assert.equal(text(ev), fenced);
    assert.equal((ev.at(-1) as { finishReason: string }).finishReason, 'stop');
  });
});
