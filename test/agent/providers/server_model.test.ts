// OPENAI_BASE_URL alone (no --model, no OPENAI_MODEL, nothing configured): the model is the one
// the server lists at /v1/models; several are listed back for the user to choose; and `cxl config`
// names that same model at its head and its foot. Real HTTP servers on 127.0.0.1.
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { selectProvider } from '../../../src/agent/providers/select.ts';
import { OpenAIProvider } from '../../../src/agent/providers/openai.ts';
import { startFakeOpenAI } from '../../fixtures/fake_models.ts';
import { runCxl } from '../../helpers/cxl.ts';

async function collect(p: OpenAIProvider): Promise<string> {
  let text = '';
  for await (const ev of p.chat({ messages: [{ role: 'user', content: 'hi' }], tools: [], signal: new AbortController().signal })) if (ev.type === 'text') text += ev.text;
  return text;
}

test('only OPENAI_BASE_URL: the one model the server lists is used', async () => {
  const srv = await startFakeOpenAI([{ text: 'hello' }], { models: [{ id: 'qwen2.5-coder-7b' }] });
  try {
    const p = selectProvider({}, {}, { OPENAI_BASE_URL: srv.url }) as OpenAIProvider;
    assert.equal(p.model, "the server's model", 'not a made-up default');
    assert.equal(await collect(p), 'hello');
    assert.equal(srv.requests[0].model, 'qwen2.5-coder-7b');
    assert.equal(p.model, 'qwen2.5-coder-7b');
    // api.openai.com keeps its default, and a model named anywhere wins
    assert.equal(selectProvider({ provider: 'openai' }, {}, {}).model, 'gpt-4o-mini');
    assert.equal(selectProvider({}, {}, { OPENAI_BASE_URL: srv.url, OPENAI_MODEL: 'x' }).model, 'x');
  } finally {
    await srv.close();
  }
});

test('several models on the server: they are listed, with how to choose one', async () => {
  const srv = await startFakeOpenAI([{ text: 'never' }], { models: [{ id: 'a-7b' }, { id: 'b-14b' }] });
  try {
    const p = selectProvider({}, {}, { OPENAI_BASE_URL: srv.url }) as OpenAIProvider;
    await assert.rejects(collect(p), /has several models: a-7b, b-14b\. Choose one with --model NAME/);
    assert.equal(srv.requests.length, 0, 'no chat request with a guessed model');
  } finally {
    await srv.close();
  }
});

test('cxl config: the head and the foot name the same model', async () => {
  const srv = await startFakeOpenAI([], { models: [{ id: 'only-model' }] });
  const home = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-cfg-')));
  try {
    const r = await runCxl(['config'], { cwd: home, env: { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), OPENAI_BASE_URL: srv.url, OPENAI_MODEL: '', OLLAMA_HOST: '' } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`# model: openai only-model at ${srv.url}`));
    assert.doesNotMatch(r.stdout, /qwen3:8b|gpt-4o-mini|ollama/, 'no other model named anywhere');
  } finally {
    await srv.close();
    rmSync(home, { recursive: true, force: true });
  }
});
