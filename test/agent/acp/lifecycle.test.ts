// `cxl acp` as a real child process when things go wrong around it: its client goes away mid-turn,
// it gets SIGTERM during a command or SIGKILL mid-call, its data directory cannot be written. Each
// time: it exits promptly, leaves nothing running, and what it saved loads into a well-formed
// history that the next model request can carry.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import type * as acp from '@agentclientprotocol/sdk';
import { moduleCommand } from '../../../src/core/platform/runtime.ts';
import { startFakeOpenAI, type FakeServer, type Reply } from '../../fixtures/fake_models.ts';
import { mountTmpfs } from '../../helpers/tmpfs.ts';
import { alive, Harness, type HarnessOptions } from './harness.ts';
import { assertWellFormed } from '../../helpers/well_formed.ts';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

const mcpFixture = moduleCommand(new URL('../../fixtures/mcp_server.ts', import.meta.url).href);

interface World {
  base: string;
  project: string;
  env: Record<string, string | undefined>;
  h: Harness;
  srv: FakeServer;
  sessionId: string;
  newSession: acp.NewSessionResponse;
  pidfile: string;
}

async function world(script: (n: number) => Reply, o: HarnessOptions & { toml?: string; dataDir?: string; mcp?: boolean } = {}): Promise<World> {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-life-')));
  const project = path.join(base, 'project');
  mkdirSync(path.join(project, '.contenox'), { recursive: true });
  writeFileSync(path.join(project, 'a.txt'), 'alpha\n');
  if (o.toml) writeFileSync(path.join(project, '.contenox', 'agents.toml'), o.toml);
  const srv = await startFakeOpenAI((_body, n) => script(n));
  const env = { HOME: base, XDG_DATA_HOME: o.dataDir ?? path.join(base, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k' };
  // a project agents.toml written here is the person's own: trusted for the run
  const h = new Harness({ ...o, args: ['--provider', 'openai', '--model', 'fake', ...(o.toml ? ['--trust-project'] : [])], env });
  cleanups.push(async () => {
    await h.stop();
    await srv.close();
    rmSync(base, { recursive: true, force: true });
  });
  await h.start();
  const pidfile = path.join(base, 'mcp.pid');
  const [command, ...args] = mcpFixture;
  const servers: acp.McpServer[] = o.mcp ? [{ name: 'fixture', command, args, env: [{ name: 'MCP_FIXTURE_PIDFILE', value: pidfile }] }] : [];
  const ns = await h.newSession(project, servers);
  return { base, project, env, h, srv, sessionId: ns.sessionId, newSession: ns, pidfile };
}

async function until(what: string, pred: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Resolves with how the agent process ended and how long after `t0` it did. */
function exitOf(h: Harness, t0: number): Promise<{ code: number | null; signal: string | null; ms: number }> {
  return new Promise((resolve) => {
    if (h.child.exitCode !== null || h.child.signalCode !== null) resolve({ code: h.child.exitCode, signal: h.child.signalCode, ms: Date.now() - t0 });
    else h.child.once('exit', (code, signal) => resolve({ code, signal, ms: Date.now() - t0 }));
  });
}

/** A second agent process on the same data: loads the session and sends one more prompt. */
async function resume(w: World, text: string): Promise<Harness> {
  const h2 = new Harness({ args: w.h.opts.args, env: w.env });
  cleanups.push(() => h2.stop());
  await h2.start();
  await h2.agent.request('session/load', { sessionId: w.sessionId, cwd: w.project, mcpServers: [] });
  assert.equal((await h2.prompt(w.sessionId, text)).stopReason, 'end_turn');
  return h2;
}

type WireMessage = { role: string; content?: string; tool_calls?: Array<{ id: string }>; tool_call_id?: string };
const messages = (srv: FakeServer, n: number) => (srv.requests[n].messages ?? []) as WireMessage[];

test('the client closes stdin while the model hangs: exit within 2 s, the MCP server gone, the prompt saved, the next request well formed', async () => {
  const w = await world((n) => (n === 0 ? { toolCalls: [{ name: 'stat_file', arguments: { path: 'a.txt' } }] } : n === 1 ? { text: 'never', delayMs: 60_000 } : { text: 'resumed' }), { mcp: true });
  const pending = w.h.prompt(w.sessionId, 'look at a.txt').catch((e: unknown) => e);
  await until('the second model request', () => w.srv.requests.length === 2);
  await until('the MCP server', () => existsSync(w.pidfile));
  const mcpPid = Number(readFileSync(w.pidfile, 'utf8'));
  assert.ok(alive(mcpPid));
  const t0 = Date.now();
  w.h.child.stdin!.end();
  const exit = await exitOf(w.h, t0);
  await pending;
  assert.ok(exit.ms < 2000, `exited after ${exit.ms} ms`);
  assert.equal(exit.code, 0);
  await until('the MCP server to go', () => !alive(mcpPid), 1000);

  await resume(w, 'again');
  // three requests, the hung one sent once: Deno's node:http resent a request cut on a kept-alive
  // connection (denoland/deno#36786), and the resend came before the resumed prompt's
  const users = (i: number) => messages(w.srv, i).filter((m) => m.role === 'user').map((m) => m.content);
  const seen = w.srv.requests.map((_, i) => `#${i}: ${JSON.stringify(users(i))}`).join('\n');
  assert.equal(w.srv.requests.length, 3, `the requests the server saw:\n${seen}`);
  const sent = messages(w.srv, 2);
  assertWellFormed(sent);
  assert.deepEqual(sent.filter((m) => m.role === 'user').map((m) => m.content), ['look at a.txt', 'again']);
  assert.match(sent.find((m) => m.role === 'tool')?.content ?? '', /a\.txt/, 'the tool result of the cut turn was kept');
});

test('the client goes away while an approval is pending: the unanswered call is saved answered `cancelled`', async () => {
  const w = await world((n) => (n === 0 ? { toolCalls: [{ name: 'write_file', arguments: { path: 'new.txt', content: 'x' } }] } : { text: 'resumed' }), {
    permission: () => new Promise<string>(() => {}), // a client that never answers, then goes away
  });
  const pending = w.h.prompt(w.sessionId, 'write it').catch((e: unknown) => e);
  await until('the approval request', () => w.h.permissions.length === 1);
  const t0 = Date.now();
  w.h.child.stdin!.end();
  const exit = await exitOf(w.h, t0);
  await pending;
  assert.ok(exit.ms < 2000, `exited after ${exit.ms} ms`);
  assert.equal(existsSync(path.join(w.project, 'new.txt')), false);
  await resume(w, 'what happened?');
  const sent = messages(w.srv, 1);
  assertWellFormed(sent);
  assert.match(sent.find((m) => m.role === 'tool')?.content ?? '', /"code":"cancelled"/);
});

test('SIGTERM during a command: the client is asked to kill it, it is gone within 2 s, the agent exits 143 with the prompt saved', async () => {
  const w = await world((n) => (n === 0 ? { toolCalls: [{ name: 'local_shell', arguments: { command: 'sleep 30' } }] } : { text: 'resumed' }), {
    permission: () => 'allow_once',
    toml: '[tools_policies.local_shell]\n_allowed_commands = "sleep"\n',
  });
  const pending = w.h.prompt(w.sessionId, 'sleep a while').catch((e: unknown) => e);
  await until('the command to start', () => w.h.terminalPids.length === 1);
  const pid = w.h.terminalPids[0];
  assert.ok(alive(pid));
  const t0 = Date.now();
  // process.kill, not child.kill: Deno's child.kill also closes the child's stdin, which is the
  // other way to end cxl acp (and then the client is gone and cannot be asked to kill anything)
  process.kill(w.h.child.pid!, 'SIGTERM');
  await until('the command to be killed', () => !alive(pid) || w.h.terminals.get('t1')?.exit !== undefined, 2000);
  const exit = await exitOf(w.h, t0);
  await pending;
  assert.ok(exit.ms < 2000, `exited after ${exit.ms} ms`);
  assert.equal(exit.code, 143);
  assert.equal(w.h.terminals.get('t1')?.exit?.signal, 'SIGKILL', 'killed through terminal/kill, not left running');
  await resume(w, 'go on');
  const sent = messages(w.srv, 1);
  assertWellFormed(sent);
  assert.deepEqual(sent.filter((m) => m.role === 'user').map((m) => m.content), ['sleep a while', 'go on']);
  assert.match(sent.find((m) => m.role === 'tool')?.content ?? '', /"code":"cancelled"/);
});

test('SIGKILL mid-call: the fsync\'d prompt and tool call survive; the unanswered call is answered on load', async () => {
  const w = await world((n) => (n === 0 ? { toolCalls: [{ name: 'stat_file', arguments: { path: 'a.txt' } }, { name: 'write_file', arguments: { path: 'b.txt', content: 'y' } }] } : { text: 'resumed' }), {
    permission: () => new Promise<string>(() => {}),
  });
  void w.h.prompt(w.sessionId, 'two calls').catch(() => {});
  await until('the approval request', () => w.h.permissions.length === 1);
  w.h.child.kill('SIGKILL');
  await exitOf(w.h, Date.now());
  const h2 = await resume(w, 'after the crash');
  // the replay shows what happened before the crash
  const replayed = h2.updates.filter((u) => u.update.sessionUpdate === 'user_message_chunk' || u.update.sessionUpdate === 'tool_call').map((u) => u.update.sessionUpdate);
  assert.deepEqual(replayed.slice(0, 2), ['user_message_chunk', 'tool_call']);
  const sent = messages(w.srv, 1);
  assertWellFormed(sent);
  const results = sent.filter((m) => m.role === 'tool').map((m) => m.content ?? '');
  assert.equal(results.length, 2);
  assert.match(results[0], /a\.txt/, 'the finished call kept its result');
  assert.match(results[1], /"code":"cancelled"/, 'the one cut off is answered cancelled');
});

test('SIGKILL while the model is still thinking about the first request: the prompt survives', async () => {
  const w = await world((n) => (n === 0 ? { text: 'never', delayMs: 60_000 } : { text: 'resumed' }));
  void w.h.prompt(w.sessionId, 'do not lose me').catch(() => {});
  await until('the model request', () => w.srv.requests.length === 1);
  w.h.child.kill('SIGKILL');
  await exitOf(w.h, Date.now());
  await resume(w, 'still there?');
  assert.deepEqual(messages(w.srv, 1).filter((m) => m.role === 'user').map((m) => m.content), ['do not lose me', 'still there?']);
});

test('a data path that is a file: session/new says the session will not be resumable, a notice says why, the session works', async () => {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-life-data-')));
  cleanups.push(() => rmSync(base, { recursive: true, force: true }));
  writeFileSync(path.join(base, 'cxl'), 'a file where the data directory should be');
  const w = await world(() => ({ text: 'fine' }), { dataDir: base, session: { notices: {} } });
  assert.deepEqual((w.newSession._meta as Record<string, { resumable: boolean }>)['cxl/persistence'].resumable, false);
  await until('the notice', () => w.h.updates.some((u) => u.update.sessionUpdate === 'notice'));
  const notice = w.h.updates.find((u) => u.update.sessionUpdate === 'notice')!.update as { severity: string; title: string; description: string };
  assert.equal(notice.severity, 'error');
  assert.equal(notice.title, 'This session cannot be saved');
  assert.match(notice.description, /a file stands where the directory .*cxl.* should be/);
  assert.match(notice.description, /XDG_DATA_HOME/);
  assert.equal((await w.h.prompt(w.sessionId, 'hello')).stopReason, 'end_turn');
  assert.equal((await w.h.prompt(w.sessionId, 'again')).stopReason, 'end_turn');
  assert.equal(w.h.updates.filter((u) => u.update.sessionUpdate === 'notice').length, 1, 'once per kind of failure');
  assert.equal(w.h.messageText(), 'finefine', 'no fallback message when the client shows notices');
  const list = (await w.h.agent.request('session/list', {})) as acp.ListSessionsResponse;
  assert.deepEqual(list.sessions, []);
});

test('a full disk (tiny tmpfs): the client is told once, the session keeps working, no temp file is left', async (t) => {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-life-full-')));
  const mnt = path.join(base, 'data');
  const fsys = mountTmpfs(mnt, '64k');
  if ('error' in fsys) {
    rmSync(base, { recursive: true, force: true });
    t.diagnostic(`cannot mount a tmpfs here (${fsys.error}); the data-path-is-a-file test covers the notice`);
    return;
  }
  cleanups.push(() => {
    fsys.unmount();
    rmSync(base, { recursive: true, force: true });
  });
  // a client without notices: the fallback is an agent message
  const w = await world(() => ({ text: 'ok' }), { dataDir: mnt });
  assert.deepEqual((w.newSession._meta as Record<string, { resumable: boolean }>)['cxl/persistence'].resumable, true);
  assert.equal((await w.h.prompt(w.sessionId, `remember this: ${'z'.repeat(100_000)}`)).stopReason, 'end_turn');
  await until('the save failure message', () => /no space left/.test(w.h.messageText()));
  assert.match(w.h.messageText(), /cannot be saved: no space left on the device holding .*sessions \(ENOSPC\)/);
  assert.equal((await w.h.prompt(w.sessionId, 'and now?')).stopReason, 'end_turn');
  assert.equal(w.h.messageText().match(/no space left/g)?.length, 1, 'told once');
  assert.deepEqual(readdirSync(path.join(mnt, 'cxl', 'sessions')), [`${w.sessionId}.jsonl`], 'no temp file');
});

test('a session never prompted outlives the agent like a used one: both are listed by the next process, and it resumes there', async () => {
  const w = await world(() => ({ text: 'hello' }));
  const unused = await w.h.newSession(w.project);
  assert.equal((await w.h.prompt(w.sessionId, 'hi')).stopReason, 'end_turn');
  const listed = async (h: Harness) => ((await h.agent.request('session/list', {})) as acp.ListSessionsResponse).sessions.map((s) => s.sessionId).sort();
  assert.deepEqual(await listed(w.h), [w.sessionId, unused.sessionId].sort(), 'both listed while this process has them');
  const t0 = Date.now();
  w.h.child.stdin!.end();
  assert.equal((await exitOf(w.h, t0)).code, 0);
  const dir = path.join(w.env.XDG_DATA_HOME!, 'cxl', 'sessions');
  assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort(), [`${w.sessionId}.jsonl`, `${unused.sessionId}.jsonl`].sort());
  const h2 = new Harness({ args: w.h.opts.args, env: w.env });
  cleanups.push(() => h2.stop());
  await h2.start();
  assert.deepEqual(await listed(h2), [w.sessionId, unused.sessionId].sort());
  await h2.agent.request('session/resume', { sessionId: unused.sessionId, cwd: w.project, mcpServers: [] });
});
