import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OpenAIProvider } from '../../../src/agent/providers/openai.ts';
import { InlineTags, pieceEvents } from '../../../src/agent/providers/inline_tags.ts';
import type { ModelToolCall } from '../../../src/agent/providers/types.ts';
import { startFakeOpenAI } from '../../fixtures/fake_models.ts';

function split(chunks: string[]): { text: string; reasoning: string; pieces: number } {
  const s = new InlineTags();
  const out = [...chunks.flatMap((c) => s.push(c)), ...s.end()];
  return {
    text: out.filter((p) => p.type === 'text').map((p) => p.text).join(''),
    reasoning: out.filter((p) => p.type === 'reasoning').map((p) => p.text).join(''),
    pieces: out.length,
  };
}

test('inline <think> blocks become reasoning, wherever the chunks cut the tags', () => {
  const whole = '<think>weigh the options</think>The answer is 4.';
  // every way of cutting the string in two, and one chunk per character
  for (let i = 0; i <= whole.length; i++) {
    assert.deepEqual({ ...split([whole.slice(0, i), whole.slice(i)]), pieces: 0 }, { text: 'The answer is 4.', reasoning: 'weigh the options', pieces: 0 }, `cut at ${i}`);
  }
  assert.deepEqual({ ...split([...whole]), pieces: 0 }, { text: 'The answer is 4.', reasoning: 'weigh the options', pieces: 0 });
  // text that only looks like the start of a tag is kept, in order
  assert.equal(split(['a <', 'b and <thi', 'ng>']).text, 'a <b and <thing>');
  assert.equal(split(['ends with <thi']).text, 'ends with <thi');
  // an unclosed block at the end of the stream is reasoning
  assert.deepEqual({ ...split(['<think>never closed']), pieces: 0 }, { text: '', reasoning: 'never closed', pieces: 0 });
});

test('an OpenAI-compatible stream with inline thinking yields reasoning events', async () => {
  const srv = await startFakeOpenAI([{ text: '<think>plan it first</think>Done.' }]);
  try {
    const p = new OpenAIProvider({ baseUrl: srv.url, model: 'qwen3' });
    const ev: Array<{ type: string; text?: string }> = [];
    for await (const e of p.chat({ messages: [{ role: 'user', content: 'x' }], tools: [] })) ev.push(e);
    assert.equal(ev.filter((e) => e.type === 'reasoning').map((e) => e.text).join(''), 'plan it first');
    assert.equal(ev.filter((e) => e.type === 'text').map((e) => e.text).join(''), 'Done.');
  } finally {
    await srv.close();
  }
});

test('pieceEvents: text and reasoning pass, a call that parses joins the calls (numbered, its name mapped), one that does not comes back as text', () => {
  const calls: ModelToolCall[] = [{ id: 'x_1', name: 'earlier', arguments: '{}' }];
  const events = pieceEvents(
    [
      { type: 'reasoning', text: 'hm' },
      { type: 'text', text: 'Look: ' },
      { type: 'call', text: '{"name": "read_file", "arguments": {"path": "a"}}' },
      { type: 'call', text: 'not a call' },
    ],
    calls,
    'x_',
    (n) => `local_fs.${n}`,
  );
  assert.deepEqual(events, [{ type: 'reasoning', text: 'hm' }, { type: 'text', text: 'Look: ' }, { type: 'text', text: '<tool_call>not a call</tool_call>' }]);
  assert.deepEqual(calls.map((c) => [c.id, c.name, JSON.parse(c.arguments)]), [['x_1', 'earlier', {}], ['x_2', 'local_fs.read_file', { path: 'a' }]]);
});
