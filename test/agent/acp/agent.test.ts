// `cxl acp` spawned as a real child process, driven by a test client on the SDK, against fake
// model servers on 127.0.0.1.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type * as acp from '@agentclientprotocol/sdk';
import { startFakeOllama, startFakeOpenAI, type FakeServer, type Reply } from '../../fixtures/fake_models.ts';
import { alive, Harness, type HarnessOptions } from './harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

interface World {
  dir: string;
  h: Harness;
  srv: FakeServer;
  sessionId: string;
  newSession: acp.NewSessionResponse;
}

async function world(script: Reply[] | ((body: Record<string, unknown>, n: number) => Reply), opts: HarnessOptions & { ollama?: boolean; files?: Record<string, string>; homeFiles?: Record<string, string>; agentArgs?: string[] } = {}): Promise<World> {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-acp-')));
  const project = path.join(dir, 'project');
  const files = [...Object.entries({ 'a.txt': 'alpha\nbeta\ngamma\n', ...opts.files }).map(([r, t]) => [path.join(project, r), t]), ...Object.entries(opts.homeFiles ?? {}).map(([r, t]) => [path.join(dir, r), t])];
  for (const [f, text] of files) {
    (await import('node:fs')).mkdirSync(path.dirname(f), { recursive: true });
    writeFileSync(f, text);
  }
  const srv = opts.ollama ? await startFakeOllama(script) : await startFakeOpenAI(script);
  const providerEnv = opts.ollama ? { OLLAMA_HOST: srv.url, OPENAI_BASE_URL: undefined } : { OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'sk-test' };
  const h = new Harness({
    ...opts,
    // a window the built-in tools' definitions (local, native, mission) leave room in: these tests are not about compaction
    args: [...(opts.ollama ? ['--provider', 'ollama'] : ['--provider', 'openai', '--model', 'fake-model']), ...(opts.agentArgs?.includes('--context-window') ? [] : ['--context-window', '131072']), ...(opts.agentArgs ?? [])],
    env: { HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), ...providerEnv, ...opts.env },
  });
  cleanups.push(async () => {
    await h.stop();
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await h.start();
  const ns = await h.newSession(project);
  return { dir: project, h, srv, sessionId: ns.sessionId, newSession: ns };
}

function toolMessages(srv: FakeServer, n: number): string[] {
  const msgs = (srv.requests[n]?.messages ?? []) as Array<{ role: string; content: string }>;
  return msgs.filter((m) => m.role === 'tool').map((m) => m.content);
}

test('initialize reports capabilities; session/new offers the envelopes as modes', async () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-acp-')));
  const h = new Harness({ env: { HOME: dir, XDG_DATA_HOME: path.join(dir, 'data') } });
  cleanups.push(async () => {
    await h.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const init = await h.start();
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.agentCapabilities?.loadSession, true);
  assert.ok(init.agentCapabilities?.sessionCapabilities?.list);
  assert.deepEqual(init.authMethods, []);
  const ns = await h.newSession(dir);
  const ids = ns.modes?.availableModes.map((m) => m.id).sort();
  assert.deepEqual(ids, ['ask_always', 'auto_edit', 'default', 'read_only', 'serve', 'strict']);
  assert.equal(ns.modes?.currentModeId, 'default');
});

test('a read: tool_call with kind/title/locations/rawInput, in_progress, completed with the text, all before the answer', async () => {
  const w = await world([{ toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] }, { text: 'It lists three words.' }]);
  const res = await w.h.prompt(w.sessionId, 'what is in a.txt?');
  const countAtAnswer = w.h.updates.length;
  assert.equal(res.stopReason, 'end_turn');
  assert.deepEqual(w.h.fsReads, [path.join(w.dir, 'a.txt')]);
  const [call, ...rest] = w.h.toolUpdates();
  assert.equal(call.sessionUpdate, 'tool_call');
  assert.equal(call.kind, 'read');
  assert.equal(call.title, 'local_fs.read_file: a.txt');
  assert.deepEqual(call.locations, [{ path: path.join(w.dir, 'a.txt') }]);
  assert.deepEqual(call.rawInput, { path: 'a.txt' });
  assert.equal(call.status, 'pending');
  assert.equal(rest[0].status, 'in_progress');
  const done = rest.at(-1)!;
  assert.equal(done.status, 'completed');
  assert.match(JSON.stringify(done.content), /alpha\\nbeta\\ngamma/);
  assert.equal(w.h.messageText(), 'It lists three words.');
  // the model got the file text as the tool result
  assert.match(toolMessages(w.srv, 1)[0], /alpha\nbeta\ngamma/);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(w.h.updates.length, countAtAnswer, 'no update arrives after the prompt answer');
});

