// Where the context window comes from: the flag, the server (Ollama /api/show, llama.cpp /props,
// vLLM's max_model_len in /v1/models), context_window in config, or the default; and Ollama's
// silent truncation, noticed from prompt_eval_count far below what was sent.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { SessionContext } from '../../../src/agent/context/session_context.ts';
import { TokenMeter } from '../../../src/agent/context/tokens.ts';
import { DEFAULT_CONTEXT_WINDOW, findWindow, OLLAMA_AUTO_MAX, parseWindow } from '../../../src/agent/context/window.ts';
import { OllamaProvider } from '../../../src/agent/providers/ollama.ts';
import { OpenAIProvider } from '../../../src/agent/providers/openai.ts';
import { agentSetup } from '../../../src/agent/setup.ts';
import { runTurn } from '../../../src/agent/loop/turn.ts';
import { startFakeOllama } from '../../fixtures/fake_models.ts';
import { startReplay } from '../../fixtures/replay_server.ts';

const cleanups: Array<() => unknown> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function replay(routes: Parameters<typeof startReplay>[0]) {
  const srv = await startReplay(routes);
  cleanups.push(() => srv.close());
  return srv;
}

const SHOW = { 'POST /api/show': { chunks: [JSON.stringify({ modelfile: '…', parameters: 'stop "<|im_end|>"', details: { family: 'qwen3' }, model_info: { 'general.architecture': 'qwen3', 'qwen3.block_count': 36, 'qwen3.context_length': 40960 } })] } };

test('the server says: Ollama /api/show (capped), llama.cpp /props, vLLM /v1/models max_model_len', async () => {
  const ollama = await replay(SHOW);
  const w = await findWindow(new OllamaProvider({ baseUrl: ollama.origin, model: 'qwen3:8b' }), {});
  assert.equal(w.tokens, OLLAMA_AUTO_MAX);
  assert.match(w.source, /\/api\/show qwen3\.context_length = 40960, capped at 32768/);
  assert.deepEqual(ollama.requests[0].body, { model: 'qwen3:8b' });
  const small = await replay({ 'POST /api/show': { chunks: [JSON.stringify({ model_info: { 'llama.context_length': 8192 } })] } });
  assert.equal((await findWindow(new OllamaProvider({ baseUrl: small.origin, model: 'llama3' }), {})).tokens, 8192);

  const llama = await replay({ 'GET /props': { chunks: [JSON.stringify({ default_generation_settings: { n_ctx: 16384, params: {} }, total_slots: 1, model_path: '/m/qwen.gguf' })] } });
  const lw = await findWindow(new OpenAIProvider({ baseUrl: `${llama.origin}/v1`, model: 'x' }), {});
  assert.deepEqual(lw, { tokens: 16384, source: `${llama.origin}/props n_ctx` });

  const vllm = await replay({ 'GET /v1/models': { chunks: [JSON.stringify({ object: 'list', data: [{ id: 'other', max_model_len: 4096 }, { id: 'Qwen/Qwen3-8B', object: 'model', owned_by: 'vllm', max_model_len: 40960 }] })] } });
  const vw = await findWindow(new OpenAIProvider({ baseUrl: `${vllm.origin}/v1`, model: 'Qwen/Qwen3-8B' }), {});
  assert.equal(vw.tokens, 40960, 'no cap for a server that runs the window it reports');
  assert.match(vw.source, /max_model_len/);
});

test('the flag overrides; config lowers the server\'s figure and fills in when the server is silent; else the default', async () => {
  const ollama = await replay(SHOW);
  const p = new OllamaProvider({ baseUrl: ollama.origin, model: 'qwen3:8b' });
  assert.deepEqual(await findWindow(p, { flag: 65536, config: { tokens: 4096, source: 'c' } }), { tokens: 65536, source: '--context-window' });
  assert.equal((await findWindow(p, { config: { tokens: 12288, source: 'context_window in x.toml' } })).tokens, 12288);
  assert.equal((await findWindow(p, { config: { tokens: 100_000, source: 'c' } })).tokens, 40960, 'no more than the server allows');
  const silent = await replay({});
  const s = new OpenAIProvider({ baseUrl: `${silent.origin}/v1`, model: 'm' });
  assert.deepEqual(await findWindow(s, { config: { tokens: 24576, source: 'context_window in a.toml' } }), { tokens: 24576, source: 'context_window in a.toml' });
  const d = await findWindow(s, {});
  assert.equal(d.tokens, DEFAULT_CONTEXT_WINDOW);
  assert.match(d.source, /^default .*did not say \(or did not answer\); set context_window or --context-window/);
  assert.equal(parseWindow('32k'), 32768);
  assert.equal(parseWindow('100'), undefined);
  assert.equal(parseWindow('12.5'), undefined);
});

