// Attached MCP servers: the McpToolset against a real stdio server built on the MCP SDK, and
// the same server attached to `cxl acp` sessions (from session/new and from agents.toml).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type * as acp from '@agentclientprotocol/sdk';
import { fromAcp, kindOf, McpToolset } from '../../../src/agent/tools/mcp.ts';
import { moduleCommand } from '../../../src/core/platform/runtime.ts';
import { startFakeOpenAI, type Reply } from '../../fixtures/fake_models.ts';
import { alive, Harness } from '../acp/harness.ts';

const fixture = fileURLToPath(new URL('../../fixtures/mcp_server.ts', import.meta.url));
const [cmd, ...cmdArgs] = moduleCommand(fixture);
const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function start(name = 'fx', callTimeoutMs = 1500) {
  const problems: string[] = [];
  const ts = await McpToolset.start({ name, command: cmd, args: cmdArgs }, { callTimeoutMs, onProblem: (m) => problems.push(m) });
  cleanups.push(() => ts.close());
  return { ts, problems };
}

test('tools are listed as <server>.<tool> with kinds from annotations; a harmless call returns its text', async () => {
  const { ts } = await start();
  const specs = ts.list();
  assert.deepEqual(specs.map((s) => [s.toolset, s.name, s.kind]), [
    ['fx', 'echo', 'other'],
    ['fx', 'search_notes', 'search'],
    ['fx', 'misbehave', 'other'],
  ]);
  assert.equal(specs[0].inputSchema.type, 'object');
  assert.ok('text' in specs[0].inputSchema.properties);
  assert.equal(await ts.call('echo', { text: 'hi' }), 'echo: hi');
  await assert.rejects(ts.call('nope', {}), (e: { code: string }) => e.code === 'unknown_tool');
  await assert.rejects(ts.call('misbehave', { how: 'error' }), (e: { code: string; message: string }) => e.code === 'io_error' && /went wrong on purpose/.test(e.message));
  assert.ok(ts.alive, 'an error result does not withdraw the server');
  const huge = (await ts.call('misbehave', { how: 'huge' })) as string;
  assert.ok(huge.length < 300_000, 'a huge result is cut');
  assert.match(huge, /more characters cut/);
  assert.equal(kindOf({ name: 'get_page', annotations: { readOnlyHint: true, openWorldHint: true } }), 'fetch');
});

for (const [how, code, said] of [
  ['crash', 'io_error', /exited \(fixture: crashing on purpose\); its tools are withdrawn/],
  ['hang', 'timeout', /did not answer misbehave within 1.5 s; it counts as hung/],
  ['malformed', 'io_error', /something malformed/],
] as const) {
  test(`a server that misbehaves (${how}) is reported and its tools withdrawn`, async () => {
    const { ts, problems } = await start();
    await assert.rejects(ts.call('misbehave', { how }), (e: { code: string }) => e.code === code);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0], said);
    assert.deepEqual(ts.list(), []);
    await assert.rejects(ts.call('echo', { text: 'x' }), /withdrawn/);
  });
}

test('a server that fails to start says so and how to fix it', async () => {
  await assert.rejects(McpToolset.start({ name: 'broken', command: path.join(tmpdir(), 'no-such-program-xyz') }), (e: { code: string; message: string }) => e.code === 'io_error' && /MCP server broken failed to start/.test(e.message) && /\[mcp_servers\.broken\]/.test(e.message));
  assert.deepEqual(fromAcp([{ type: 'sse', name: 's', url: 'http://x', headers: [] }]).skipped.length, 1);
  // names that would shadow the built-in toolsets, or are not plain names, are refused before anything starts
  for (const name of ['local_fs', 'local_shell', '../x', 'a.b', '']) {
    await assert.rejects(McpToolset.start({ name, command: cmd, args: cmdArgs }), (e: { code: string }) => e.code === 'bad_args', name);
  }
});

test('a server whose check right before the spawn says it must not start is not spawned; one whose check passes is', async () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-mcp-verify-')));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const refused = path.join(dir, 'refused.pid');
  await assert.rejects(
    McpToolset.start({ name: 'stale', command: cmd, args: cmdArgs, env: { MCP_FIXTURE_PIDFILE: refused }, verify: () => 'its trust no longer holds; run `cxl trust`.' }),
    (e: { code: string; message: string }) => e.code === 'stale' && /cxl trust/.test(e.message),
  );
  assert.equal(existsSync(refused), false, 'the server was never spawned');
  // control: the same server with a check that passes starts
  const started = path.join(dir, 'started.pid');
  const ts = await McpToolset.start({ name: 'fresh', command: cmd, args: cmdArgs, env: { MCP_FIXTURE_PIDFILE: started }, verify: () => undefined });
  cleanups.push(() => ts.close());
  assert.equal(existsSync(started), true);
});