const editScript: Reply[] = [
  { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
  { toolCalls: [{ name: 'edit_file', arguments: { path: 'a.txt', old_string: 'beta', new_string: 'BETA' } }] },
  { text: 'Done.' },
];

test('an edit asks with the diff and the four options; allow once writes through fs/write_text_file', async () => {
  const w = await world(editScript, { permission: () => 'allow_once' });
  const res = await w.h.prompt(w.sessionId, 'uppercase beta');
  assert.equal(res.stopReason, 'end_turn');
  assert.equal(w.h.permissions.length, 1);
  const p = w.h.permissions[0];
  assert.deepEqual(p.options.map((o) => [o.optionId, o.kind]), [
    ['allow_once', 'allow_once'],
    ['allow_session', 'allow_always'],
    ['reject', 'reject_once'],
    ['reject_explain', 'reject_once'],
  ]);
  assert.match(p.options[1].name, /a\.txt/);
  // no envelope timeout: the ask waits for the person, and says no deadline
  assert.equal((p.toolCall._meta?.cxl as { expiresAt?: string } | undefined)?.expiresAt, undefined);
  assert.equal(p.toolCall.kind, 'edit');
  assert.equal(p.toolCall.title, 'local_fs.edit_file: a.txt');
  const diff = (p.toolCall.content ?? []).find((c) => c.type === 'diff') as { path: string; oldText: string; newText: string };
  assert.equal(diff.path, path.join(w.dir, 'a.txt'));
  assert.equal(diff.oldText, 'alpha\nbeta\ngamma\n');
  assert.equal(diff.newText, 'alpha\nBETA\ngamma\n');
  assert.equal(readFileSync(path.join(w.dir, 'a.txt'), 'utf8'), 'alpha\nBETA\ngamma\n');
  assert.deepEqual(w.h.fsWrites, [path.join(w.dir, 'a.txt')]);
  const done = w.h.toolUpdates().filter((u) => u.status === 'completed').at(-1)!;
  assert.ok((done.content as acp.ToolCallContent[]).some((c) => c.type === 'diff'), 'the completed edit carries its diff');
});

test('an envelope timeout on an ask: the request says when it rejects itself, and it does then', async () => {
  const toml = '[envelopes.quick]\nextends = "default"\n\n[envelopes.quick.files]\nwrite = { grant = "approve", timeout = "2s" }\n';
  const w = await world(editScript, { agentArgs: ['--envelope', 'quick'], homeFiles: { '.contenox/agents.toml': toml }, permission: () => new Promise<string>(() => {}) });
  const t0 = Date.now();
  const res = await w.h.prompt(w.sessionId, 'uppercase beta');
  assert.equal(res.stopReason, 'end_turn');
  const meta = w.h.permissions[0].toolCall._meta?.cxl as { expiresAt?: string };
  const at = Date.parse(meta.expiresAt ?? '');
  assert.ok(at - t0 > 1000 && at - t0 < 4000, `expiresAt ${meta.expiresAt} about 2 s after the prompt`);
  assert.ok(Date.now() - t0 >= 1500, 'the turn waited for the timeout');
  assert.equal(readFileSync(path.join(w.dir, 'a.txt'), 'utf8'), 'alpha\nbeta\ngamma\n');
});

const FIFTY = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
const line40Script: Reply[] = [
  { toolCalls: [{ name: 'read_file', arguments: { path: 'long.txt' } }] },
  { toolCalls: [{ name: 'edit_file', arguments: { path: 'long.txt', old_string: 'line 40\n', new_string: 'line forty\n' } }] },
  { text: 'Done.' },
];

test('an edit at line 40: the approval and the result say where (cxl/startLine on the diff, locations[].line at the change)', async () => {
  const w = await world(line40Script, { permission: () => 'allow_once', files: { 'long.txt': FIFTY } });
  assert.equal((await w.h.prompt(w.sessionId, 'rename line 40')).stopReason, 'end_turn');
  const p = w.h.permissions[0];
  const diff = (p.toolCall.content ?? []).find((c) => c.type === 'diff') as acp.Diff & { _meta?: Record<string, unknown> };
  assert.equal(diff._meta?.['cxl/startLine'], 37, 'the window starts three lines of context above the change');
  assert.equal(diff.oldText, 'line 37\nline 38\nline 39\nline 40\nline 41\nline 42\nline 43\n');
  assert.deepEqual(p.toolCall.locations, [{ path: path.join(w.dir, 'long.txt'), line: 40 }]);
  const done = w.h.toolUpdates().filter((u) => u.status === 'completed').at(-1)!;
  assert.deepEqual(done.locations, [{ path: path.join(w.dir, 'long.txt'), line: 40 }]);
  const shown = (done.content as acp.ToolCallContent[]).find((c) => c.type === 'diff') as acp.Diff & { _meta?: Record<string, unknown> };
  assert.equal(shown._meta?.['cxl/startLine'], 37);
});

test('an edit allowed unasked (auto_edit) still reports its diff, at its line; the raw result stays in the text content', async () => {
  const w = await world(line40Script, { permission: () => 'reject', files: { 'long.txt': FIFTY }, agentArgs: ['--envelope', 'auto_edit'] });
  assert.equal((await w.h.prompt(w.sessionId, 'rename line 40')).stopReason, 'end_turn');
  assert.equal(w.h.permissions.length, 0, 'nobody was asked');
  assert.match(readFileSync(path.join(w.dir, 'long.txt'), 'utf8'), /\nline forty\n/);
  const done = w.h.toolUpdates().filter((u) => u.status === 'completed').at(-1)!;
  const content = done.content as acp.ToolCallContent[];
  const diff = content.find((c) => c.type === 'diff') as acp.Diff & { _meta?: Record<string, unknown> };
  assert.ok(diff, 'the completed edit carries its diff');
  assert.equal(diff.path, path.join(w.dir, 'long.txt'));
  assert.match(diff.oldText ?? '', /^line 37\n[\s\S]*line 40\n/);
  assert.match(diff.newText, /line forty\n/);
  assert.equal(diff._meta?.['cxl/startLine'], 37);
  assert.deepEqual(done.locations, [{ path: path.join(w.dir, 'long.txt'), line: 40 }]);
  const text = content.find((c) => c.type === 'content') as { content: { text: string } };
  assert.match(text.content.text, /"replacements":1/, 'the JSON result the model read');
  assert.doesNotMatch(toolMessages(w.srv, 2)[1], /line forty/, 'the model is not sent the diff');
});

test('an edit rejected leaves the file alone and the model is told', async () => {
  const w = await world(editScript, { permission: () => 'reject' });
  const res = await w.h.prompt(w.sessionId, 'uppercase beta');
  assert.equal(res.stopReason, 'end_turn');
  assert.equal(readFileSync(path.join(w.dir, 'a.txt'), 'utf8'), 'alpha\nbeta\ngamma\n');
  assert.deepEqual(w.h.fsWrites, []);
  const failed = w.h.toolUpdates().filter((u) => u.status === 'failed');
  assert.equal(failed.length, 1);
  assert.match(toolMessages(w.srv, 2)[1], /"code":"rejected"/);
});

test('allow for this session is remembered for the same file', async () => {
  const twice: Reply[] = [
    { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
    { toolCalls: [{ name: 'edit_file', arguments: { path: 'a.txt', old_string: 'beta', new_string: 'BETA' } }] },
    { toolCalls: [{ name: 'edit_file', arguments: { path: 'a.txt', old_string: 'gamma', new_string: 'GAMMA' } }] },
    { text: 'Both done.' },
  ];
  const w = await world(twice, { permission: () => 'allow_session' });
  assert.equal((await w.h.prompt(w.sessionId, 'go')).stopReason, 'end_turn');
  assert.equal(w.h.permissions.length, 1, 'asked once');
  assert.equal(readFileSync(path.join(w.dir, 'a.txt'), 'utf8'), 'alpha\nBETA\nGAMMA\n');
});

// A client that says it sandboxes its terminals (the cxl client does): the prefix allowlist runs unasked.
const SANDBOXED = { sandbox: { state: 'bubblewrap', reason: '/usr/bin/bwrap' } };

test('a multi-step shell line runs one client terminal per step and reports the terminals', async () => {
  const w = await world([{ toolCalls: [{ name: 'local_shell', arguments: { command: 'echo one && echo two' } }] }, { text: 'ok' }], SANDBOXED);
  const res = await w.h.prompt(w.sessionId, 'run it');
  assert.equal(res.stopReason, 'end_turn');
  assert.equal(w.h.terminals.size, 2, 'one terminal per step');
  const ups = w.h.toolUpdates();
  assert.equal(ups[0].kind, 'execute');
  assert.equal(ups[0].title, 'local_shell: echo one && echo two');
  const terms = new Set(ups.flatMap((u) => ((u.content ?? []) as acp.ToolCallContent[]).filter((c) => c.type === 'terminal').map((c) => (c as { terminalId: string }).terminalId)));
  assert.deepEqual([...terms].sort(), ['t1', 't2']);
  const result = JSON.parse(toolMessages(w.srv, 1)[0]);
  assert.equal(result.success, true);
  assert.match(result.stdout, /one[\s\S]*two/);
  assert.equal(ups.at(-1)!.status, 'completed');
  const asked = { 'cxl/sandbox': 'read-only', 'cxl/network': true, 'cxl/outputLimit': true };
  assert.deepEqual(w.h.terminalMetas, [asked, asked], 'each terminal asks for the read-only profile its decision gives, and to be ended at its output cap');
  assert.deepEqual(w.newSession._meta?.['cxl/sandbox'], { state: 'bubblewrap', reason: "the client's: /usr/bin/bwrap" });
});

test('a client that reports no sandbox: session/new says so, and the prefix allowlist asks first', async () => {
  const w = await world([{ toolCalls: [{ name: 'local_shell', arguments: { command: 'echo one' } }] }, { text: 'ok' }], { permission: () => 'allow_once' });
  assert.deepEqual(w.newSession._meta?.['cxl/sandbox'], { state: 'unavailable', reason: 'the client runs the commands and reports no sandbox' });
  assert.equal((await w.h.prompt(w.sessionId, 'run it')).stopReason, 'end_turn');
  assert.equal(w.h.permissions.length, 1, 'echo is on the prefix allowlist, but nothing contains it here');
  assert.match(JSON.stringify(w.h.permissions[0].toolCall._meta), /no sandbox is working/);
  assert.deepEqual(w.h.terminalMetas, [{ 'cxl/outputLimit': true }], 'no sandbox hint to a client that has none (the output cap is asked for)');
  assert.match(JSON.parse(toolMessages(w.srv, 1)[0]).stdout, /one/);
});

test('an approval lists the programs a line runs when there are several, not a lone one that repeats the line', async () => {
  const w = await world([{ toolCalls: [{ name: 'local_shell', arguments: { command: 'echo one' } }, { name: 'local_shell', arguments: { command: 'echo one && pwd' } }] }, { text: 'ok' }], { permission: () => 'allow_once' });
  assert.equal((await w.h.prompt(w.sessionId, 'run them')).stopReason, 'end_turn');
  const texts = w.h.permissions.map((p) => JSON.stringify(p.toolCall.content ?? []));
  assert.equal(texts.length, 2);
  assert.doesNotMatch(texts[0], /Will run/);
  assert.match(texts[1], /Will run:\\n  echo one\\n  pwd/);
});

test('cancel in the middle of a running command kills it and ends the turn cancelled', async () => {
  // the project's own agents.toml allows sleep (the default command policy does not)
  const w = await world([{ toolCalls: [{ name: 'local_shell', arguments: { command: 'echo start && sleep 30' } }] }, { text: 'never' }], {
    permission: () => 'allow_once',
    files: { '.contenox/agents.toml': '[tools_policies.local_shell]\n_allowed_commands = "echo,sleep"\n' },
    agentArgs: ['--trust-project'],
  });
  const p = w.h.prompt(w.sessionId, 'sleep');
  const t0 = Date.now();
  while (w.h.terminalPids.length < 2 && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 20));
  assert.equal(w.h.terminalPids.length, 2, 'the second step started');
  const pid = w.h.terminalPids[1];
  assert.ok(alive(pid));
  await w.h.agent.notify('session/cancel', { sessionId: w.sessionId });
  const res = await p;
  assert.equal(res.stopReason, 'cancelled');
  assert.ok(Date.now() - t0 < 10_000);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(alive(pid), false, 'no process left');
  assert.equal(w.h.toolUpdates().at(-1)!.status, 'failed');
  assert.equal(w.srv.requests.length, 1, 'no further model request after the cancel');
});

test('a client without fs or terminal: content tools and shell refuse naming the capability; browsing works', async () => {
  const w = await world(
    [
      { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }, { name: 'local_shell', arguments: { command: 'echo hi' } }, { name: 'list_dir', arguments: { path: '.' } }] },
      { text: 'fine' },
    ],
    { fs: false, terminal: false },
  );
  assert.equal((await w.h.prompt(w.sessionId, 'go')).stopReason, 'end_turn');
  const [read, shell, list] = toolMessages(w.srv, 1).map((s) => s);
  assert.match(read, /"code":"capability_missing"/);
  assert.match(read, /fs\.readTextFile/);
  assert.match(shell, /"code":"capability_missing"/);
  assert.match(shell, /terminal/);
  assert.match(list, /a\.txt/);
  assert.deepEqual(w.h.fsReads, []);
  assert.equal(w.h.terminals.size, 0);
});

