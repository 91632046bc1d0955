// The streamed body as lines: how a chunk boundary falls must not change a line, and a provider
// stops reading at its end marker, whether more follows in the same chunk or in a later one.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { test } from 'node:test';
import { lineBatches } from '../../../src/agent/providers/http.ts';
import { OllamaProvider } from '../../../src/agent/providers/ollama.ts';
import { OpenAIProvider } from '../../../src/agent/providers/openai.ts';
import type { ChatEvent, Provider } from '../../../src/agent/providers/types.ts';

async function* chunksOf(parts: Array<string | number[]>): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield typeof p === 'string' ? new TextEncoder().encode(p) : new Uint8Array(p);
}

async function batches(parts: Array<string | number[]>): Promise<string[][]> {
  const out: string[][] = [];
  for await (const b of lineBatches(chunksOf(parts))) out.push(b);
  return out;
}

test('lines cut anywhere by chunks come out whole: a CR apart from its LF, a character split in two, a last line without newline', async () => {
  // é is C3 A9: the two bytes arrive in different chunks
  const got = await batches(['data: a\r', '\nda', [0x74, 0x61, 0x3a, 0x20, 0xc3], [0xa9, 0x0a], '\n', 'x\r\ny', 'z']);
  assert.deepEqual(got.flat(), ['data: a', 'data: é', '', 'x', 'yz']);
  assert.ok(got.every((b) => b.length > 0), 'no empty batch');
  // a chunk that completes no line yields nothing; one completing several yields them together
  assert.deepEqual(await batches(['a', 'b\nc\nd\n', 'e']), [['ab', 'c', 'd'], ['e']]);
  assert.deepEqual(await batches(['\n\n']), [['', '']]);
  assert.deepEqual(await batches([]), []);
});

/** Answers with `body` in one write (the end marker and what follows it in one chunk), then `later` in another. */
async function serve(contentType: string, body: string, later: string): Promise<{ url: string; close(): Promise<void> }> {
  const srv: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': contentType });
      res.write(body);
      setTimeout(() => res.end(later), 50);
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const addr = srv.address() as { port: number };
  return { url: `http://127.0.0.1:${addr.port}`, close: () => new Promise<void>((r) => srv.close(() => r())) };
}

async function collect(p: Provider): Promise<ChatEvent[]> {
  const out: ChatEvent[] = [];
  for await (const e of p.chat({ messages: [{ role: 'user', content: 'hi' }], tools: [] })) out.push(e);
  return out;
}

test('openai: nothing after data: [DONE] is read, in its chunk or later', async () => {
  const ev = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
  const srv = await serve('text/event-stream', `${ev('hel')}${ev('lo')}data: [DONE]\n\ndata: {not json\n\n`, 'data: {not json either\n\n');
  try {
    const got = await collect(new OpenAIProvider({ baseUrl: `${srv.url}/v1`, apiKey: 'k', model: 'm' }));
    assert.equal(got.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text).join(''), 'hello');
    assert.deepEqual(got.at(-1), { type: 'done', finishReason: 'stop' });
  } finally {
    await srv.close();
  }
});

test('ollama: nothing after the done line is read, in its chunk or later', async () => {
  const body = `${JSON.stringify({ message: { role: 'assistant', content: 'hel' }, done: false })}\n${JSON.stringify({ message: { role: 'assistant', content: 'lo' }, done: false })}\n${JSON.stringify({ done: true, done_reason: 'stop', prompt_eval_count: 3, eval_count: 2 })}\n{not json\n`;
  const srv = await serve('application/x-ndjson', body, '{not json either\n');
  try {
    const got = await collect(new OllamaProvider({ baseUrl: srv.url, model: 'm' }));
    assert.equal(got.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text).join(''), 'hello');
    assert.deepEqual(got.find((e) => e.type === 'usage'), { type: 'usage', usage: { promptTokens: 3, completionTokens: 2 } });
    assert.equal(got.at(-1)?.type, 'done');
  } finally {
    await srv.close();
  }
});
