import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_TIMEOUTS } from '../../../src/agent/providers/http.ts';
import { OpenAIProvider } from '../../../src/agent/providers/openai.ts';
import type { ChatMessage, ModelToolCall } from '../../../src/agent/providers/types.ts';
import { runTurn } from '../../../src/agent/loop/turn.ts';
import { startFakeOpenAI } from '../../fixtures/fake_models.ts';

const tools = [{ name: 'read_file', description: 'read', parameters: { type: 'object', properties: { path: { type: 'string' } } } }];

async function turn(script: Parameters<typeof startFakeOpenAI>[0], runTool: (c: ModelToolCall) => Promise<string>, opts: { maxTurns?: number; signal?: AbortSignal } = {}) {
  const srv = await startFakeOpenAI(script);
  const history: ChatMessage[] = [{ role: 'user', content: 'go' }];
  const text: string[] = [];
  const thoughts: string[] = [];
  try {
    const res = await runTurn({
      provider: new OpenAIProvider({ baseUrl: srv.url, model: 'm', http: { timeouts: DEFAULT_TIMEOUTS, retry: { retries: 3, baseMs: 5, maxWaitS: 1 } } }),
      history,
      tools: () => tools,
      runTool,
      onText: async (t) => void text.push(t),
      onThought: async (t) => void thoughts.push(t),
      signal: opts.signal ?? new AbortController().signal,
      maxTurns: opts.maxTurns ?? 5,
    });
    return { res, history, text: text.join(''), thoughts: thoughts.join(''), requests: srv.requests };
  } finally {
    await srv.close();
  }
}

test('a tool call is run and its result goes back to the model in the next request', async () => {
  const seen: ModelToolCall[] = [];
  const r = await turn(
    [{ toolCalls: [{ name: 'read_file', arguments: { path: 'a' } }] }, { reasoning: 'done now', text: 'The file says hi.' }],
    async (c) => {
      seen.push(c);
      return 'hi';
    },
  );
  assert.equal(r.res.stopReason, 'end_turn');
  assert.equal(seen.length, 1);
  assert.equal(r.text, 'The file says hi.');
  assert.equal(r.thoughts, 'done now');
  const second = r.requests[1].messages as Array<Record<string, unknown>>;
  const toolMsg = second.find((m) => m.role === 'tool');
  assert.equal(toolMsg?.content, 'hi');
  assert.equal(toolMsg?.tool_call_id, seen[0].id);
  assert.deepEqual(r.history.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);
});

test('a model that keeps calling tools ends with max_turn_requests', async () => {
  let calls = 0;
  const r = await turn(() => ({ toolCalls: [{ name: 'read_file', arguments: { path: 'a' } }] }), async () => `r${++calls}`, { maxTurns: 3 });
  assert.equal(r.res.stopReason, 'max_turn_requests');
  assert.equal(calls, 3);
  assert.equal(r.requests.length, 3);
});

test('finish_reason length ends with max_tokens', async () => {
  const r = await turn([{ text: 'cut off', finish: 'length' }], async () => '');
  assert.equal(r.res.stopReason, 'max_tokens');
});

test('a short Retry-After is waited out; a long one ends the turn with the error', async () => {
  const r = await turn([{ status: 429, headers: { 'retry-after': '0' } }, { text: 'ok' }], async () => '');
  assert.equal(r.res.stopReason, 'end_turn');
  assert.equal(r.text, 'ok');
  assert.equal(r.requests.length, 2);
  const long = await turn([{ status: 429, headers: { 'retry-after': '3600' } }], async () => '');
  assert.equal(long.res.error?.kind, 'rate_limited');
  assert.equal(long.requests.length, 1);
});

test('a dropped stream ends the turn with bad_stream and keeps the partial text in history', async () => {
  const r = await turn([{ drop: true, text: 'half an ans' }], async () => '');
  assert.equal(r.res.error?.kind, 'bad_stream');
  assert.equal(r.text, 'half an ans');
  assert.equal(r.history.at(-1)?.role, 'assistant');
});

test('cancel during a tool call ends the turn as cancelled without another model request', async () => {
  const ctrl = new AbortController();
  const r = await turn(
    () => ({ toolCalls: [{ name: 'read_file', arguments: {} }, { name: 'read_file', arguments: {} }] }),
    async () => {
      ctrl.abort();
      return 'partial';
    },
    { signal: ctrl.signal },
  );
  assert.equal(r.res.stopReason, 'cancelled');
  assert.equal(r.requests.length, 1);
  // both calls are answered so the history stays well formed for the next prompt
  assert.equal(r.history.filter((m) => m.role === 'tool').length, 2);
});