test('a provider that drops the stream: a clear message in the session, and the next prompt works', async () => {
  const w = await world([{ drop: true, text: 'I will' }, { text: 'Second try works.' }]);
  const res = await w.h.prompt(w.sessionId, 'hello');
  assert.equal(res.stopReason, 'end_turn');
  assert.match(w.h.messageText(), /I will[\s\S]*stream (ended|broke off)[\s\S]*send the prompt again/i);
  const res2 = await w.h.prompt(w.sessionId, 'again');
  assert.equal(res2.stopReason, 'end_turn');
  assert.match(w.h.messageText(), /Second try works\./);
});

test('a flood of 20,000 chunks around a tool call: every update arrives, in order, all before the answer', async () => {
  // numbered words, so a lost, doubled or swapped chunk shows; the stream comes in one go, so
  // the agent batches its writes
  const words = (from: number, n: number) => Array.from({ length: n }, (_, i) => `w${from + i} `).join('');
  const w = await world([
    { text: words(0, 10_000), toolCalls: [{ name: 'stat_file', arguments: { path: 'a.txt' } }], bulk: true },
    { text: words(10_000, 10_000), bulk: true },
  ], { agentArgs: ['--context-window', '1000000'] }); // a window the flood does not fill: no compaction
  // what came before the prompt (the session's notices) is not part of it
  await new Promise((r) => setTimeout(r, 50));
  const before = w.h.updates.length;
  const res = await w.h.prompt(w.sessionId, 'flood');
  const atAnswer = w.h.updates.slice(before).map((u) => u.update);
  assert.equal(res.stopReason, 'end_turn');
  const chunks = atAnswer.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => (u as { content: { text: string } }).content.text);
  assert.equal(chunks.length, 20_000);
  assert.equal(chunks.join(''), words(0, 20_000));
  // the tool call sits between the two floods
  const kinds = atAnswer.map((u) => u.sessionUpdate);
  const call = kinds.indexOf('tool_call');
  const firstChunk = kinds.indexOf('agent_message_chunk');
  assert.equal(kinds.slice(firstChunk, call).filter((k) => k === 'agent_message_chunk').length, 10_000);
  assert.equal(kinds.slice(call).filter((k) => k === 'agent_message_chunk').length, 10_000);
  await new Promise((r) => setTimeout(r, 50));
  // nothing of the turn came after its answer (the session's own updates may: under load the
  // model check started when the session opened once landed there)
  const late = w.h.updates.slice(before + atAnswer.length).map((u) => u.update.sessionUpdate);
  assert.deepEqual(late.filter((k) => k === 'agent_message_chunk' || k === 'tool_call' || k === 'tool_call_update'), [], `after the answer: ${late.join(', ')}`);
});

