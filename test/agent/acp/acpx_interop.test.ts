// Interop with acpx, an independent ACP client from npm (its own SDK copy, its own fs and
// terminal implementation; installed in test/fixtures/acpx on first use): it drives `cxl acp`
// through a read, an approved edit and a terminal run, with a scripted model, through direct
// commands with no model, and `acpx set` of the mode and model config options.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { test } from 'node:test';
import { quote } from 'shell-quote';
import { startFakeOpenAI, type Reply } from '../../fixtures/fake_models.ts';
import { cxlCommand, repoRoot } from '../../helpers/cxl.ts';

/**
 * acpx needs Node 22 (its engines field), so it is not one of cxl's dependencies (a clean install
 * on Node 20 warns about nothing): it has a folder of its own with a lockfile, installed there on
 * first use. It runs on Node 20 all the same.
 */
function ensureAcpx(): string {
  const dir = path.join(repoRoot, 'test', 'fixtures', 'acpx');
  const cli = path.join(dir, 'node_modules', 'acpx', 'dist', 'cli.js');
  if (existsSync(cli)) return cli;
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, encoding: 'utf8', timeout: 180_000 });
  if (r.status !== 0 || !existsSync(cli)) throw new Error(`could not install acpx for this test (npm ci in ${dir}, exit ${r.status}): ${r.stderr || r.error?.message}`);
  return cli;
}

const acpxCli = ensureAcpx();

interface Msg {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: unknown;
}

function acpx(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number | null; messages: Msg[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    // acpx is a Node program whatever runtime runs this test; it spawns cxl under ours
    const child = spawn('node', [acpxCli, '--format', 'json', '--cwd', cwd, '--timeout', '60', '--agent', quote(cxlCommand().concat(['acp', '--provider', 'openai', '--model', 'fake'])), ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const messages = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Msg);
      resolve({ code, messages, stderr: err });
    });
  });
}

