// The model check as a session opens, against the real `cxl acp` child process and scripted model
// servers on 127.0.0.1: a server that answers with several models is "pick one" (the list, how to
// pick, `_meta["cxl/model"].pick`), not "unreachable" with Ollama advice; a prompt meanwhile says so
// in one line; a model chosen with set_config_option clears it, and its own context window is read
// (the usage is reported against 16k after 32k).
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type * as acp from '@agentclientprotocol/sdk';
import { META_MODEL } from '../../../src/core/protocol_names.ts';
import { startFakeOllama, startFakeOpenAI, type FakeServer } from '../../fixtures/fake_models.ts';
import { Harness } from './harness.ts';

const cleanups: Array<() => unknown> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function open(srv: FakeServer, args: string[], env: Record<string, string | undefined>): Promise<{ h: Harness; sessionId: string; dir: string }> {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-acp-models-')));
  const h = new Harness({ args, env: { HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), ...env }, session: { notices: {} } });
  cleanups.push(async () => {
    await h.stop();
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await h.start();
  const { sessionId } = await h.newSession(dir);
  return { h, sessionId, dir };
}

type Upd = acp.SessionUpdate & { title?: string; description?: string; _meta?: Record<string, unknown>; used?: number; size?: number };
const updates = (h: Harness) => h.updates.map((u) => u.update as Upd);

async function until<T>(f: () => T | undefined, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('OpenAI-compatible server with two models and none named: pick one, then the chosen one answers with its own window', async () => {
  const srv = await startFakeOpenAI(() => ({ text: 'ok' }), { models: [{ id: 'small-16k', max_model_len: 16384 }, { id: 'big-32k', max_model_len: 32768 }] });
  const { h, sessionId } = await open(srv, ['--provider', 'openai'], { OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k' });
  const pick = await until(() => updates(h).find((u) => u.sessionUpdate === 'session_info_update' && u._meta?.[META_MODEL]), 'the model check');
  assert.deepEqual(pick._meta?.[META_MODEL], { reachable: true, pick: ['small-16k', 'big-32k'], problem: `the server at ${srv.url} offers 2 models and none is chosen` });
  const notice = updates(h).find((u) => u.sessionUpdate === 'notice')!;
  assert.match(notice.title ?? '', /^Pick a model: /);
  assert.match(notice.description ?? '', /Its models: small-16k, big-32k\.\nPick one with \/model/);
  assert.doesNotMatch(JSON.stringify(updates(h)), /No model is reachable|ollama serve/);
  const option = updates(h).filter((u) => u.sessionUpdate === 'config_option_update').at(-1) as { configOptions: acp.SessionConfigOption[] };
  const model = option.configOptions.find((o) => o.id === 'model') as Extract<acp.SessionConfigOption, { type: 'select' }>;
  assert.equal(model.currentValue, '', 'none chosen');
  assert.deepEqual(model.options.map((o) => ('value' in o ? o.value : '')), ['small-16k', 'big-32k']);

  // a prompt before one is chosen: one line, no advice again
  await h.prompt(sessionId, 'hello?');
  assert.match(h.messageText(), /^No model is chosen: pick one with \/model \(small-16k, big-32k\), then send the prompt again\.\n$/);
  assert.equal(srv.requests.length, 0);

  // big, answered, then small: the usage is against each one's window
  await h.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'big-32k' });
  await until(() => updates(h).find((u) => u.sessionUpdate === 'session_info_update' && (u._meta?.[META_MODEL] as { reachable?: boolean; pick?: unknown } | undefined)?.reachable === true && !(u._meta?.[META_MODEL] as { pick?: unknown }).pick), 'the model answering');
  await h.prompt(sessionId, 'hi');
  assert.equal(srv.requests.at(-1)?.model, 'big-32k');
  const u32 = updates(h).filter((u) => u.sessionUpdate === 'usage_update').at(-1)!;
  assert.equal(u32.size, 32768);
  await h.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'small-16k' });
  const u16 = await until(() => updates(h).filter((u) => u.sessionUpdate === 'usage_update').find((u) => u.size === 16384), 'the usage against 16k');
  assert.equal(u16.used, u32.used, 'the same use, against the new window');
});

test('Ollama without the configured model but with others: pick one, and a prompt says the server has no such model', async () => {
  const srv = await startFakeOllama(() => ({ text: 'ok' }), { models: [{ id: 'llama3.2:3b' }, { id: 'qwen2.5-coder:7b' }] });
  const { h, sessionId } = await open(srv, ['--provider', 'ollama'], { OLLAMA_HOST: srv.url, OPENAI_BASE_URL: undefined });
  const pick = await until(() => updates(h).find((u) => u.sessionUpdate === 'session_info_update' && u._meta?.[META_MODEL]), 'the model check');
  assert.deepEqual((pick._meta?.[META_MODEL] as { pick?: string[] }).pick, ['llama3.2:3b', 'qwen2.5-coder:7b']);
  const notice = updates(h).find((u) => u.sessionUpdate === 'notice')!;
  assert.match(notice.title ?? '', /^Pick a model: Ollama at .* has no model `qwen3:8b` \(`ollama pull qwen3:8b` fetches it\)$/);
  await h.prompt(sessionId, 'hello?');
  assert.match(h.messageText(), /^The server has no model `qwen3:8b`: pick one with \/model \(llama3\.2:3b, qwen2\.5-coder:7b\), then send the prompt again\.\n$/);
});
