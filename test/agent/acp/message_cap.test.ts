// message_cap.ts: a line over the cap is cut out of the client's stream and replaced by what the
// SDK should see (the error answer to the request it answered), whatever the chunking; every
// other line passes unchanged. The end-to-end case (a 40 MB answer to `cxl acp`) is in big_files.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capMessages } from '../../../src/agent/acp/message_cap.ts';

async function run(text: string, chunk: number, maxBytes = 64): Promise<{ out: string; answers: unknown[]; logs: string[] }> {
  const bytes = new TextEncoder().encode(text);
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < bytes.length; i += chunk) c.enqueue(bytes.slice(i, i + chunk));
      c.close();
    },
  });
  const answers: unknown[] = [];
  const logs: string[] = [];
  const reader = capMessages(input, { maxBytes, answer: (m) => answers.push(m), log: (l) => logs.push(l) }).getReader();
  let out = '';
  const dec = new TextDecoder();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    out += dec.decode(value, { stream: true });
  }
  return { out, answers, logs };
}

const big = 'x'.repeat(500);
const small = '{"jsonrpc":"2.0","id":1,"result":{}}';

test('lines within the cap pass unchanged, at any chunking', async () => {
  const text = `${small}\n{"jsonrpc":"2.0","method":"n","params":{}}\n${small}`;
  for (const chunk of [1, 3, 7, 64, 1000]) assert.equal((await run(text, chunk)).out, text);
});

test('an oversized answer becomes the error answer to its request, id at the head or the tail', async () => {
  for (const chunk of [1, 13, 4096]) {
    for (const line of [`{"jsonrpc":"2.0","id":7,"result":{"content":"${big}"}}`, `{"jsonrpc":"2.0","result":{"content":"${big}"},"id":"r-7"}`]) {
      const { out, logs } = await run(`${small}\n${line}\n${small}\n`, chunk);
      const lines = out.trimEnd().split('\n');
      assert.equal(lines.length, 3);
      assert.equal(lines[0], small);
      assert.equal(lines[2], small);
      const err = JSON.parse(lines[1]) as { id: unknown; error: { message: string; data: { code: string } } };
      assert.equal(err.id, line.includes('"r-7"') ? 'r-7' : 7);
      assert.equal(err.error.data.code, 'too_large');
      assert.match(err.error.message, /The client's answer was \d+ bytes/);
      assert.equal(logs.length, 1);
    }
  }
});

test('an oversized request from the client is answered with an error; a notification is dropped', async () => {
  const { out, answers, logs } = await run(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"t":"${big}"}}\n{"jsonrpc":"2.0","method":"session/cancel","params":{"t":"${big}"}}\n${small}\n`, 17);
  assert.equal(out, `${small}\n`);
  assert.deepEqual((answers[0] as { id: number }).id, 3);
  assert.match((answers[0] as { error: { message: string } }).error.message, /The session\/prompt request was \d+ bytes/);
  assert.equal(answers.length, 1);
  assert.equal(logs.length, 2);
});
