// `cxl -p "<prompt>"` as a newcomer types it, a real child process against a scripted model on
// 127.0.0.1: no flag needed, the answer on stdout and exit 0 when the model answered (one that
// only ever answers in prose, as many local models do), the envelope named on stderr, an ask
// nobody is there for refused at once (or, with --wait-for-approvals, stored for `cxl
// approvals`), stdin as context, the JSON formats per docs/missions.schema.json.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { test } from 'node:test';
import { Harness } from '../agent/acp/harness.ts';
import { background, messages, pendingAsks, schema, waitFor, workspace, type Workspace } from '../helpers/unattended.ts';

const MODELS = { models: [{ id: 'm' }] };
const SRC = { 'src/a.ts': 'export const a = 1;\n' };
const toolNames = (req: Record<string, unknown>) => ((req.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
const toolResults = (req: Record<string, unknown>) => messages(req).filter((m) => m.role === 'tool').map((m) => m.content);
const lastLine = (s: string) => s.trimEnd().split('\n').at(-1)!;

/** The user's own agents.toml (HOME is the workspace): no trust needed. */
function userConfig(ws: Workspace, toml: string): void {
  mkdirSync(path.join(ws.dir, '.contenox'), { recursive: true });
  writeFileSync(path.join(ws.dir, '.contenox', 'agents.toml'), toml);
}

test('cxl -p "…" with no flag: a model that answers in prose exits 0 with the answer on stdout, the envelope on stderr, and its session stored to go on with', async () => {
  const ws = await workspace([{ text: 'src/ holds a.ts, which exports a.' }, { text: 'You asked me to summarise src/.' }], SRC, MODELS);
  try {
    const r = await ws.cxl(['-p', 'summarise src/']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'src/ holds a.ts, which exports a.\n');
    assert.match(r.stderr, /^cxl -p: envelope read_only \(no --envelope and no default_envelope set: reads only, no writes or commands; --envelope NAME for more\), session [\w-]+\n/);
    assert.doesNotMatch(r.stderr, /holds a\.ts/, 'the answer is printed once, on stdout');
    // a plain conversation: the prompt as typed, the workspace's tools, no mission tools or preamble
    const first = ws.srv.requests[0];
    assert.equal(messages(first).at(-1)!.content, 'summarise src/');
    assert.equal(messages(first)[0].role, 'system');
    assert.ok(toolNames(first).includes('read_file'), toolNames(first).join(', '));
    assert.deepEqual(toolNames(first).filter((n) => n.startsWith('mission_')), []);
    assert.equal(ws.srv.requests.length, 1, 'no nudge: an answer in prose is the answer');
    const id = /^cxl -p: session ([\w-]+); /.exec(lastLine(r.stderr))?.[1];
    assert.ok(id, lastLine(r.stderr));
    // stored like the UI's sessions, titled by the prompt
    const stored = readFileSync(path.join(ws.data, 'sessions', `${id}.jsonl`), 'utf8');
    assert.match(stored, /"title":"summarise src\/"/);
    const again = await ws.cxl(['-p', '--resume', id, 'what did I ask?']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, 'You asked me to summarise src/.\n');
    const sent = messages(ws.srv.requests[1]).map((m) => `${m.role}: ${m.content}`);
    assert.deepEqual(sent.slice(1), ['user: summarise src/', 'assistant: src/ holds a.ts, which exports a.', 'user: what did I ask?']);
    // -p after other flags, as claude takes it
    const later = await ws.cxl(['--envelope', 'default', '-p', 'hello']);
    assert.equal(later.code, 0, later.stderr);
    assert.match(later.stderr, /^cxl -p: envelope default, session /);
  } finally {
    await ws.close();
  }
});

test('an ask under a configured default envelope is refused at once: the command never runs, the model reads why and answers, exit 0; a command the envelope allows runs', async () => {
  const ws = await workspace(
    [
      { toolCalls: [{ name: 'local_shell', arguments: { command: 'touch marker.txt' } }] },
      { toolCalls: [{ name: 'local_shell', arguments: { command: 'echo control-ran' } }] },
      { text: 'I could not create marker.txt: it needs an approval.' },
    ],
    SRC,
    MODELS,
  );
  try {
    userConfig(ws, 'default_envelope = "default"\n');
    const t0 = Date.now();
    const r = await ws.cxl(['-p', 'create marker.txt']);
    const took = Date.now() - t0;
    assert.equal(r.code, 0, r.stderr);
    assert.ok(took < 20_000, `returned after ${took} ms: nothing waited for a person`);
    assert.equal(existsSync(path.join(ws.dir, 'marker.txt')), false, 'the command was not run');
    assert.match(r.stderr, /^cxl -p: envelope default \(default_envelope in .*agents\.toml\), session /);
    assert.match(r.stderr, /✗ local_shell: touch marker\.txt: approval_required: .*cxl -p asks nobody/);
    assert.match(r.stderr, /1 call was refused \(the model carried on without it\): local_shell: touch marker\.txt \(approval_required\)/);
    // the model got the reason as the call's result, then the allowed command's output
    const [refused] = toolResults(ws.srv.requests[1]);
    assert.match(refused, /"code":"approval_required"/);
    assert.match(refused, /--wait-for-approvals/);
    assert.match(toolResults(ws.srv.requests[2])[1], /control-ran/);
    assert.equal(r.stdout, 'I could not create marker.txt: it needs an approval.\n');
    assert.deepEqual(await pendingAsks(ws), [], 'nothing left waiting');
  } finally {
    await ws.close();
  }
});

test('--wait-for-approvals stores the ask as a durable one: it is in `cxl approvals list` while the run waits; stopping the run withdraws it, and nothing ran', async () => {
  // each run asks to run the command first
  const ws = await workspace((body) => (messages(body).at(-1)!.role === 'user' ? { toolCalls: [{ name: 'local_shell', arguments: { command: 'touch marker.txt' } }] } : { text: 'never reached' }), SRC, MODELS);
  try {
    userConfig(ws, 'default_envelope = "auto_edit"\n');
    const run = background(ws, ['-p', '--wait-for-approvals', 'create marker.txt']);
    const [ask] = await waitFor(async () => {
      const a = await pendingAsks(ws);
      return a.length ? a : undefined;
    }, 'the ask to be stored');
    assert.equal(`${ask.toolset}.${ask.tool}`, 'local_shell.local_shell');
    assert.equal(ask.envelope, 'auto_edit');
    const list = await ws.cxl(['approvals', 'list']);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`${ask.id}  permission  local_shell\\.local_shell  cxl -p `));
    assert.match(list.stdout, /touch marker\.txt/);
    assert.match(run.stderr(), new RegExp(`\\? local_shell: touch marker\\.txt: waiting for a person \\(ask ${ask.id}, until `));
    assert.equal(existsSync(path.join(ws.dir, 'marker.txt')), false, 'nothing ran while it waits');
    process.kill(run.child.pid!, 'SIGTERM');
    const end = await run.exited;
    assert.equal(end.code, 143, run.stderr());
    assert.deepEqual(await pendingAsks(ws), [], 'a stopped run leaves no ask waiting for nobody');
    assert.equal(existsSync(path.join(ws.dir, 'marker.txt')), false);
    // kill -9 writes nothing more: the next look finds its process gone and closes the ask
    const killed = background(ws, ['-p', '--wait-for-approvals', 'create marker.txt']);
    const [left] = await waitFor(async () => ((await pendingAsks(ws)).length ? pendingAsks(ws) : undefined), 'the second ask');
    killed.child.kill('SIGKILL');
    await killed.exited;
    assert.ok(existsSync(path.join(ws.data, 'asks', 'pending', String(left.id))), 'still marked pending on disk');
    assert.deepEqual(await pendingAsks(ws), []);
    const late = await ws.cxl(['approvals', 'respond', String(left.id), '--approve']);
    assert.equal(late.code, 1);
    assert.match(late.stderr, /already denied \(reclaimed\)/);
    assert.equal(existsSync(path.join(ws.dir, 'marker.txt')), false);
  } finally {
    await ws.close();
  }
});

