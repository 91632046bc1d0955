// A session whose additional directory is kept with it, opened by a real `cxl acp` child (a fake
// OpenAI server scripting the model, real files): the file tools read and edit there, a path
// outside both is refused, the edit is checkpointed by its absolute path and /rewind puts THAT
// file back; a later process refuses to load the session once the directory became a link to
// the home directory. And session/new taking one: read, edit and a shell `cat` there, outside
// both refused, a bad directory refused with -32602 and why.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { ADDITIONAL_DIRS_KEY, keptAdditionalDirs } from '../../../src/agent/acp/additional_dirs.ts';
import { SessionStore } from '../../../src/agent/sessions/store.ts';
import type { CheckpointsMeta, RewindMeta } from '../../../src/core/protocol_names.ts';
import { startFakeOpenAI, type Reply, type ScriptedToolCall } from '../../fixtures/fake_models.ts';
import { Harness } from './harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** A fresh temp dir (canonical) holding the workspace `project`, the additional directory `lib` and the agent's `home`. */
function layout(prefix: string): { base: string; project: string; lib: string; home: string } {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  const [project, lib, home] = ['project', 'lib', 'home'].map((d) => path.join(base, d));
  for (const d of [project, lib, home]) mkdirSync(d);
  return { base, project, lib, home };
}

