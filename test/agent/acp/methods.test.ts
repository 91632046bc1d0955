// Every stable ACP v1 agent method against `cxl acp` as a real child process, from a client on
// the SDK: none answers -32601, the config options round trip (mode and model, kept in sync with
// `modes`), sessions close, resume without replay and delete, a title is announced, a
// `$/cancel_request` stops a running prompt, every tool call carries its `name`, and a method the
// agent does not have is answered -32601 naming it.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { startFakeOpenAI, type FakeServer, type Reply } from '../../fixtures/fake_models.ts';
import { Harness } from './harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

interface World {
  base: string;
  project: string;
  env: Record<string, string>;
  h: Harness;
  srv: FakeServer;
}

const MODELS = [{ id: 'fake-model' }, { id: 'fake-large' }, { id: 'fake-small' }];

async function world(script: Reply[] | ((body: Record<string, unknown>, n: number) => Reply) = [{ text: 'ok' }], o: { models?: boolean } = {}): Promise<World> {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-methods-')));
  const project = path.join(base, 'project');
  mkdirSync(project);
  writeFileSync(path.join(project, 'a.txt'), 'alpha\n');
  const srv = await startFakeOpenAI(script, o.models === false ? {} : { models: MODELS });
  const env = { HOME: base, XDG_DATA_HOME: path.join(base, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k' };
  const h = new Harness({ args: ['--provider', 'openai', '--model', 'fake-model'], env, permission: () => 'allow_once' });
  cleanups.push(async () => {
    await h.stop();
    await srv.close();
    rmSync(base, { recursive: true, force: true });
  });
  await h.start();
  return { base, project, env, h, srv };
}

async function until<T>(what: string, f: () => T | undefined | false, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The JSON-RPC error code of a request, or undefined when it succeeded. */
async function codeOf(p: Promise<unknown>): Promise<number | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return (err as { code?: number }).code ?? -1;
  }
}

const option = (opts: acp.SessionConfigOption[] | null | undefined, id: string) => {
  const o = opts?.find((x) => x.id === id);
  assert.ok(o && o.type === 'select', `a select option ${id}`);
  return o;
};
const values = (o: acp.SessionConfigOption) => (o.type === 'select' ? o.options.flatMap((x) => ('options' in x ? x.options : [x])).map((v) => v.value) : []);

test('every stable agent method of v1 is answered (none -32601), each with a well-formed request', async () => {
  const w = await world();
  const { sessionId } = await w.h.newSession(w.project);
  const spare = (await w.h.newSession(w.project)).sessionId;
  await w.h.prompt(spare, '/help'); // used, so it is stored and can be deleted after close
  // one request per method the SDK names; a method the SDK adds makes this table incomplete
  const calls: Record<string, () => Promise<unknown>> = {
    [acp.AGENT_METHODS.initialize]: () => w.h.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} }),
    [acp.AGENT_METHODS.authenticate]: () => w.h.agent.request(acp.methods.agent.authenticate, { methodId: 'none' }),
    [acp.AGENT_METHODS.logout]: () => w.h.agent.request(acp.methods.agent.logout, {}),
    [acp.AGENT_METHODS.session_new]: () => w.h.newSession(w.project),
    [acp.AGENT_METHODS.session_load]: () => w.h.agent.request(acp.methods.agent.session.load, { sessionId: spare, cwd: w.project, mcpServers: [] }),
    [acp.AGENT_METHODS.session_resume]: () => w.h.agent.request(acp.methods.agent.session.resume, { sessionId: spare, cwd: w.project }),
    [acp.AGENT_METHODS.session_list]: () => w.h.agent.request(acp.methods.agent.session.list, {}),
    [acp.AGENT_METHODS.session_set_mode]: () => w.h.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'strict' }),
    [acp.AGENT_METHODS.session_set_config_option]: () => w.h.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: 'mode', value: 'default' }),
    [acp.AGENT_METHODS.session_prompt]: () => w.h.prompt(sessionId, 'hello'),
    [acp.AGENT_METHODS.session_cancel]: () => w.h.agent.notify(acp.methods.agent.session.cancel, { sessionId }),
    [acp.AGENT_METHODS.session_close]: () => w.h.agent.request(acp.methods.agent.session.close, { sessionId: spare }),
    [acp.AGENT_METHODS.session_delete]: () => w.h.agent.request(acp.methods.agent.session.delete, { sessionId: spare }),
  };
  assert.deepEqual(Object.keys(calls).sort(), Object.values(acp.AGENT_METHODS).sort(), 'a request for every method the SDK names');
  const answers: Record<string, number | undefined> = {};
  for (const method of Object.keys(calls)) answers[method] = await codeOf(calls[method]());
  for (const [method, code] of Object.entries(answers)) assert.notEqual(code, -32601, `${method} answered -32601`);
  // only authenticate refuses, and as invalid params: cxl has no login methods
  assert.deepEqual(Object.entries(answers).filter(([, c]) => c !== undefined), [['authenticate', -32602]]);
  const init = await w.h.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  assert.deepEqual(init.agentCapabilities?.sessionCapabilities, { list: {}, resume: {}, close: {}, delete: {}, fork: {}, additionalDirectories: {} });
});