test('what is piped in reaches the model after the prompt, between markers; with no prompt it is the prompt; with neither, a usage error', async () => {
  const diff = 'diff --git a/a.ts b/a.ts\n-export const a = 1;\n+export const a = 2;\n';
  const ws = await workspace([{ text: 'It changes a from 1 to 2.' }, { text: '4' }], SRC, MODELS);
  try {
    const r = await ws.cxl(['-p', 'review this'], { input: diff });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(messages(ws.srv.requests[0]).at(-1)!.content, `review this\n\n--- begin piped stdin ---\n${diff}--- end piped stdin ---`);
    assert.equal(r.stdout, 'It changes a from 1 to 2.\n');
    const alone = await ws.cxl(['-p'], { input: 'what is 2+2?\n' });
    assert.equal(alone.code, 0, alone.stderr);
    assert.equal(messages(ws.srv.requests[1]).at(-1)!.content, 'what is 2+2?');
    const none = await ws.cxl(['-p']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^cxl -p: give the prompt, e\.g\. cxl -p "summarise src\/"/);
    assert.equal(ws.srv.requests.length, 2);
  } finally {
    await ws.close();
  }
});

test('--output-format json and stream-json: each validates against docs/missions.schema.json (oneShotSummary, oneShotEvent)', async () => {
  const script = [{ text: 'Looking.', toolCalls: [{ name: 'read_file', arguments: { path: 'src/a.ts' } }] }, { text: 'a is 1.' }];
  const ws = await workspace((_body, n) => script[n % 2], SRC, MODELS);
  try {
    const check = schema();
    const j = await ws.cxl(['-p', '--output-format', 'json', 'what is a?']);
    assert.equal(j.code, 0, j.stderr);
    const lines = j.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 1, 'one object, nothing else on stdout');
    const out = JSON.parse(lines[0]);
    assert.equal(check.oneShotSummary(out), undefined);
    assert.notEqual(check.summary(out), undefined, 'not a mission summary');
    assert.deepEqual([out.is_error, out.exit_code, out.result, out.envelope, out.usage.requests], [false, 0, 'a is 1.', 'read_only', 2]);
    assert.deepEqual(out.refused, []);
    assert.match(j.stderr, /→ local_fs\.read_file: src\/a\.ts\n✓ local_fs\.read_file: src\/a\.ts/);
    const s = await ws.cxl(['-p', '--output-format', 'stream-json', 'what is a?']);
    assert.equal(s.code, 0, s.stderr);
    assert.equal(s.stderr, '', 'stream-json keeps stderr quiet');
    const events = s.stdout.trimEnd().split('\n').map((l) => {
      const e = JSON.parse(l);
      assert.equal(check.oneShotEvent(e), undefined, l);
      return e;
    });
    assert.deepEqual(events.map((e) => e.type), ['init', 'message', 'tool_call', 'tool_result', 'message', 'result']);
    assert.equal(events[0].envelope, 'read_only');
    assert.equal(events.at(-1).result, 'a is 1.');
  } finally {
    await ws.close();
  }
});