/** A model server that makes `calls` one step a turn, then answers 'done'; the agent's env for it. Both go at the end. */
async function modelPlaying(calls: ScriptedToolCall[][], base: string, home: string) {
  const srv = await startFakeOpenAI((body): Reply => {
    const msgs = body.messages as Array<{ role: string }>;
    const step = msgs.slice(msgs.map((m) => m.role).lastIndexOf('user')).filter((m) => m.role === 'assistant').length;
    return step < calls.length ? { toolCalls: calls[step] } : { text: 'done' };
  });
  cleanups.push(async () => {
    await srv.close();
    rmSync(base, { recursive: true, force: true });
  });
  return { srv, env: { HOME: home, XDG_DATA_HOME: path.join(base, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k' } };
}

test('a kept additional directory: read and edit there, outside both refused, the edit rewound in place; a later load refuses it once it became a link to home', async () => {
  const { base, project, lib, home } = layout('cxl-extra-acp-');
  const x = path.join(lib, 'x.txt');
  writeFileSync(x, 'x before\n');
  writeFileSync(path.join(base, 'outside.txt'), 'not yours\n');
  const calls: ScriptedToolCall[][] = [
    [{ name: 'read_file', arguments: { path: x } }],
    [{ name: 'edit_file', arguments: { path: x, old_string: 'before', new_string: 'after' } }],
    [{ name: 'read_file', arguments: { path: path.join(base, 'outside.txt') } }],
  ];
  const { srv, env } = await modelPlaying(calls, base, home);
  // the session as a process that took the directory would have kept it
  const store = new SessionStore(path.join(base, 'data', 'cxl'));
  const now = new Date().toISOString();
  const log = await store.create({ version: 1, sessionId: 'with-lib', cwd: project, createdAt: now, updatedAt: now, mode: 'default', history: [], replay: [], allows: [], extras: { [ADDITIONAL_DIRS_KEY]: [lib] } });
  await log.close();

  const h = new Harness({ args: ['--provider', 'openai', '--model', 'fake', '--context-window', '1000000'], env, permission: () => 'allow_once' });
  cleanups.push(() => h.stop());
  await h.start();
  await h.agent.request(acp.methods.agent.session.load, { sessionId: 'with-lib', cwd: project, mcpServers: [], additionalDirectories: [lib] });
  await h.prompt('with-lib', 'edit x');
  const results = srv.requests.slice(1).map((r) => JSON.stringify((r.messages as Array<{ role: string }>).at(-1)));
  assert.match(results[0], /x before/, 'read in the additional directory');
  assert.equal(readFileSync(x, 'utf8'), 'x after\n', 'edited there');
  assert.match(results[2], /outside the workspace root and the additional directories/);
  const list = await h.agent.request<CheckpointsMeta>('_cxl/checkpoints', { sessionId: 'with-lib' });
  assert.deepEqual(list.prompts.map((p) => p.files.map((f) => `${f.change} ${f.path}`)), [[`modified ${x}`]]);
  const done = await h.agent.request<RewindMeta>('_cxl/rewind', { sessionId: 'with-lib', n: 1, restore: 'files' });
  assert.deepEqual(done.restored, [x]);
  assert.equal(readFileSync(x, 'utf8'), 'x before\n', 'THAT file restored');
  await h.stop();

  // the directory becomes a link to the home directory: the next process refuses the session
  rmSync(lib, { recursive: true });
  symlinkSync(home, lib);
  const h2 = new Harness({ args: ['--provider', 'openai', '--model', 'fake'], env });
  cleanups.push(() => h2.stop());
  await h2.start();
  await assert.rejects(h2.agent.request(acp.methods.agent.session.load, { sessionId: 'with-lib', cwd: project, mcpServers: [], additionalDirectories: [lib] }), (e: acp.RequestError) => e.code === -32602 && /holds the home directory/.test(e.message + JSON.stringify(e.data ?? '')));
});

test('session/new with an additional directory: read, edit and a shell cat there, a path outside both refused; a bad directory refused with -32602 and why', async () => {
  const { base, project, lib, home } = layout('cxl-extra-new-');
  mkdirSync(path.join(home, '.ssh'));
  const x = path.join(lib, 'x.txt');
  writeFileSync(x, 'x before\n');
  const outside = path.join(base, 'outside.txt');
  writeFileSync(outside, 'not yours\n');
  const calls: ScriptedToolCall[][] = [
    [{ name: 'read_file', arguments: { path: x } }],
    [{ name: 'edit_file', arguments: { path: x, old_string: 'before', new_string: 'after' } }],
    [{ name: 'local_shell', arguments: { command: `cat ${x}` } }],
    [{ name: 'read_file', arguments: { path: outside } }],
    [{ name: 'local_shell', arguments: { command: `cat ${outside}` } }],
  ];
  const { srv, env } = await modelPlaying(calls, base, home);
  const h = new Harness({ args: ['--provider', 'openai', '--model', 'fake', '--context-window', '1000000'], env, terminal: true, permission: () => 'allow_once' });
  cleanups.push(() => h.stop());
  const init = await h.start();
  assert.deepEqual(init.agentCapabilities?.sessionCapabilities?.additionalDirectories, {}, 'advertised as the 2.4.0 schema names it');
  const { sessionId } = await h.agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [], additionalDirectories: [lib] });
  await h.prompt(sessionId, 'edit x');
  const results = srv.requests.slice(1).map((r) => JSON.stringify((r.messages as Array<{ role: string }>).at(-1)));
  assert.match(results[0], /x before/, 'read in the additional directory');
  assert.equal(readFileSync(x, 'utf8'), 'x after\n', 'edited there');
  assert.match(results[2], /x after/, 'a shell cat there');
  assert.match(results[3], /outside the workspace root and the additional directories/);
  assert.match(results[4], /outside _allowed_dir .* and the session's additional directories/);
  assert.doesNotMatch(results[3] + results[4], /not yours/);
  // kept with the session: a later load in this process has it still
  const stored = await new SessionStore(path.join(base, 'data', 'cxl')).load(sessionId);
  assert.deepEqual(stored?.extras?.[ADDITIONAL_DIRS_KEY], [lib]);

  // on load the client's list, checked, replaces the kept one; a bad one refuses the load
  const lib2 = path.join(base, 'lib2');
  mkdirSync(lib2);
  await assert.rejects(h.agent.request(acp.methods.agent.session.load, { sessionId, cwd: project, mcpServers: [], additionalDirectories: ['/'] }), (e: acp.RequestError) => e.code === -32602 && /file system root/.test(e.message));
  await h.agent.request(acp.methods.agent.session.load, { sessionId, cwd: project, mcpServers: [], additionalDirectories: [lib2] });
  await h.agent.request(acp.methods.agent.session.close, { sessionId });
  assert.deepEqual((await new SessionStore(path.join(base, 'data', 'cxl')).load(sessionId))?.extras?.[ADDITIONAL_DIRS_KEY], [lib2]);
  // a client that names none (the schema: none) does not inherit what an earlier client named
  await h.agent.request(acp.methods.agent.session.load, { sessionId, cwd: project, mcpServers: [] });
  await h.agent.request(acp.methods.agent.session.close, { sessionId });
  assert.deepEqual(keptAdditionalDirs((await new SessionStore(path.join(base, 'data', 'cxl')).load(sessionId))!), []);

  const file = x;
  for (const [bad, why] of [['lib', /relative/], ['/', /file system root/], [file, /not a directory/], [path.join(home, '.ssh'), /protected directory/], [path.join(base, 'missing'), /does not exist/]] as const) {
    await assert.rejects(h.agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [], additionalDirectories: [bad] }), (e: acp.RequestError) => e.code === -32602 && why.test(e.message), bad);
  }
});