test('a method the agent does not have (unknown, or unstable and not offered) is answered -32601 naming it', async () => {
  const w = await world();
  const { sessionId } = await w.h.newSession(w.project);
  // session/fork and session/set_model cxl does offer (fork in sessionCapabilities)
  for (const method of ['session/unknown_thing', '_cxl/nothing']) {
    await assert.rejects(w.h.agent.request(method, { sessionId }), (err: { code?: number; message?: string }) => {
      assert.equal(err.code, -32601);
      assert.ok(err.message?.includes(method), `${err.message} names ${method}`);
      return true;
    });
  }
});

test('config options: mode mirrors the envelopes, model lists the server\'s models; set_config_option switches both, in sync with modes', async () => {
  const w = await world((body) => ({ text: `answered by ${String(body.model)}` }));
  const ns = await w.h.newSession(w.project);
  const mode = option(ns.configOptions, 'mode');
  assert.equal(mode.category, 'mode');
  assert.equal(mode.currentValue, ns.modes?.currentModeId);
  assert.deepEqual(values(mode), ns.modes?.availableModes.map((m) => m.id));
  // the server's list is in the answer (a client replays a saved model against it at once)
  const model = option(ns.configOptions, 'model');
  assert.equal(model.category, 'model');
  assert.equal(model.currentValue, 'fake-model');
  assert.deepEqual(values(model), ['fake-model', 'fake-large', 'fake-small']);

  // model: the next turn asks the model chosen
  const r = await w.h.agent.request(acp.methods.agent.session.setConfigOption, { sessionId: ns.sessionId, configId: 'model', value: 'fake-large' });
  assert.equal(option(r.configOptions, 'model').currentValue, 'fake-large');
  await w.h.prompt(ns.sessionId, 'which model?');
  assert.equal(w.srv.requests.at(-1)?.model, 'fake-large');
  assert.match(w.h.messageText(ns.sessionId), /answered by fake-large/);
  // a model the server does not list is refused with the ones it does
  await assert.rejects(w.h.agent.request(acp.methods.agent.session.setConfigOption, { sessionId: ns.sessionId, configId: 'model', value: 'gpt-9' }), (err: { code: number; message: string }) => {
    assert.equal(err.code, -32602);
    assert.match(err.message, /no model `gpt-9`.*fake-small/);
    return true;
  });

  // mode through config options: a current_mode_update follows for clients that track `modes`
  const before = w.h.updates.length;
  const m = await w.h.agent.request(acp.methods.agent.session.setConfigOption, { sessionId: ns.sessionId, configId: 'mode', value: 'read_only' });
  assert.equal(option(m.configOptions, 'mode').currentValue, 'read_only');
  await until('current_mode_update', () => w.h.updates.slice(before).some((u) => u.update.sessionUpdate === 'current_mode_update' && u.update.currentModeId === 'read_only'));
  // and session/set_mode the other way: a config_option_update for clients that track options
  const mark = w.h.updates.length;
  await w.h.agent.request(acp.methods.agent.session.setMode, { sessionId: ns.sessionId, modeId: 'strict' });
  const synced = await until('config_option_update after set_mode', () => {
    const u = w.h.updates.slice(mark).find((x) => x.update.sessionUpdate === 'config_option_update');
    return u && (u.update as { configOptions: acp.SessionConfigOption[] }).configOptions;
  });
  assert.equal(option(synced, 'mode').currentValue, 'strict');
  // the envelope really changed: strict refuses what read_only would not ask about… it is the mode the tools use
  await assert.rejects(w.h.agent.request(acp.methods.agent.session.setConfigOption, { sessionId: ns.sessionId, configId: 'mode', value: 'yolo' }), /unknown mode `yolo`/);
  await assert.rejects(w.h.agent.request(acp.methods.agent.session.setConfigOption, { sessionId: ns.sessionId, configId: 'effort', value: 'high' }), /unknown config option `effort`; options: mode, model/);
  await assert.rejects(w.h.agent.request(acp.methods.agent.session.setConfigOption, { sessionId: ns.sessionId, configId: 'mode', type: 'boolean', value: true }), /takes one of its values/);

  // both choices are kept with the session: a new agent process resumes them
  const h2 = new Harness({ args: w.h.opts.args, env: w.env });
  cleanups.push(() => h2.stop());
  await h2.start();
  const resumed = await h2.agent.request(acp.methods.agent.session.resume, { sessionId: ns.sessionId, cwd: w.project });
  assert.equal(option(resumed.configOptions, 'model').currentValue, 'fake-large');
  assert.equal(option(resumed.configOptions, 'mode').currentValue, 'strict');
  assert.equal(resumed.modes?.currentModeId, 'strict');
});