test('the session cxl -p stored opens in the built-in agent as the UI opens it (`cxl --resume`): listed for its directory, its prompt, call and answer replayed', async () => {
  const ws = await workspace([{ text: 'Looking.', toolCalls: [{ name: 'read_file', arguments: { path: 'src/a.ts' } }] }, { text: 'a is 1.' }], SRC, MODELS);
  const h = new Harness({ args: ['--provider', 'openai', '--model', 'm'], env: ws.env });
  try {
    const r = await ws.cxl(['-p', '--output-format', 'json', 'what is a?']);
    assert.equal(r.code, 0, r.stderr);
    const id = JSON.parse(r.stdout).session_id as string;
    await h.start();
    const list = (await h.agent.request('session/list', { cwd: ws.dir })) as { sessions: Array<{ sessionId: string; title?: string | null }> };
    assert.deepEqual(list.sessions.map((x) => [x.sessionId, x.title]), [[id, 'what is a?']]);
    await h.agent.request('session/load', { sessionId: id, cwd: ws.dir, mcpServers: [] });
    const replayed = h.updates.filter((u) => u.sessionId === id).map((u) => u.update as unknown as Record<string, unknown>);
    const shown = replayed.map((u) => (u.sessionUpdate === 'tool_call' ? `call ${u.title} ${u.status}` : `${u.sessionUpdate} ${(u.content as { text?: string } | undefined)?.text?.trim()}`));
    assert.deepEqual(shown.filter((x) => !x.startsWith('available_commands_update')), ['user_message_chunk what is a?', 'agent_message_chunk Looking.', 'call local_fs.read_file: src/a.ts completed', 'agent_message_chunk a is 1.']);
  } finally {
    await h.stop();
    await ws.close();
  }
});