test('a tool that does not exist and arguments that are not JSON are failed calls the model can act on', async () => {
  const w = await world([
    { toolCalls: [{ name: 'delete_everything', arguments: {} }, { name: 'read_file', arguments: '{"path": "a.txt"' }] },
    { text: 'Sorry.' },
  ]);
  assert.equal((await w.h.prompt(w.sessionId, 'go')).stopReason, 'end_turn');
  const [unknown, bad] = toolMessages(w.srv, 1);
  assert.match(unknown, /"code":"unknown_tool"/);
  assert.match(unknown, /read_file/);
  assert.match(bad, /"code":"bad_args"/);
  assert.match(bad, /not valid JSON/);
  const failed = w.h.toolUpdates().filter((u) => u.status === 'failed');
  assert.equal(failed.length, 2);
  const badCall = w.h.toolUpdates().find((u) => u.sessionUpdate === 'tool_call' && u.title === 'local_fs.read_file');
  assert.deepEqual(badCall?.rawInput, { raw: '{"path": "a.txt"' });
  assert.equal(w.h.messageText(), 'Sorry.');
});

test('a model that never stops calling tools ends with max_turn_requests', async () => {
  const w = await world(() => ({ toolCalls: [{ name: 'stat_file', arguments: { path: 'a.txt' } }] }), { agentArgs: ['--max-turns', '3'] });
  const res = await w.h.prompt(w.sessionId, 'loop');
  assert.equal(res.stopReason, 'max_turn_requests');
  assert.equal(w.srv.requests.length, 3);
});

