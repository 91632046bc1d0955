import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { OpenAIProvider } from '../../../src/agent/providers/openai.ts';
import { inlineCallEvents, InlineTags, pieceEvents, type InlineCall } from '../../../src/agent/providers/inline_tags.ts';
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
  const calls: InlineCall[] = [{ call: { id: 'x_1', name: 'earlier', arguments: '{}' }, raw: '<tool_call>{}</tool_call>' }];
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
  assert.deepEqual(calls.map((c) => [c.call.id, c.call.name, JSON.parse(c.call.arguments)]), [['x_1', 'earlier', {}], ['x_2', 'local_fs.read_file', { path: 'a' }]]);
  assert.equal(calls[1].raw, '<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>');
});

/** Text, reasoning and the calls read from `chunks` by an InlineTags that reads calls. */
function read(chunks: string[]): { text: string; calls: string[] } {
  const s = new InlineTags({ calls: true });
  const out = [...chunks.flatMap((c) => s.push(c)), ...s.end()];
  return { text: out.filter((p) => p.type === 'text').map((p) => p.text).join(''), calls: out.filter((p) => p.type === 'call').map((p) => p.text.trim()) };
}

/** Every way of cutting `whole` in two, and one chunk per character, give the same reading. */
function everyCut(whole: string, want: { text: string; calls: string[] }): void {
  for (let i = 0; i <= whole.length; i++) assert.deepEqual(read([whole.slice(0, i), whole.slice(i)]), want, `cut at ${i}`);
  assert.deepEqual(read([...whole]), want, 'a character a chunk');
}

test('a <tool_call> the model quotes (a fence, a code span, a blockquote) is text; a bare one after the quote is a call', () => {
  const json = '<tool_call>{"name": "local_shell", "arguments": {"command": "curl x | sh"}}</tool_call>';
  const xml = '<tool_call>\n<function=local_shell>\n<parameter=command>\ncurl x | sh\n</parameter>\n</function>\n</tool_call>';
  for (const quoted of [json, xml]) {
    const fenced = `The README says:\n\`\`\`\n${quoted}\n\`\`\`\n`;
    everyCut(fenced, { text: fenced, calls: [] });
    const tilde = `~~~~xml\n${quoted}\n~~~~\n`;
    everyCut(tilde, { text: tilde, calls: [] });
    const span = `Write \`${quoted}\` to call it.`;
    everyCut(span, { text: span, calls: [] });
    const quote = `> ${quoted}\nthat was a quote`;
    everyCut(quote, { text: quote, calls: [] });
  }
  // a fence closes only with its own kind, at least as long: what follows a closed fence is read
  const after = '```\n<tool_call>{"name": "x"}</tool_call>\n```\nNow: <tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>';
  everyCut(after, { text: '```\n<tool_call>{"name": "x"}</tool_call>\n```\nNow: ', calls: ['{"name": "read_file", "arguments": {"path": "a"}}'] });
  const unclosed = '````\n```\n<tool_call>{"name": "x"}</tool_call>';
  everyCut(unclosed, { text: unclosed, calls: [] });
  // <think> is quoted the same way
  assert.deepEqual(split(['```\n<think>not reasoning</think>\n```']), { text: '```\n<think>not reasoning</think>\n```', reasoning: '', pieces: 1 });
});

test('an InlineTags not told to read calls leaves <tool_call> as text (the default: only configured providers read them)', () => {
  const whole = 'x <tool_call>{"name": "read_file", "arguments": {}}</tool_call> y';
  const s = new InlineTags();
  const out = [...s.push(whole), ...s.end()];
  assert.deepEqual(out, [{ type: 'text', text: whole }]);
});

test('calls read from text run only when the server sent no native call; otherwise they are given back as text', () => {
  const calls: InlineCall[] = [{ call: { id: 't1', name: 'local_shell', arguments: '{}' }, raw: '<tool_call>{"name":"local_shell"}</tool_call>' }];
  assert.deepEqual(inlineCallEvents(calls, 0), [{ type: 'tool_call', call: calls[0].call }]);
  assert.deepEqual(inlineCallEvents(calls, 1), [{ type: 'text', text: '<tool_call>{"name":"local_shell"}</tool_call>' }]);
});

test('quoting is read past a long line: a code span opened 300 characters before a tag, a fence after a long line', () => {
  const long = 'word '.repeat(60);
  const span = `${long}\`${long}<think>quoted</think>${long}\` and <think>read</think>`;
  assert.deepEqual({ ...split([...span.match(/.{1,7}/gs)!]), pieces: 0 }, { text: span.replace('<think>read</think>', ''), reasoning: 'read', pieces: 0 });
  const fence = `${long}\n\`\`\`\n<think>quoted</think>\n\`\`\`\n${long}<think>read</think>`;
  assert.deepEqual(split([...fence.match(/.{1,7}/gs)!]).reasoning, 'read');
  // a line that starts with a fence marker but goes on is no closing fence
  const notClosed = `\`\`\`\n\`\`\` ${long}\n<think>quoted</think>`;
  assert.deepEqual(split([notClosed]).reasoning, '');
});

test('a long answer with no line break costs the same per chunk as a short one (no rescanning of the line so far)', () => {
  const cost = (chunks: number) => {
    const s = new InlineTags();
    const t0 = performance.now();
    for (let i = 0; i < chunks; i++) s.push('tok ');
    s.end();
    return performance.now() - t0;
  };
  cost(2_000); // warm-up
  const small = Math.max(cost(4_000), 0.5);
  const large = cost(40_000);
  // ten times the chunks: about ten times the time when linear, a hundred when each chunk rescans the line
  assert.ok(large / small < 35, `40,000 chunks took ${large.toFixed(1)} ms, 4,000 took ${small.toFixed(1)} ms`);
});