test('no model reachable: exit 1, nothing on stdout, and how to configure one; Ctrl-C exits 130', async () => {
  const ws = await workspace([{ text: 'slow', delayMs: 20_000 }], SRC, MODELS);
  try {
    const r = await ws.cxl(['-p', 'hello', '--provider', 'openai', '--model', 'm'], { env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /cxl -p: no answer: No model is reachable[\s\S]*To use a model, either:/);
    const run = background(ws, ['-p', 'be slow']);
    await waitFor(() => ws.srv.requests.length >= 1 || undefined, 'the model request');
    process.kill(run.child.pid!, 'SIGINT');
    const end = await run.exited;
    assert.equal(end.code, 130, run.stderr());
    assert.match(run.stderr(), /cxl -p: stopped by SIGINT\.\ncxl -p: session [\w-]+; /);
    assert.equal(run.stdout(), '');
  } finally {
    await ws.close();
  }
});

test('--add-dir: a read in the directory works and the session keeps it; continued without the flag it has none; a missing one is a usage error', async () => {
  let notes = '';
  // each run: a read of the notes, then an answer
  const ws = await workspace((_body, n) => (n % 2 === 0 ? { toolCalls: [{ name: 'read_file', arguments: { path: notes } }] } : { text: 'Done.' }), SRC, MODELS);
  const lib = `${ws.dir}-lib`;
  mkdirSync(lib);
  notes = path.join(lib, 'notes.txt');
  writeFileSync(notes, 'lib notes 42\n');
  try {
    const r = await ws.cxl(['-p', '--add-dir', `../${path.basename(lib)}`, 'read the notes']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(toolResults(ws.srv.requests[1]).at(-1) ?? '', /lib notes 42/);
    const id = /^cxl -p: session ([\w-]+); /.exec(lastLine(r.stderr))?.[1];
    const stored = readFileSync(path.join(ws.data, 'sessions', `${id}.jsonl`), 'utf8');
    assert.ok(stored.includes(JSON.stringify(lib)), 'the session keeps the directory');
    const again = await ws.cxl(['-p', '--resume', id!, 'read them again']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(toolResults(ws.srv.requests[3]).at(-1) ?? '', /outside the workspace/, 'continued without --add-dir, the session has none');
    const bad = await ws.cxl(['-p', '--add-dir', 'nowhere', 'read']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /cxl -p: --add-dir nowhere: The additional directory .* is refused: it does not exist/);
    assert.equal(ws.srv.requests.length, 4, 'nothing was sent for the refused run');
  } finally {
    rmSync(lib, { recursive: true, force: true });
    await ws.close();
  }
});
