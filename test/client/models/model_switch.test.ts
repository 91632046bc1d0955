// /model with the built-in agent: the client (as the UI drives it) against `cxl acp` as a real
// child process and a fake OpenAI (or Ollama) server that lists two models. The list comes from
// the server, a switch names the new model in the next request, and the choice is saved with the
// session.
import assert from 'node:assert/strict';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { AcpClient } from '../../../src/client/acp_client.ts';
import { startFakeOllama, startFakeOpenAI } from '../../fixtures/fake_models.ts';
import { cxlCommand } from '../../helpers/cxl.ts';
import { removeWorkdirs, waitFor, workdir } from '../client_harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  removeWorkdirs();
});

test('/model opens the picker over the server’s models, /model fake-mini switches, the next request names it, a resumed session keeps it, and --model with --resume wins', async () => {
  const dir = workdir();
  const srv = await startFakeOpenAI(() => ({ text: 'ok' }), { models: [{ id: 'fake-coder', object: 'model' }, { id: 'fake-mini', object: 'model' }] });
  cleanups.push(() => srv.close());
  const env = { ...process.env, HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'sk-test' };
  // as `cxl [--model NAME] [--resume ID]` starts them: --model goes to the built-in agent and to the client
  const open = async (resume?: string, model: string | undefined = resume ? undefined : 'fake-coder') => {
    const c = new AcpClient({ argv: [...cxlCommand(), 'acp', '--provider', 'openai', ...(model ? ['--model', model] : [])], label: 'cxl acp', builtin: true, cwd: dir, env, settleMs: 5, model, ...(resume ? { resume: { kind: 'id' as const, id: resume } } : {}) });
    cleanups.push(() => c.close());
    await c.start();
    await waitFor(c, (s) => s.sessionId !== undefined && (s.models?.available.length ?? 0) === 2, 'the session and the server’s two models');
    return c;
  };
  const c = await open();
  await c.models.model('');
  let s = c.store.getState();
  assert.deepEqual(s.modelChoices, { models: [{ id: 'fake-coder', name: 'fake-coder' }, { id: 'fake-mini', name: 'fake-mini' }], current: 'fake-coder' }, 'the picker, the model in use marked');
  await c.models.model('fake-mini');
  s = await waitFor(c, (x) => x.models?.current === 'fake-mini', 'the switch');
  assert.equal(s.model, 'fake-mini', 'the status line names it');
  c.send('hi');
  await waitFor(c, (x) => !x.running && srv.requests.filter((r) => !r._rejected).length === 1, 'the turn');
  assert.equal(srv.requests[0].model, 'fake-mini');
  // a model the server does not list is refused, and the session keeps its model
  await c.models.model('fake-huge');
  s = c.store.getState();
  assert.match((s.history.at(-1) as { text: string }).text, /no model “fake-huge”; the session stays on fake-mini/);
  const id = s.sessionId!;
  await c.close();

  const again = await open(id);
  await waitFor(again, (x) => x.models?.current === 'fake-mini', 'the saved model');
  again.send('still you?');
  await waitFor(again, (x) => !x.running && srv.requests.length === 2, 'the turn of the resumed session');
  assert.equal(srv.requests[1].model, 'fake-mini');
  await again.close();

  // --model with --resume: the flag wins over the model the session was left on, and says so
  const flagged = await open(id, 'fake-coder');
  s = await waitFor(flagged, (x) => x.models?.current === 'fake-coder', 'the model --model names');
  assert.equal(s.model, 'fake-coder', 'the status line names it');
  assert.ok(s.history.some((h) => h.kind === 'notice' && /^Model: fake-coder, as --model asks \(the session was on fake-mini\)\.$/.test(h.text)), 'the screen says so');
  flagged.send('and now?');
  await waitFor(flagged, (x) => !x.running && srv.requests.length === 3, 'the turn');
  assert.equal(srv.requests[2].model, 'fake-coder');
});

test('with Ollama the models come from /api/tags, and /model switches the next request to the one named', async () => {
  const dir = workdir();
  const srv = await startFakeOllama(() => ({ text: 'ok' }), { models: [{ id: 'qwen3:8b' }, { id: 'qwen3:0.6b' }] });
  cleanups.push(() => srv.close());
  const env = { ...process.env, HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), OLLAMA_HOST: srv.url };
  const c = new AcpClient({ argv: [...cxlCommand(), 'acp', '--provider', 'ollama', '--model', 'qwen3:8b'], label: 'cxl acp', builtin: true, cwd: dir, env, settleMs: 5, model: 'qwen3:8b' });
  cleanups.push(() => c.close());
  await c.start();
  await waitFor(c, (s) => s.sessionId !== undefined && (s.models?.available.length ?? 0) === 2, 'the session and the server’s two models');
  await c.models.model('qwen3:0.6b');
  await waitFor(c, (x) => x.models?.current === 'qwen3:0.6b', 'the switch');
  c.send('hi');
  await waitFor(c, (x) => !x.running && srv.requests.length === 1, 'the turn');
  assert.equal(srv.requests[0].model, 'qwen3:0.6b');
});