// ── through the agent ──────────────────────────────────────────────────────────────────────

async function agentWorld(script: Reply[], o: { toml?: string; acpServer?: boolean; permission?: (r: acp.RequestPermissionRequest) => string } = {}) {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-mcp-')));
  const project = path.join(dir, 'project');
  mkdirSync(path.join(project, '.contenox'), { recursive: true });
  if (o.toml) writeFileSync(path.join(project, '.contenox', 'agents.toml'), o.toml);
  const pidfile = path.join(dir, 'mcp.pid');
  const srv = await startFakeOpenAI(script);
  const h = new Harness({
    // a project agents.toml written here is the person's own: trusted for the run
    args: ['--provider', 'openai', '--model', 'fake', ...(o.toml ? ['--trust-project'] : [])],
    env: { HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k', CXL_MCP_TIMEOUT_MS: '1500' },
    permission: o.permission,
  });
  cleanups.push(async () => {
    await h.stop();
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await h.start();
  const servers: acp.McpServer[] = o.acpServer === false ? [] : [{ name: 'fixture', command: cmd, args: cmdArgs, env: [{ name: 'MCP_FIXTURE_PIDFILE', value: pidfile }] }];
  const ns = await h.newSession(project, servers);
  return { h, srv, sessionId: ns.sessionId, pidfile, project };
}

const toolNames = (req: Record<string, unknown>) => ((req.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
const toolResults = (req: Record<string, unknown>) => ((req.messages ?? []) as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool').map((m) => m.content);

test('an MCP server from session/new: offered to the model, default_action (approve) asks with the arguments, kind other', async () => {
  const w = await agentWorld([{ toolCalls: [{ name: 'fixture.echo', arguments: { text: 'hello' } }] }, { text: 'ok' }], { permission: () => 'allow_once' });
  assert.equal((await w.h.prompt(w.sessionId, 'echo')).stopReason, 'end_turn');
  const names = toolNames(w.srv.requests[0]);
  assert.ok(names.includes('fixture__echo') && names.includes('read_file'), names.join(','));
  assert.equal(w.h.permissions.length, 1);
  const p = w.h.permissions[0];
  assert.equal(p.toolCall.kind, 'other');
  assert.match(JSON.stringify(p.toolCall.content), /hello/);
  assert.equal((p.toolCall._meta as { cxl: { rule: string } }).cxl.rule, 'default_action');
  assert.equal(toolResults(w.srv.requests[1])[0], 'echo: hello');
  const call = w.h.toolUpdates().find((u) => u.sessionUpdate === 'tool_call')!;
  assert.equal(call.title, 'fixture.echo');
  assert.equal(w.h.toolUpdates().at(-1)!.status, 'completed');
  // servers stop with the session (here: the agent)
  const pid = Number(readFileSync(w.pidfile, 'utf8'));
  assert.ok(alive(pid));
  await w.h.stop();
  const t0 = Date.now();
  while (alive(pid) && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 50));
  assert.equal(alive(pid), false, 'the MCP server was stopped');
});

test('named in the envelope tools table it is allowed without asking; strict denies it; the search tool is kind search', async () => {
  const toml = '[envelopes.mine]\nextends = "default"\n[envelopes.mine.tools]\n"fixture.echo" = "allow"\n"fixture.search_notes" = "allow"\n';
  const w = await agentWorld(
    [{ toolCalls: [{ name: 'fixture.echo', arguments: { text: 'a' } }, { name: 'fixture.search_notes', arguments: { query: 'q' } }] }, { text: 'ok' }, { toolCalls: [{ name: 'fixture.echo', arguments: { text: 'b' } }] }, { text: 'denied' }],
    { toml },
  );
  await w.h.agent.request('session/set_mode', { sessionId: w.sessionId, modeId: 'mine' });
  assert.equal((await w.h.prompt(w.sessionId, 'go')).stopReason, 'end_turn');
  assert.equal(w.h.permissions.length, 0);
  assert.deepEqual(toolResults(w.srv.requests[1]), ['echo: a', 'no notes match q']);
  assert.equal(w.h.toolUpdates().filter((u) => u.sessionUpdate === 'tool_call')[1].kind, 'search');
  await w.h.agent.request('session/set_mode', { sessionId: w.sessionId, modeId: 'strict' });
  await w.h.prompt(w.sessionId, 'again');
  assert.match(toolResults(w.srv.requests[3]).at(-1)!, /"code":"envelope_denied"/);
});

test('a server that crashes mid-call: the call fails, the session is told, its tools are withdrawn, the session goes on', async () => {
  const w = await agentWorld(
    [{ toolCalls: [{ name: 'fixture.misbehave', arguments: { how: 'crash' } }] }, { text: 'It crashed.' }, { text: 'Still here.' }],
    { permission: () => 'allow_once' },
  );
  assert.equal((await w.h.prompt(w.sessionId, 'misbehave')).stopReason, 'end_turn');
  assert.equal(w.h.toolUpdates().at(-1)!.status, 'failed');
  assert.match(toolResults(w.srv.requests[1])[0], /"code":"io_error"/);
  assert.match(w.h.messageText(), /MCP server fixture exited .*its tools are withdrawn/);
  assert.equal(toolNames(w.srv.requests[1]).some((n) => n.startsWith('fixture')), false, 'withdrawn from the next request');
  assert.equal((await w.h.prompt(w.sessionId, 'still there?')).stopReason, 'end_turn');
  assert.match(w.h.messageText(), /Still here\./);
});

test('[mcp_servers.<name>] in agents.toml attaches a server to every session; one that fails to start is reported', async () => {
  const q = (s: string) => JSON.stringify(s);
  const toml = `[mcp_servers.notes]\ncommand = ${q(cmd)}\nargs = [${cmdArgs.map(q).join(', ')}]\n\n[mcp_servers.broken]\ncommand = ${q(path.join(tmpdir(), 'no-such-program-xyz'))}\n`;
  const w = await agentWorld([{ toolCalls: [{ name: 'notes.echo', arguments: { text: 'cfg' } }] }, { text: 'ok' }], { toml, acpServer: false, permission: () => 'allow_once' });
  assert.equal((await w.h.prompt(w.sessionId, 'go')).stopReason, 'end_turn');
  assert.equal(toolResults(w.srv.requests[1])[0], 'echo: cfg');
  assert.match(w.h.messageText(), /MCP server broken failed to start/);
  assert.equal(existsSync(w.pidfile), false);
});

// ── cxl config and cxl tool ────────────────────────────────────────────────────────────────

test('cxl config lists attached servers and their tools; cxl tool <server>.<tool> calls one through the envelope', async () => {
  const { runCxl } = await import('../../helpers/cxl.ts');
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-mcp-cli-')));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, '.contenox'));
  const q = (s: string) => JSON.stringify(s);
  writeFileSync(
    path.join(dir, '.contenox', 'agents.toml'),
    `[mcp_servers.notes]\ncommand = ${q(cmd)}\nargs = [${cmdArgs.map(q).join(', ')}]\n\n[mcp_servers.broken]\ncommand = ${q(path.join(tmpdir(), 'no-such-program-xyz'))}\n\n` +
      '[envelopes.notes_ok]\nextends = "default"\n[envelopes.notes_ok.tools]\n"notes.echo" = "allow"\n',
  );
  const env = { HOME: dir };
  const listed = await runCxl(['config'], { cwd: dir, env });
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /# mcp server notes: .* \(not started; --probe lists its tools\)/);
  assert.doesNotMatch(listed.stdout, /3 tools|failed to start/, 'plain cxl config starts no server');
  const cfg = await runCxl(['config', '--probe'], { cwd: dir, env });
  assert.equal(cfg.code, 0, cfg.stderr);
  assert.match(cfg.stdout, /# mcp server notes \(stdio .*\): 3 tools/);
  assert.match(cfg.stdout, /#   notes\.echo \(other\): Echo the text back\./);
  assert.match(cfg.stdout, /#   notes\.search_notes \(search\)/);
  assert.match(cfg.stdout, /# mcp server broken \(stdio .*\): MCP server broken failed to start/);

  const ask = await runCxl(['tool', 'notes.echo', '{"text":"x"}'], { cwd: dir, env });
  assert.equal(ask.code, 1);
  assert.equal(JSON.parse(ask.stdout).code, 'approval_required', 'default_action approve: nobody answers');
  const yes = await runCxl(['tool', '--yes', 'notes.echo', '{"text":"x"}'], { cwd: dir, env });
  assert.equal(yes.code, 0, yes.stdout + yes.stderr);
  assert.equal(JSON.parse(yes.stdout).result, 'echo: x');
  const named = await runCxl(['tool', '--envelope', 'notes_ok', 'notes.echo', '{"text":"y"}'], { cwd: dir, env });
  assert.equal(JSON.parse(named.stdout).result, 'echo: y');
  assert.equal(JSON.parse(named.stdout).envelope.rule, 'tools');
  const strict = await runCxl(['tool', '--envelope', 'strict', '--yes', 'notes.echo', '{"text":"z"}'], { cwd: dir, env });
  assert.equal(JSON.parse(strict.stdout).code, 'envelope_denied');
  const broken = await runCxl(['tool', '--yes', 'broken.anything', '{}'], { cwd: dir, env });
  assert.equal(JSON.parse(broken.stdout).code, 'io_error');
});

test('an http MCP server from session/new: headers sent, tool kind fetch from its annotations', async () => {
  const { startHttpMcp } = await import('../../fixtures/mcp_http_server.ts');
  const mcp = await startHttpMcp();
  cleanups.push(() => mcp.close());
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-mcp-http-')));
  const srv = await startFakeOpenAI([{ toolCalls: [{ name: 'web.shout', arguments: { text: 'quiet' } }] }, { text: 'ok' }]);
  const h = new Harness({ args: ['--provider', 'openai', '--model', 'fake'], env: { HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_BASE_URL: srv.url }, permission: () => 'allow_once' });
  cleanups.push(async () => {
    await h.stop();
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await h.start();
  const ns = await h.newSession(dir, [{ type: 'http', name: 'web', url: mcp.url, headers: [{ name: 'x-token', value: 'secret-1' }] }]);
  assert.equal((await h.prompt(ns.sessionId, 'shout')).stopReason, 'end_turn');
  assert.equal(toolResults(srv.requests[1])[0], 'QUIET');
  assert.equal(h.toolUpdates().find((u) => u.sessionUpdate === 'tool_call')!.kind, 'fetch');
  assert.ok(mcp.seenHeaders.every((hd) => hd['x-token'] === 'secret-1'));
});

test('[mcp_servers.x] with a url sends its configured headers, {{env:NAME}} filled; an unset variable is named; headers without a url are refused', async () => {
  const { startHttpMcp } = await import('../../fixtures/mcp_http_server.ts');
  const { runCxl } = await import('../../helpers/cxl.ts');
  const mcp = await startHttpMcp();
  cleanups.push(() => mcp.close());
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-mcp-headers-')));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, '.contenox'));
  const toml = path.join(dir, '.contenox', 'agents.toml');
  writeFileSync(toml, `[mcp_servers.web]\nurl = ${JSON.stringify(mcp.url)}\nheaders = { Authorization = "Bearer {{env:WEB_TOKEN}}", "X-Team" = "lit-secret-77" }\n`);
  // the values are never printed: only which variables they come from
  const shown = await runCxl(['config'], { cwd: dir, env: { HOME: dir, WEB_TOKEN: 'secret-2' } });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /mcp_servers\.web\.headers\.Authorization = "\(hidden; from \$WEB_TOKEN\)"/);
  assert.doesNotMatch(shown.stdout, /lit-secret-77|secret-2/);
  const ok = await runCxl(['tool', '--yes', 'web.shout', '{"text":"quiet"}'], { cwd: dir, env: { HOME: dir, WEB_TOKEN: 'secret-2' } });
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  assert.equal(JSON.parse(ok.stdout).result, 'QUIET');
  assert.ok(mcp.seenHeaders.length > 0);
  assert.ok(mcp.seenHeaders.every((hd) => hd.authorization === 'Bearer secret-2' && hd['x-team'] === 'lit-secret-77'), JSON.stringify(mcp.seenHeaders));
  const seen = mcp.seenHeaders.length;
  const unset = await runCxl(['tool', '--yes', 'web.shout', '{"text":"quiet"}'], { cwd: dir, env: { HOME: dir } });
  assert.notEqual(unset.code, 0);
  assert.match(unset.stdout + unset.stderr, /header Authorization uses \{\{env:WEB_TOKEN\}\}, and WEB_TOKEN is not set/);
  assert.equal(mcp.seenHeaders.length, seen, 'nothing was sent without the header');
  writeFileSync(toml, `[mcp_servers.web]\ncommand = "true"\nheaders = { Authorization = "x" }\n`);
  const wrong = await runCxl(['config'], { cwd: dir, env: { HOME: dir } });
  assert.notEqual(wrong.code, 0);
  assert.match(wrong.stderr + wrong.stdout, /`headers` go with `url`/);
});