test('Ollama: reasoning becomes agent_thought_chunk, text agent_message_chunk, tools work', async () => {
  const w = await world([{ reasoning: 'thinking hard', toolCalls: [{ name: 'count_stats', arguments: { path: 'a.txt' } }] }, { text: 'Three lines.' }], { ollama: true });
  assert.equal((await w.h.prompt(w.sessionId, 'count')).stopReason, 'end_turn');
  const thoughts = w.h.updates.filter((u) => u.update.sessionUpdate === 'agent_thought_chunk').map((u) => (u.update as { content: { text: string } }).content.text).join('');
  assert.equal(thoughts, 'thinking hard');
  assert.equal(w.h.messageText(), 'Three lines.');
  assert.match(toolMessages(w.srv, 1)[0], /Lines: 3/);
  assert.equal(w.srv.requests[0].model, 'qwen3:8b');
});

test('no model reachable: a plain prompt says how to configure one; direct commands work', async () => {
  const w = await world([{ text: 'unused' }], { env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }, ...SANDBOXED });
  const res = await w.h.prompt(w.sessionId, 'hello?');
  assert.equal(res.stopReason, 'end_turn');
  const text = w.h.messageText();
  assert.match(text, /No model is reachable/);
  assert.match(text, /OLLAMA_HOST|OPENAI_BASE_URL/);
  assert.match(text, /direct commands/i);
  await w.h.prompt(w.sessionId, '/help');
  assert.match(w.h.messageText(), /\/tool <name>/);
  assert.equal((await w.h.prompt(w.sessionId, '/tool count_stats {"path":"a.txt"}')).stopReason, 'end_turn');
  const done = w.h.toolUpdates().filter((u) => u.status === 'completed').at(-1)!;
  assert.match(JSON.stringify(done.content), /Lines: 3/);
  assert.equal((await w.h.prompt(w.sessionId, '!echo direct-shell')).stopReason, 'end_turn');
  const shellDone = w.h.toolUpdates().filter((u) => u.status === 'completed').at(-1)!;
  assert.match(JSON.stringify(shellDone.content), /direct-shell/);
});

test('read_only mode (session/set_mode) denies a write; the envelope is the mode', async () => {
  const w = await world([{ toolCalls: [{ name: 'write_file', arguments: { path: 'new.txt', content: 'x' } }] }, { text: 'denied' }]);
  await w.h.agent.request('session/set_mode', { sessionId: w.sessionId, modeId: 'read_only' });
  assert.equal((await w.h.prompt(w.sessionId, 'write')).stopReason, 'end_turn');
  assert.match(toolMessages(w.srv, 1)[0], /"code":"envelope_denied"/);
  assert.equal(existsSync(path.join(w.dir, 'new.txt')), false);
  assert.equal(w.h.permissions.length, 0);
  await assert.rejects(w.h.agent.request('session/set_mode', { sessionId: w.sessionId, modeId: 'nope' }), /unknown mode/);
});