test('agentSetup: context_window from [agents.<name>] with its source, and --context-window', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cxl-window-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, '.contenox'));
  writeFileSync(path.join(dir, '.contenox', 'agents.toml'), 'default_agent = "local"\n[agents.local]\ncontext_window = "20k"\nfirst_byte_timeout = "90s"\n');
  const silent = await replay({});
  const env = { HOME: dir, OPENAI_BASE_URL: `${silent.origin}/v1` };
  const a = await agentSetup({ cwd: dir, env, provider: 'openai', model: 'm', command: 'cxl run' });
  const w = await a.window();
  assert.equal(w.tokens, 20480);
  assert.match(w.source, /context_window in .*agents\.toml \[agents\.local\]/);
  assert.equal(a.http.timeouts.firstByteMs, 90_000);
  const b = await agentSetup({ cwd: dir, env, provider: 'openai', model: 'm', contextWindow: '4096', firstByteTimeout: '5s', command: 'cxl run' });
  assert.equal((await b.window()).tokens, 4096);
  assert.equal(b.http.timeouts.firstByteMs, 5000);
  await assert.rejects(agentSetup({ cwd: dir, env, provider: 'openai', model: 'm', contextWindow: 'lots', command: 'cxl run' }), /--context-window "lots" is not a window size/);
  await assert.rejects(agentSetup({ cwd: dir, env, provider: 'openai', model: 'm', idleTimeout: 'soon', command: 'cxl run' }), /--idle-timeout "soon" is not a duration/);
});

test('Ollama read far less than was sent: said once, and the next request is compacted to what it holds', async () => {
  // a server that, like Ollama past num_ctx, only ever reads its last 2,000 tokens
  const srv = await startFakeOllama(() => ({ text: 'ok' }), { tokens: () => 2000 });
  cleanups.push(() => srv.close());
  const warnings: string[] = [];
  const compactions: number[] = [];
  const provider = new OllamaProvider({ baseUrl: srv.url, model: 'qwen3:8b' });
  const ctx = new SessionContext({
    provider,
    window: async () => ({ tokens: 32768, source: 'test' }),
    meter: new TokenMeter(),
    forget: () => {},
    onUsage: () => {},
    onWarning: (t) => void warnings.push(t),
    onCompaction: (phase, r) => void (phase === 'completed' && compactions.push(r.tokensAfter)),
  });
  const history = [
    { role: 'system' as const, content: 'sys' },
    { role: 'user' as const, content: 'look' },
    { role: 'assistant' as const, content: '', toolCalls: [{ id: 'a', name: 'read_file', arguments: '{"path":"a"}' }] },
    { role: 'tool' as const, toolCallId: 'a', name: 'read_file', content: 'y'.repeat(40_000) },
    { role: 'user' as const, content: 'and?' },
  ];
  const turn = () => runTurn({ provider, history, tools: () => [], runTool: async () => '', onText: async () => {}, onThought: async () => {}, signal: new AbortController().signal, maxTurns: 1, context: ctx });
  await turn();
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /ollama read only 2,000 tokens of a prompt of about 12,0\d\d/);
  assert.match(warnings[0], /cut the front of the conversation \(the system prompt and tool definitions go first\)/);
  assert.equal((srv.requests[0].options as Record<string, number>).num_ctx, 32768);
  history.push({ role: 'user', content: 'again' });
  await turn();
  assert.equal(compactions.length, 1, 'the next request was compacted');
  assert.ok(compactions[0] <= 2000, `after: ${compactions[0]}`);
  assert.equal((srv.requests[1].options as Record<string, number>).num_ctx, 2000, 'and sized to what the server really read');
  assert.equal(warnings.length, 1, 'said once');
});