test('session/list answers each session\'s additional directories as they were saved: as the client gave them, [] once a load named none, left out for one that never had any; a later process lists the same', async () => {
  const { base, project, lib, home } = layout('cxl-extra-list-');
  mkdirSync(path.join(base, 'docs'));
  // given through a link and a `..`: kept and listed as given, not as resolved
  symlinkSync(lib, path.join(base, 'lib-link'));
  const given = [path.join(base, 'lib-link'), path.join(project, '..', 'docs')];
  const { env } = await modelPlaying([], base, home);
  const h = new Harness({ args: ['--provider', 'openai', '--model', 'fake'], env });
  cleanups.push(() => h.stop());
  await h.start();
  const withDirs = (await h.agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [], additionalDirectories: given })).sessionId;
  const without = (await h.agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] })).sessionId;
  const emptied = (await h.agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [], additionalDirectories: [lib] })).sessionId;
  await h.agent.request(acp.methods.agent.session.load, { sessionId: emptied, cwd: project, mcpServers: [] });
  const listed = async (agent: Harness) => {
    const { sessions } = await agent.agent.request(acp.methods.agent.session.list, { cwd: project });
    return Object.fromEntries(sessions.map((s) => [s.sessionId, s]));
  };
  let byId = await listed(h);
  assert.deepEqual(byId[withDirs]?.additionalDirectories, given, 'the list the session was saved with, in order, as given');
  assert.equal('additionalDirectories' in (byId[without] ?? {}), false, 'none kept: left out (the schema reads it as none)');
  assert.deepEqual(byId[emptied]?.additionalDirectories, [], 'a load that named none saved an empty list');
  await h.stop();

  // a later process lists from the index the first one left, and from the files when it is gone
  for (const fresh of [false, true]) {
    if (fresh) rmSync(path.join(base, 'data', 'cxl', 'sessions.index.json'), { force: true });
    const h2 = new Harness({ args: ['--provider', 'openai', '--model', 'fake'], env });
    cleanups.push(() => h2.stop());
    await h2.start();
    byId = await listed(h2);
    assert.deepEqual(byId[withDirs]?.additionalDirectories, given, fresh ? 'rebuilt from the files' : 'from the index');
    assert.equal('additionalDirectories' in (byId[without] ?? {}), false);
    assert.deepEqual(byId[emptied]?.additionalDirectories, []);
    await h2.stop();
  }
});