test('a loaded session replays thoughts, text and calls in the order they came, the prompt as written (no attached file content), a command as its output', async () => {
  const w = await world([{ reasoning: 'Where is it?', text: 'Let me look.', toolCalls: [{ name: 'local_shell', arguments: { command: 'echo one' } }] }, { text: 'Done.' }], { permission: () => 'allow_once' });
  const uri = `file://${path.join(w.dir, 'a.txt')}`;
  const prompt: acp.ContentBlock[] = [
    { type: 'text', text: 'what is in @a.txt?' },
    { type: 'resource', resource: { uri, text: 'alpha\nbeta\ngamma\n' } },
    { type: 'resource_link', uri: 'file:///elsewhere/notes.md', name: 'notes.md' },
  ];
  assert.equal(((await w.h.agent.request('session/prompt', { sessionId: w.sessionId, prompt })) as acp.PromptResponse).stopReason, 'end_turn');
  const asked = (w.srv.requests[0].messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'user').at(-1)!.content;
  assert.match(asked, /alpha\nbeta\ngamma/, 'the model gets the attached content');
  const h2 = new Harness({ args: w.h.opts.args, env: w.h.opts.env });
  cleanups.push(() => h2.stop());
  await h2.start();
  const list = (await h2.agent.request('session/list', {})) as acp.ListSessionsResponse;
  assert.equal(list.sessions[0].title, 'what is in @a.txt? [notes.md](file:///elsewhere/notes.md)');
  await h2.agent.request('session/load', { sessionId: w.sessionId, cwd: w.dir, mcpServers: [] });
  const replayed = h2.updates.map((u) => u.update as Record<string, unknown> & { content?: { text?: string } });
  assert.deepEqual(replayed.map((u) => u.sessionUpdate), ['user_message_chunk', 'agent_thought_chunk', 'agent_message_chunk', 'tool_call', 'agent_message_chunk']);
  assert.equal(replayed[0].content?.text, 'what is in @a.txt?\n[notes.md](file:///elsewhere/notes.md)', 'a.txt is mentioned (its link is not repeated), notes.md is not');
  assert.equal(replayed[1].content?.text, 'Where is it?', 'the streamed pieces of a thought come back as one');
  assert.equal(replayed[2].content?.text, 'Let me look.');
  assert.deepEqual(replayed[3].content, [{ type: 'content', content: { type: 'text', text: 'one\n(exit 0)' } }]);
  assert.equal(replayed[4].content?.text, 'Done.');
});

