// `cxl acp` as a real child process: usage_update after each model request, /compact as a
// direct command and an available command, each compaction shown to the client (compaction_update
// when it advertised session.compaction, a message otherwise) and saved with the session.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { SUMMARY_PROMPT } from '../../../src/agent/context/compaction.ts';
import { startFakeOpenAI, type FakeServer, type Reply } from '../../fixtures/fake_models.ts';
import { Harness, type HarnessOptions } from './harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

interface World {
  dir: string;
  data: string;
  env: Record<string, string>;
  srv: FakeServer;
  h: Harness;
  sessionId: string;
}

/** The model reads the files it is told to, one per request; summary requests get a summary. */
function reader(files: string[]): (body: Record<string, unknown>) => Reply {
  let i = 0;
  return (body) => {
    const msgs = body.messages as Array<{ role: string; content: string }>;
    if (msgs[0].content === SUMMARY_PROMPT) return { text: 'The user had the agent read the notes; nothing was changed.' };
    if (msgs.at(-1)!.role === 'user') i = 0;
    return i < files.length ? { toolCalls: [{ name: 'read_file', arguments: { path: files[i++] } }] } : { text: 'Read them all.' };
  };
}

async function world(script: (body: Record<string, unknown>) => Reply, opts: HarnessOptions & { args?: string[] } = {}): Promise<World> {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-acpctx-')));
  const dir = path.join(root, 'project');
  mkdirSync(dir);
  for (const f of ['one', 'two', 'three']) writeFileSync(path.join(dir, `${f}.txt`), `${f}\n${'a line of notes\n'.repeat(500)}`);
  const srv = await startFakeOpenAI(script);
  const data = path.join(root, 'data');
  const env = { HOME: root, XDG_DATA_HOME: data, OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k' };
  const h = new Harness({ ...opts, args: ['--provider', 'openai', '--model', 'm', ...(opts.args ?? [])], env });
  cleanups.push(async () => {
    await h.stop();
    await srv.close();
    rmSync(root, { recursive: true, force: true });
  });
  await h.start();
  const { sessionId } = await h.newSession(dir);
  return { dir, data, env, srv, h, sessionId };
}

const updates = (h: Harness, kind: string) => h.updates.map((u) => u.update as Record<string, unknown>).filter((u) => u.sessionUpdate === kind);

test('usage_update after each model request, /compact advertised; compactions reach a client without the capability as messages, and are saved', async () => {
  const w = await world(reader(['one.txt', 'two.txt', 'three.txt']), { args: ['--context-window', '8192'] });
  const res = await w.h.prompt(w.sessionId, 'read the three notes');
  assert.equal(res.stopReason, 'end_turn', w.h.stderr);
  const commands = updates(w.h, 'available_commands_update')[0]?.availableCommands as Array<{ name: string }>;
  assert.deepEqual(commands?.map((c) => c.name), ['help', 'tool', 'compact', 'mission', 'memory', 'init', 'shell']);
  const usage = updates(w.h, 'usage_update') as Array<{ used: number; size: number }>;
  const requests = w.srv.requests.filter((r) => (r.messages as Array<{ content: string }>)[0].content !== SUMMARY_PROMPT);
  assert.ok(usage.length >= requests.length, `${usage.length} usage updates for ${requests.length} requests`);
  assert.ok(usage.every((u) => u.size === 8192));
  // the real count of the last request: its prompt plus the answer
  assert.equal(usage.at(-1)!.used, (requests.at(-1)!._tokens as number) + Math.ceil('Read them all.'.length / 4) + 1);
  // three 8 KB reads do not fit 70% of 8k tokens: the oldest was elided, and the client was told
  assert.match(w.h.messageText(), /Context compacted \(the context passed its threshold\): [\d,]+ → [\d,]+ tokens; elided/);
  assert.equal(updates(w.h, 'compaction_update').length, 0, 'not advertised: no compaction_update');
  // the oldest read went first; the last request holds only the newest file verbatim
  const sent = (r: Record<string, unknown>) => JSON.stringify(r.messages);
  assert.ok(requests.some((r) => /\[elided to save context: the result of read_file for \\"one\.txt\\"/.test(sent(r))), 'one.txt was elided');
  assert.doesNotMatch(sent(requests.at(-1)!), /one\\na line of notes/);
  assert.match(sent(requests.at(-1)!), /three\\na line of notes/);

  // /compact: a direct command, no model request of its own besides the summary
  const before = w.srv.requests.length;
  const c = await w.h.prompt(w.sessionId, '/compact');
  assert.equal(c.stopReason, 'end_turn');
  assert.match(w.h.messageText(), /Context compacted \(\/compact\)/);
  const asked = w.srv.requests.slice(before);
  assert.equal(asked.length, 1);
  assert.equal((asked[0].messages as Array<{ content: string }>)[0].content, SUMMARY_PROMPT);

  // saved with the session, and shown again when it is loaded
  const { SessionStore } = await import('../../../src/agent/sessions/store.ts');
  const stored = (await new SessionStore(path.join(w.data, 'cxl')).load(w.sessionId))!;
  const compactions = stored.extras?.compactions as Array<{ trigger: string; tokensBefore: number; tokensAfter: number }>;
  assert.deepEqual(compactions.map((x) => x.trigger), [...compactions.slice(0, -1).map(() => 'auto'), 'manual']);
  assert.ok(compactions.every((x) => x.tokensAfter < x.tokensBefore));
  assert.match(stored.history[1].content, /The user had the agent read the notes/);
  const again = new Harness({ args: ['--provider', 'openai', '--model', 'm'], env: w.env });
  cleanups.push(() => again.stop());
  await again.start();
  await again.agent.request(acp.methods.agent.session.load, { sessionId: w.sessionId, cwd: w.dir, mcpServers: [] });
  assert.match(again.messageText(), /Context compacted \(\/compact\)/);
});

test('a client that advertises session.compaction gets compaction_update: in progress, then completed with the summary and token counts', async () => {
  const w = await world(reader(['one.txt', 'two.txt']), { session: { compaction: {} } });
  assert.equal((await w.h.prompt(w.sessionId, 'read two notes')).stopReason, 'end_turn');
  const n = w.h.updates.length;
  assert.equal((await w.h.prompt(w.sessionId, '/compact')).stopReason, 'end_turn');
  const cu = w.h.updates.slice(n).map((u) => u.update as Record<string, unknown>).filter((u) => u.sessionUpdate === 'compaction_update');
  assert.deepEqual(cu.map((u) => u.status), ['in_progress', 'completed']);
  assert.equal(cu[0].compactionId, cu[1].compactionId);
  const meta = cu[1]._meta as Record<string, number>;
  assert.ok(meta['cxl/tokensBefore'] > meta['cxl/tokensAfter'], JSON.stringify(meta));
  assert.match(JSON.stringify(cu[1].summary), /read the notes; nothing was changed/);
  assert.doesNotMatch(w.h.messageText(), /Context compacted/, 'no message as well');
  // after the compaction the client hears the smaller usage
  const usage = w.h.updates.slice(n).map((u) => u.update as Record<string, unknown>).filter((u) => u.sessionUpdate === 'usage_update');
  assert.equal(usage.at(-1)!.used, meta['cxl/tokensAfter']);
});

test('a summary longer than the exchange it would replace is not applied: the client hears failed, with why (or a message without the capability)', async () => {
  const chatty = (body: Record<string, unknown>): Reply =>
    (body.messages as Array<{ content: string }>)[0].content === SUMMARY_PROMPT ? { text: `A very long summary. ${'More words. '.repeat(800)}` } : { text: `Hello! ${'Here is one thing I can do for you. '.repeat(30)}What shall we do?` };
  const w = await world(chatty, { session: { compaction: {} } });
  assert.equal((await w.h.prompt(w.sessionId, 'hello')).stopReason, 'end_turn');
  assert.equal((await w.h.prompt(w.sessionId, 'fine, thanks')).stopReason, 'end_turn');
  const n = w.h.updates.length;
  assert.equal((await w.h.prompt(w.sessionId, '/compact')).stopReason, 'end_turn');
  const cu = w.h.updates.slice(n).map((u) => u.update as Record<string, unknown>).filter((u) => u.sessionUpdate === 'compaction_update');
  assert.deepEqual(cu.map((u) => u.status), ['in_progress', 'failed']);
  assert.match(String(cu[1].error), /^a summary of the 2 earlier messages would not have been shorter/);
  assert.doesNotMatch(w.h.messageText(), /Nothing to compact/, 'the failure is the answer, not a second one');

  const plain = await world(chatty);
  await plain.h.prompt(plain.sessionId, 'hello');
  await plain.h.prompt(plain.sessionId, 'fine, thanks');
  await plain.h.prompt(plain.sessionId, '/compact');
  assert.match(plain.h.messageText(), /Context not compacted \(\/compact\): a summary of the 2 earlier messages would not have been shorter/);
  assert.equal(updates(plain.h, 'compaction_update').length, 0);
});