test('a server that lists no models: the model option holds the one in use, and another is refused saying why', async () => {
  const w = await world([{ text: 'ok' }], { models: false });
  const ns = await w.h.newSession(w.project);
  assert.deepEqual(values(option(ns.configOptions, 'model')), ['fake-model']);
  await assert.rejects(w.h.agent.request(acp.methods.agent.session.setConfigOption, { sessionId: ns.sessionId, configId: 'model', value: 'other' }), /did not list its models; start cxl acp with --model other/);
});

test('session/close stops the turn and keeps the session; resume answers without replaying; delete removes it from the list and the disk', async () => {
  const script: Reply[] = [{ toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] }, { text: 'It says alpha.' }, { text: 'slow', delayMs: 20_000 }, { text: 'going on' }];
  const w = await world((_b, n) => script[n] ?? { text: 'ok' });
  const { sessionId } = await w.h.newSession(w.project);
  await w.h.prompt(sessionId, 'what is in a.txt?');
  // a turn running when the client closes the session ends cancelled
  const slow = w.h.prompt(sessionId, 'and again?');
  await until('the slow request', () => w.srv.requests.length >= 3);
  const t0 = Date.now();
  await w.h.agent.request(acp.methods.agent.session.close, { sessionId });
  assert.equal((await slow).stopReason, 'cancelled');
  // well before the 20 s the model would take (a loaded machine may take seconds to answer at all)
  assert.ok(Date.now() - t0 < 10_000, `closed after ${Date.now() - t0} ms, not promptly`);
  await assert.rejects(w.h.prompt(sessionId, 'still there?'), /Resource not found|session/i);

  const before = w.h.updates.length;
  const res = await w.h.agent.request(acp.methods.agent.session.resume, { sessionId, cwd: w.project });
  assert.ok(res.configOptions?.length);
  // nothing of the history is replayed (the client has it), only what the agent announces
  const after = w.h.updates.slice(before).map((u) => u.update.sessionUpdate);
  assert.ok(!after.includes('user_message_chunk') && !after.includes('tool_call'), `no replay: ${after.join(', ')}`);
  await w.h.prompt(sessionId, 'go on');
  // the model still has the whole conversation
  const msgs = w.srv.requests.at(-1)?.messages as Array<{ role: string; content: string }>;
  assert.ok(msgs.some((m) => m.content === 'what is in a.txt?'));

  const dataDir = path.join(w.env.XDG_DATA_HOME, 'cxl', 'sessions');
  assert.ok(readdirSync(dataDir).some((f) => f.startsWith(sessionId)));
  await w.h.agent.request(acp.methods.agent.session.delete, { sessionId });
  assert.ok(!readdirSync(dataDir).some((f) => f.startsWith(sessionId)), 'the file is gone');
  const list = await w.h.agent.request(acp.methods.agent.session.list, {});
  assert.ok(!list.sessions.some((s) => s.sessionId === sessionId), 'not listed');
  await assert.rejects(w.h.prompt(sessionId, 'hello?'), /Resource not found|session/i);
  // deleting or closing it again is not-found (-32002), which the SDK's client takes as done
  await w.h.agent.request(acp.methods.agent.session.delete, { sessionId });
  await w.h.agent.request(acp.methods.agent.session.close, { sessionId: 'no-such' });
  assert.ok(!existsSync(path.join(dataDir, `${sessionId}.jsonl`)));
});