test('sessions persist: list, then load in a new agent process replays history and keeps the ledger', async () => {
  const w = await world(
    [
      { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
      { text: 'Read it.' },
      // after the load: an edit with no new read must pass the read-before-write contract
      { toolCalls: [{ name: 'edit_file', arguments: { path: 'a.txt', old_string: 'alpha', new_string: 'ALPHA' } }] },
      { text: 'Edited.' },
    ],
    { permission: () => 'allow_once' },
  );
  await w.h.prompt(w.sessionId, 'read a.txt');
  const env = w.h.opts.env!;
  const h2 = new Harness({ args: w.h.opts.args, env, permission: () => 'allow_once' });
  cleanups.push(() => h2.stop());
  await h2.start();
  const list = (await h2.agent.request('session/list', {})) as acp.ListSessionsResponse;
  assert.deepEqual(list.sessions.map((s) => s.sessionId), [w.sessionId]);
  assert.equal(list.sessions[0].cwd, w.dir);
  assert.equal(list.sessions[0].title, 'read a.txt');
  await h2.agent.request('session/load', { sessionId: w.sessionId, cwd: w.dir, mcpServers: [] });
  const replayed = h2.updates.map((u) => u.update.sessionUpdate);
  assert.deepEqual(replayed, ['user_message_chunk', 'tool_call', 'agent_message_chunk']);
  assert.equal(h2.messageText(), 'Read it.');
  const replayedIds = h2.toolUpdates().map((u) => u.toolCallId);
  const res = await h2.prompt(w.sessionId, 'now edit');
  const newIds = h2.toolUpdates().filter((u) => u.sessionUpdate === 'tool_call').map((u) => u.toolCallId).slice(replayedIds.length);
  assert.ok(newIds.length > 0 && newIds.every((id) => !replayedIds.includes(id)), 'tool call ids are not reused after a load');
  assert.equal(res.stopReason, 'end_turn');
  assert.equal(readFileSync(path.join(w.dir, 'a.txt'), 'utf8'), 'ALPHA\nbeta\ngamma\n');
  await assert.rejects(h2.agent.request('session/load', { sessionId: 'no-such-session', cwd: w.dir, mcpServers: [] }));
});

test('cancel while a permission request is pending ends the turn cancelled and runs nothing', async () => {
  let release!: () => void;
  const asked = new Promise<void>((r) => (release = r));
  const w = await world(editScript, {
    permission: () => {
      release();
      return new Promise<string>(() => {}); // a human who never answers
    },
  });
  const p = w.h.prompt(w.sessionId, 'uppercase beta');
  await asked;
  await w.h.agent.notify('session/cancel', { sessionId: w.sessionId });
  const res = await p;
  assert.equal(res.stopReason, 'cancelled');
  assert.equal(readFileSync(path.join(w.dir, 'a.txt'), 'utf8'), 'alpha\nbeta\ngamma\n');
  assert.deepEqual(w.h.fsWrites, []);
  assert.equal(w.h.toolUpdates().at(-1)!.status, 'failed');
});

test('allow for this session survives a reload of the session in a new agent process', async () => {
  const w = await world(
    [
      { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
      { toolCalls: [{ name: 'edit_file', arguments: { path: 'a.txt', old_string: 'beta', new_string: 'BETA' } }] },
      { text: 'one' },
      { toolCalls: [{ name: 'edit_file', arguments: { path: 'a.txt', old_string: 'gamma', new_string: 'GAMMA' } }] },
      { text: 'two' },
    ],
    { permission: () => 'allow_session' },
  );
  await w.h.prompt(w.sessionId, 'first');
  assert.equal(w.h.permissions.length, 1);
  await w.h.stop();
  const h2 = new Harness({ args: w.h.opts.args, env: w.h.opts.env, permission: () => 'reject' });
  cleanups.push(() => h2.stop());
  await h2.start();
  await h2.agent.request('session/load', { sessionId: w.sessionId, cwd: w.dir, mcpServers: [] });
  assert.equal((await h2.prompt(w.sessionId, 'second')).stopReason, 'end_turn');
  assert.equal(h2.permissions.length, 0, 'the stored allow answered the ask');
  assert.equal(readFileSync(path.join(w.dir, 'a.txt'), 'utf8'), 'alpha\nBETA\nGAMMA\n');
});

test('provider errors are messages in the session: 401, 429 with a long Retry-After, context too long', async () => {
  const w = await world([
    { status: 401, body: JSON.stringify({ error: { message: 'Incorrect API key provided' } }) },
    { status: 429, body: '{"error":"slow down"}', headers: { 'retry-after': '120' } },
    { status: 400, body: JSON.stringify({ error: { message: "This model's maximum context length is 8192 tokens", code: 'context_length_exceeded' } }) },
  ]);
  for (const [prompt, said] of [
    ['one', /refused the credentials.*Incorrect API key provided.*OPENAI_API_KEY/s],
    ['two', /rate limited.*retry after 120 s/s],
    ['three', /longer than the model's context window.*larger context_window/s],
  ] as const) {
    const before = w.h.messageText().length;
    const res = await w.h.prompt(w.sessionId, prompt);
    assert.equal(res.stopReason, 'end_turn');
    assert.match(w.h.messageText().slice(before), said);
  }
  assert.equal(w.srv.requests.length, 3, "a long Retry-After is not waited out, and a refusal with nothing to compact is not sent again");
});

test('hostile paths from the model never reach the client: escapes, absolute, symlinks out, quarantine, NUL', async () => {
  const { symlinkSync } = await import('node:fs');
  const cases: Array<[string, RegExp]> = [
    ['../outside.txt', /"code":"escape"/],
    ['/etc/passwd', /"code":"escape"/],
    ['link/secret.txt', /"code":"escape"/],
    ['~/.ssh/id_rsa', /"code":"bad_path"/],
    ['.ssh/id_rsa', /"code":"quarantined"/],
    ['a.txt\u0000.png', /"code":"bad_path"/],
    ['file:///etc/passwd', /"code":"bad_path"/],
  ];
  const w = await world(
    [{ toolCalls: cases.map(([p]) => ({ name: 'read_file', arguments: { path: p } })) }, { toolCalls: [{ name: 'write_file', arguments: { path: '../escaped.txt', content: 'x' } }] }, { text: 'refused' }],
    { files: { '.ssh/id_rsa': 'PRIVATE KEY' }, permission: () => 'allow_once' },
  );
  const outside = path.join(path.dirname(w.dir), 'outside');
  (await import('node:fs')).mkdirSync(outside, { recursive: true });
  writeFileSync(path.join(outside, 'secret.txt'), 'secret');
  writeFileSync(path.join(path.dirname(w.dir), 'outside.txt'), 'outside');
  symlinkSync(outside, path.join(w.dir, 'link'));
  assert.equal((await w.h.prompt(w.sessionId, 'read them')).stopReason, 'end_turn');
  const results = toolMessages(w.srv, 1);
  cases.forEach(([p, code], i) => assert.match(results[i], code, p));
  assert.match(toolMessages(w.srv, 2).at(-1)!, /"code":"escape"/);
  assert.deepEqual(w.h.fsReads, [], 'no fs/read_text_file was sent for any of them');
  assert.deepEqual(w.h.fsWrites, []);
  assert.equal(w.h.permissions.length, 0, 'nothing refused by confinement is asked about');
  assert.equal(existsSync(path.join(path.dirname(w.dir), 'escaped.txt')), false);
});

test('hostile shell lines from the model are refused before any terminal/create reaches the client', async () => {
  // every line is harmless even if it ran, and any ask is rejected: the point is that none gets that far
  const lines = ['ls | cat', 'echo $(id)', 'echo `whoami`', 'ls > out.txt', 'sudo ls', 'ls\necho hi', 'cd .. && ls', 'echo ok & echo bg', 'ls *.txt', 'echo ${IFS}x', 'FOO=1 ls', 'echo a\\;b'];
  const w = await world([{ toolCalls: lines.map((command) => ({ name: 'local_shell', arguments: { command } })) }, { text: 'refused' }], { permission: () => 'reject' });
  assert.equal((await w.h.prompt(w.sessionId, 'go')).stopReason, 'end_turn');
  const results = toolMessages(w.srv, 1);
  lines.forEach((l, i) => assert.match(results[i], /"code":"(policy_refused|envelope_denied)"/, l));
  assert.equal(w.h.terminals.size, 0, 'no terminal was created');
  assert.equal(w.h.permissions.length, 0, 'nothing refused by the policy is asked about');
});

test('update_plan: the model keeps a plan, sent as ACP plan updates (not a tool call); the model reads a receipt; a bad plan is refused', async () => {
  const w = await world([
    { toolCalls: [{ name: 'update_plan', arguments: { entries: [{ content: 'Read the parser', status: 'in_progress' }, { content: 'Fix the bug', status: 'pending', priority: 'high' }] } }] },
    { toolCalls: [{ name: 'update_plan', arguments: { entries: [{ content: 'Read the parser', status: 'done' }] } }] },
    { toolCalls: [{ name: 'update_plan', arguments: { entries: [{ content: 'Read the parser', status: 'completed' }, { content: 'Fix the bug', status: 'completed' }] } }] },
    { text: 'All done.' },
  ]);
  const res = await w.h.prompt(w.sessionId, 'fix the parser');
  assert.equal(res.stopReason, 'end_turn');
  const offered = (w.srv.requests[0].tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
  assert.ok(offered.includes('update_plan'), 'the tool is offered');
  const plans = w.h.updates.map((u) => u.update as acp.SessionUpdate).filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: 'plan' }> => u.sessionUpdate === 'plan');
  assert.deepEqual(plans.map((p) => p.entries.map((e) => `${e.status}:${e.content}:${e.priority}`)), [
    ['in_progress:Read the parser:medium', 'pending:Fix the bug:high'],
    ['completed:Read the parser:medium', 'completed:Fix the bug:medium'],
  ]);
  assert.equal(w.h.toolUpdates().length, 0, 'no tool_call for a plan');
  assert.match(toolMessages(w.srv, 1)[0], /Plan updated: 0 of 2 done/);
  assert.match(JSON.parse(toolMessages(w.srv, 2)[1]).error, /status "done"; use pending, in_progress or completed/);
  // the plan comes back with the session
  const h2 = new Harness({ args: w.h.opts.args, env: w.h.opts.env });
  cleanups.push(() => h2.stop());
  await h2.start();
  await h2.agent.request('session/load', { sessionId: w.sessionId, cwd: w.dir, mcpServers: [] });
  assert.deepEqual(h2.updates.map((u) => (u.update as acp.SessionUpdate).sessionUpdate), ['user_message_chunk', 'plan', 'plan', 'agent_message_chunk']);
});

test('a resumed session replays where a turn was cancelled, and a mention of a file with an accent as written', async () => {
  let release!: () => void;
  const asked = new Promise<void>((r) => (release = r));
  const w = await world(editScript, {
    files: { 'módulo.py': 'x = 1\n' },
    permission: () => {
      release();
      return new Promise<string>(() => {});
    },
  });
  const uri = `file://${encodeURI(path.join(w.dir, 'módulo.py'))}`;
  const p = w.h.agent.request('session/prompt', { sessionId: w.sessionId, prompt: [{ type: 'text', text: 'look at @módulo.py' }, { type: 'resource_link', uri, name: 'módulo.py' }] });
  await asked;
  await w.h.agent.notify('session/cancel', { sessionId: w.sessionId });
  assert.equal(((await p) as acp.PromptResponse).stopReason, 'cancelled');
  const h2 = new Harness({ args: w.h.opts.args, env: w.h.opts.env });
  cleanups.push(() => h2.stop());
  await h2.start();
  await h2.agent.request('session/load', { sessionId: w.sessionId, cwd: w.dir, mcpServers: [] });
  const replayed = h2.updates.map((u) => u.update as acp.SessionUpdate & { content?: { text?: string }; _meta?: Record<string, unknown> });
  assert.equal(replayed[0].content?.text, 'look at @módulo.py', 'the mention as written, no percent-encoded link');
  assert.deepEqual(replayed.at(-1), { sessionUpdate: 'session_info_update', _meta: { 'cxl/turnEnded': 'cancelled' } });
});

test('as a session opens the agent checks the model in the background: none answering is a notice with the fix and _meta for the status line; a server\'s only model is named', async () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-acp-')));
  const h = new Harness({ args: ['--provider', 'ollama'], env: { HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), OLLAMA_HOST: 'http://127.0.0.1:9', OPENAI_BASE_URL: undefined }, session: { notices: {} } });
  const srv = await startFakeOpenAI([], { models: [{ id: 'local-coder' }] });
  const h2 = new Harness({ env: { HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_MODEL: undefined } });
  cleanups.push(async () => {
    await h.stop();
    await h2.stop();
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await h.start();
  await h.newSession(dir);
  const until = async (hh: Harness, f: (u: acp.SessionUpdate) => boolean) => {
    for (let i = 0; i < 200 && !hh.updates.some((u) => f(u.update as acp.SessionUpdate)); i++) await new Promise((r) => setTimeout(r, 25));
    return hh.updates.map((u) => u.update as acp.SessionUpdate).find(f);
  };
  const n = await until(h, (u) => u.sessionUpdate === 'notice');
  assert.ok(n && n.sessionUpdate === 'notice' && /^No model is reachable: nothing answers at http:\/\/127\.0\.0\.1:9/.test(n.title), JSON.stringify(n));
  assert.match(String((n as { description?: string }).description), /ollama serve/);
  const meta = await until(h, (u) => u.sessionUpdate === 'session_info_update');
  assert.deepEqual((meta as { _meta?: unknown })._meta, { 'cxl/model': { reachable: false, problem: 'nothing answers at http://127.0.0.1:9 (is `ollama serve` running?)' } });
  await h2.start();
  await h2.newSession(dir);
  const opt = await until(h2, (u) => u.sessionUpdate === 'config_option_update');
  assert.equal((opt as { configOptions: Array<{ id: string; currentValue: string }> }).configOptions.find((o) => o.id === 'model')?.currentValue, 'local-coder');
});