test('a shell command that changes files in an additional directory is checkpointed there and /rewind puts them back in place; once the directory became a link to elsewhere, the rewind writes nothing through it', async () => {
  const { base, project, lib, home } = layout('cxl-extra-cmd-');
  const x = path.join(lib, 'x.txt');
  const made = path.join(lib, 'made.txt');
  writeFileSync(x, 'x before\n');
  const src = path.join(lib, 'src.txt');
  writeFileSync(src, 'x');
  writeFileSync(path.join(project, 'p.txt'), 'p before\n');
  // harmless writes (the policy takes no redirection: cp), in the additional directory and (the control) the workspace
  const { srv, env } = await modelPlaying([[{ name: 'local_shell', arguments: { command: `cp ${src} ${x} && cp ${src} ${made} && cp ${src} p.txt` } }]], base, home);
  const h = new Harness({ args: ['--provider', 'openai', '--model', 'fake', '--context-window', '1000000'], env, terminal: true, permission: () => 'allow_once' });
  cleanups.push(() => h.stop());
  await h.start();
  const { sessionId } = await h.agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [], additionalDirectories: [lib] });
  await h.prompt(sessionId, 'write there');
  assert.equal(readFileSync(x, 'utf8'), 'x', `the command ran: ${JSON.stringify((srv.requests.at(-1)?.messages as unknown[]).at(-1))}`);
  let list = await h.agent.request<CheckpointsMeta>('_cxl/checkpoints', { sessionId });
  assert.deepEqual(list.prompts[0].files.map((f) => `${f.change} ${f.path}`).sort(), [`created ${made}`, `modified ${x}`, 'modified p.txt'].sort());
  let done = await h.agent.request<RewindMeta>('_cxl/rewind', { sessionId, n: 1, restore: 'files' });
  assert.deepEqual(done.skipped ?? [], []);
  assert.equal(readFileSync(x, 'utf8'), 'x before\n', 'restored in place');
  assert.equal(existsSync(made), false, 'the file it made is removed');
  assert.equal(readFileSync(path.join(project, 'p.txt'), 'utf8'), 'p before\n');
  assert.deepEqual(readdirSync(project), ['p.txt'], 'nothing written under the workspace');

  // the same command again; then the directory moves away and a link to elsewhere takes its name
  await h.prompt(sessionId, 'write there again');
  list = await h.agent.request<CheckpointsMeta>('_cxl/checkpoints', { sessionId });
  assert.equal(list.prompts.at(-1)?.files.length, 3);
  const n = list.prompts.at(-1)!.n;
  const elsewhere = path.join(base, 'elsewhere');
  mkdirSync(elsewhere);
  writeFileSync(path.join(elsewhere, 'x.txt'), 'elsewhere, mine\n');
  writeFileSync(path.join(elsewhere, 'made.txt'), 'made elsewhere, mine\n');
  renameSync(lib, path.join(base, 'moved'));
  symlinkSync(elsewhere, lib);
  done = await h.agent.request<RewindMeta>('_cxl/rewind', { sessionId, n, restore: 'files' });
  assert.deepEqual(done.restored, ['p.txt'], 'the workspace file only');
  assert.deepEqual(done.skipped?.map((s) => s.path).sort(), [made, x].sort());
  assert.ok(done.skipped!.every((s) => s.why.includes(`\`${lib}\` is a symbolic link now`)), JSON.stringify(done.skipped));
  assert.equal(readFileSync(path.join(elsewhere, 'x.txt'), 'utf8'), 'elsewhere, mine\n', 'nothing written where the link leads');
  assert.equal(readFileSync(path.join(elsewhere, 'made.txt'), 'utf8'), 'made elsewhere, mine\n', 'nor removed there');
  assert.deepEqual(readdirSync(elsewhere).sort(), ['made.txt', 'x.txt'], 'nothing made there');
  assert.equal(readFileSync(path.join(base, 'moved', 'x.txt'), 'utf8'), 'x', 'the moved directory is left as the command left it');
});