test('the first prompt names the session: session_info_update carries the title', async () => {
  const w = await world();
  const { sessionId } = await w.h.newSession(w.project);
  await w.h.prompt(sessionId, 'fix   the\nfailing test');
  const info = w.h.updates.filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'session_info_update');
  assert.equal(info.length, 1);
  assert.equal((info[0].update as { title: string }).title, 'fix the failing test');
  await w.h.prompt(sessionId, 'and more');
  assert.equal(w.h.updates.filter((u) => u.update.sessionUpdate === 'session_info_update').length, 1, 'named once');
  const list = await w.h.agent.request(acp.methods.agent.session.list, {});
  assert.equal(list.sessions.find((s) => s.sessionId === sessionId)?.title, 'fix the failing test');
});

test('$/cancel_request on a running prompt cancels the turn: the stream stops and the prompt ends at once', async () => {
  const words = Array.from({ length: 300 }, (_, i) => `w${i}`).join(' ');
  const w = await world((_b, n) => (n === 0 ? { text: words, wordDelayMs: 15 } : { text: 'ok' }));
  const { sessionId } = await w.h.newSession(w.project);
  const ctrl = new AbortController();
  const p = w.h.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'talk' }] }, { cancellationSignal: ctrl.signal });
  const chunks = () => w.h.updates.filter((u) => u.update.sessionUpdate === 'agent_message_chunk').length;
  await until('the first chunks', () => chunks() >= 3);
  const t0 = Date.now();
  ctrl.abort();
  const outcome = await p.then((r) => r.stopReason, (err: { code?: number }) => err.code);
  // the agent answers `cancelled` (or the protocol's -32800, request cancelled)
  assert.ok(outcome === 'cancelled' || outcome === -32800, `ended with ${String(outcome)}`);
  const at = chunks();
  await new Promise((r) => setTimeout(r, 400));
  assert.ok(chunks() - at <= 2, `${chunks() - at} chunks after the answer`);
  assert.ok(Date.now() - t0 < 3000);
  assert.ok(chunks() < 100, `stopped early: ${chunks()} of 300 words`);
  // the session goes on
  assert.equal((await w.h.prompt(sessionId, 'hi')).stopReason, 'end_turn');
});

test('every tool call and permission request carries the tool\'s name', async () => {
  const w = await world([
    { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }, { name: 'write_file', arguments: { path: 'b.txt', content: 'x\n' } }, { name: 'local_shell', arguments: { command: 'echo hi' } }, { name: 'no_such_tool', arguments: {} }] },
    { text: 'done' },
  ]);
  const { sessionId } = await w.h.newSession(w.project);
  await w.h.prompt(sessionId, 'do things');
  const announced = w.h.toolUpdates().filter((u) => u.sessionUpdate === 'tool_call');
  assert.deepEqual(announced.map((u) => u.name), ['local_fs.read_file', 'local_fs.write_file', 'local_shell', 'no_such_tool']);
  assert.ok(w.h.permissions.length > 0);
  for (const p of w.h.permissions) assert.ok(typeof p.toolCall.name === 'string' && p.toolCall.name !== '', `permission for ${p.toolCall.title} names its tool`);
});