async function setup(script: Reply[], models?: Array<Record<string, unknown>>) {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-acpx-')));
  const project = path.join(dir, 'project');
  mkdirSync(project);
  writeFileSync(path.join(project, 'a.txt'), 'alpha\nbeta\n');
  const srv = await startFakeOpenAI(script, models ? { models } : {});
  const env = { HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k' };
  return {
    project,
    env,
    srv,
    done: async () => {
      await srv.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const updates = (ms: Msg[]) => ms.filter((m) => m.method === 'session/update').map((m) => (m.params as { update: Record<string, unknown> }).update);

test('acpx drives a model turn: a read, an approved edit, a terminal run', async () => {
  const w = await setup([
    { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
    { toolCalls: [{ name: 'edit_file', arguments: { path: 'a.txt', old_string: 'beta', new_string: 'BETA' } }] },
    { toolCalls: [{ name: 'local_shell', arguments: { command: 'cat a.txt' } }] },
    { text: 'All three done.' },
  ]);
  try {
    const r = await acpx(['--approve-all', 'exec', 'uppercase beta and show the file'], w.project, w.env);
    assert.equal(r.code, 0, r.stderr);
    const methods = r.messages.map((m) => m.method).filter(Boolean);
    assert.ok(methods.includes('fs/read_text_file'));
    assert.ok(methods.includes('session/request_permission'));
    assert.ok(methods.includes('fs/write_text_file'));
    assert.ok(methods.includes('terminal/create'));
    assert.ok(methods.includes('terminal/release'));
    assert.equal(readFileSync(path.join(w.project, 'a.txt'), 'utf8'), 'alpha\nBETA\n');
    const perm = r.messages.find((m) => m.method === 'session/request_permission')!;
    const content = (perm.params as { toolCall: { content: Array<{ type: string; oldText?: string; newText?: string }> } }).toolCall.content;
    assert.deepEqual(content.find((c) => c.type === 'diff'), { type: 'diff', path: path.join(w.project, 'a.txt'), oldText: 'alpha\nbeta\n', newText: 'alpha\nBETA\n' });
    const finals = updates(r.messages).filter((u) => u.sessionUpdate === 'tool_call_update' && (u.status === 'completed' || u.status === 'failed'));
    assert.deepEqual(finals.map((u) => u.status), ['completed', 'completed', 'completed']);
    // the shell result the model saw carries what acpx's terminal printed
    const toolMsgs = ((w.srv.requests[3].messages ?? []) as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool');
    assert.match(toolMsgs[2].content, /alpha\\nBETA/);
    const stop = r.messages.find((m) => m.result && 'stopReason' in m.result);
    assert.equal(stop?.result?.stopReason, 'end_turn');
    const said = updates(r.messages).filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => (u.content as { text: string }).text).join('');
    assert.equal(said, 'All three done.');
  } finally {
    await w.done();
  }
});

test('acpx denying writes: the edit is rejected and the file is untouched', async () => {
  const w = await setup([
    { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
    { toolCalls: [{ name: 'edit_file', arguments: { path: 'a.txt', old_string: 'beta', new_string: 'BETA' } }] },
    { text: 'Rejected, fine.' },
  ]);
  try {
    const r = await acpx(['--approve-reads', '--non-interactive-permissions', 'deny', 'exec', 'uppercase beta'], w.project, w.env);
    assert.equal(readFileSync(path.join(w.project, 'a.txt'), 'utf8'), 'alpha\nbeta\n');
    assert.ok(!r.messages.some((m) => m.method === 'fs/write_text_file'));
    const finals = updates(r.messages).filter((u) => u.sessionUpdate === 'tool_call_update' && (u.status === 'failed' || u.status === 'completed'));
    assert.deepEqual(finals.map((u) => u.status), ['completed', 'failed'], r.stderr);
    assert.ok(r.messages.some((m) => m.method === 'session/request_permission'));
    const toolMsgs = ((w.srv.requests[2].messages ?? []) as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool');
    assert.match(toolMsgs[1].content, /"code":"rejected"/);
  } finally {
    await w.done();
  }
});

test('acpx with direct commands and no model: a new file written, a terminal run', async () => {
  const w = await setup([]);
  try {
    const env = { ...w.env, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' };
    const wr = await acpx(['--approve-all', 'exec', '/tool write_file {"path":"b.txt","content":"by acpx\\n"}'], w.project, env);
    assert.equal(wr.code, 0, wr.stderr);
    assert.equal(readFileSync(path.join(w.project, 'b.txt'), 'utf8'), 'by acpx\n');
    const sh = await acpx(['--approve-all', 'exec', '!echo one && echo two'], w.project, env);
    assert.equal(sh.code, 0, sh.stderr);
    assert.equal(sh.messages.filter((m) => m.method === 'terminal/create').length, 2);
    assert.match(JSON.stringify(sh.messages), /one\\\\ntwo|one[^]*two/);
  } finally {
    await w.done();
  }
});

test('acpx in its default permission mode refuses terminals: the model and acpx read client_refused with acpx\'s words', async () => {
  const w = await setup([{ toolCalls: [{ name: 'local_shell', arguments: { command: 'echo hi' } }] }, { text: 'The shell was refused.' }]);
  // acpx reports no sandbox for its terminals, so every command would ask (and acpx refuse the
  // ask): with the OS sandbox off (the person's own config: a project may not turn it off),
  // the allowlisted `echo` goes straight to terminal/create.
  mkdirSync(path.join(w.env.HOME, '.contenox'));
  writeFileSync(path.join(w.env.HOME, '.contenox', 'agents.toml'), 'default_envelope = "peers"\n[envelopes.peers]\nextends = "default"\n[envelopes.peers.shell]\nsandbox = "off"\n');
  try {
    const r = await acpx(['exec', 'say hi in the shell'], w.project, w.env);
    assert.ok(r.messages.some((m) => m.method === 'terminal/create'), r.stderr);
    const toolMsgs = ((w.srv.requests[1].messages ?? []) as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool');
    const result = JSON.parse(toolMsgs[0].content) as { code: string; error: string };
    assert.equal(result.code, 'client_refused');
    assert.match(result.error, /^Permission denied for terminal\/create/);
    const failed = updates(r.messages).find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed') as { content: Array<{ content?: { text?: string } }> } | undefined;
    assert.ok(failed?.content.some((c) => c.content?.text === 'client_refused: Permission denied for terminal/create'), JSON.stringify(failed));
    const commands = updates(r.messages).find((u) => u.sessionUpdate === 'available_commands_update') as { availableCommands: Array<{ name: string }> } | undefined;
    assert.deepEqual(commands?.availableCommands.map((c) => c.name), ['help', 'tool', 'compact', 'mission', 'memory', 'init', 'shell']);
  } finally {
    await w.done();
  }
});

test('acpx set: the model and mode config options are set on a kept session, and kept with it', async () => {
  const w = await setup([{ text: 'ok' }], [{ id: 'fake' }, { id: 'fake-large' }]);
  try {
    // acpx keeps the session between its commands (each one may start the agent again)
    const ttl = ['--ttl', '5'];
    assert.equal((await acpx([...ttl, 'sessions', 'new'], w.project, w.env)).code, 0);
    const model = await acpx([...ttl, 'set', 'model', 'fake-large'], w.project, w.env);
    assert.equal(model.code, 0, model.stderr);
    assert.ok(model.messages.some((m) => (m as { action?: string; modelId?: string }).action === 'model_set' && (m as { modelId?: string }).modelId === 'fake-large'), JSON.stringify(model.messages));
    const mode = await acpx([...ttl, 'set', 'mode', 'strict'], w.project, w.env);
    assert.equal(mode.code, 0, mode.stderr + JSON.stringify(mode.messages).slice(-800));
    const set = mode.messages.find((m) => (m as { action?: string }).action === 'config_set') as { configOptions?: Array<{ id: string; currentValue: string }> } | undefined;
    assert.deepEqual(set?.configOptions?.map((o) => [o.id, o.currentValue]), [['mode', 'strict'], ['model', 'fake-large']]);
    const bad = await acpx([...ttl, 'set', 'model', 'gpt-9'], w.project, w.env);
    assert.notEqual(bad.code, 0);
    assert.match(JSON.stringify(bad.messages), /no model `gpt-9`: the server lists: fake, fake-large/);
  } finally {
    await w.done();
  }
});

test('acpx sessions new, then prompt in a separate invocation (the agent exited between): the same session is resumed, no second one made', async () => {
  const w = await setup([{ text: 'hello again' }]);
  try {
    // --ttl 1: acpx's queue owner, and with it `cxl acp`, ends a second after each command
    const ttl = ['--ttl', '1'];
    const made = await acpx([...ttl, 'sessions', 'new'], w.project, w.env);
    assert.equal(made.code, 0, made.stderr);
    const id = (made.messages.find((m) => (m as { action?: string }).action === 'session_ensured') as { acpxSessionId?: string } | undefined)?.acpxSessionId;
    assert.ok(id, JSON.stringify(made.messages));
    await new Promise((r) => setTimeout(r, 2500));
    const asked = await acpx([...ttl, 'prompt', 'say hello'], w.project, w.env);
    assert.equal(asked.code, 0, asked.stderr);
    const opened = asked.messages.find((m) => m.method === 'session/resume' || m.method === 'session/load' || m.method === 'session/new');
    assert.notEqual(opened?.method, 'session/new', 'no second session');
    assert.equal((opened?.params as { sessionId?: string } | undefined)?.sessionId, id);
    assert.ok(!asked.messages.some((m) => (m as { error?: unknown }).error), JSON.stringify(asked.messages.filter((m) => (m as { error?: unknown }).error)));
    const files = readdirSync(path.join(w.env.XDG_DATA_HOME, 'cxl', 'sessions')).filter((f) => f.endsWith('.jsonl'));
    assert.deepEqual(files, [`${id}.jsonl`]);
  } finally {
    await w.done();
  }
});
