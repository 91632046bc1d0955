// `cxl tool` end to end as a child process: JSON results and errors with exit codes, --batch
// with one session, --session persisting the ledger, --policy, --root, --yes. Writes pass
// --yes: the session envelope asks about them and nobody can answer here.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCxl } from '../helpers/cxl.ts';
import { tempDir, tree } from '../core/fs_helpers.ts';

const json = (s: string) => s.trim().split('\n').map((l) => JSON.parse(l));

test('one call prints {"ok":true,"result":...}; a tool error prints its code and exits 1', async () => {
  const root = tree({ 'a.txt': 'hello\n' });
  const ok = await runCxl(['tool', 'read_file', '{"path":"a.txt"}'], { cwd: root });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout).ok, true);
  assert.equal(JSON.parse(ok.stdout).result, 'hello\n');
  const bad = await runCxl(['tool', 'local_fs.read_file', '{"path":"../etc/passwd"}'], { cwd: root });
  assert.equal(bad.code, 1);
  const r = JSON.parse(bad.stdout);
  assert.equal(r.ok, false);
  assert.equal(r.code, 'escape');
  assert.match(r.error, /outside the workspace root/);
  const unknown = await runCxl(['tool', 'frob', '{}'], { cwd: root });
  assert.equal(unknown.code, 1);
  assert.equal(JSON.parse(unknown.stdout).code, 'unknown_tool');
});

test('bad usage exits 2: no tool name, bad JSON args, bad --policy, --batch with a name', async () => {
  const root = tree();
  for (const args of [['tool'], ['tool', 'read_file', '{nope'], ['tool', 'read_file', '{}', '--policy', 'novalue'], ['tool', '--batch', 'read_file'], ['tool', 'x', '--session', '../up']]) {
    const r = await runCxl(args, { cwd: root });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /cxl tool/);
  }
  const help = await runCxl(['tool', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--batch/);
});

test('--batch keeps one session: a read satisfies the later write; a bad line is bad_args and the batch goes on', async () => {
  const root = tree({ 'f.txt': 'v1\n' });
  const input = [
    JSON.stringify({ tool: 'write_file', args: { path: 'f.txt', content: 'too early\n' } }),
    JSON.stringify({ tool: 'read_file', args: { path: 'f.txt' } }),
    '{not json',
    '',
    JSON.stringify({ tool: 'local_fs.write_file', args: { path: 'f.txt', content: 'v2\n' } }),
    JSON.stringify({ tool: 'grep', args: { path: '.', pattern: 'v2' } }),
    JSON.stringify({ args: {} }),
  ].join('\n');
  const r = await runCxl(['tool', '--batch', '--yes'], { cwd: root, input });
  assert.equal(r.code, 0, r.stderr);
  const out = json(r.stdout);
  assert.equal(out.length, 6);
  assert.equal(out[0].code, 'not_read');
  assert.equal(out[1].result, 'v1\n');
  assert.equal(out[2].code, 'bad_args');
  assert.equal(out[3].ok, true);
  assert.equal(out[3].result.written, true);
  assert.equal(out[4].result, 'f.txt:1: v2');
  assert.equal(out[5].code, 'bad_args');
  assert.equal(fs.readFileSync(path.join(root, 'f.txt'), 'utf8'), 'v2\n');
});

test('--session keeps the ledger between runs; without it each run is a new session', async () => {
  const root = tree({ 'f.txt': 'v1\n' });
  const env = { CXL_STATE_DIR: tempDir() };
  assert.equal((await runCxl(['tool', 'read_file', '{"path":"f.txt"}', '--session', 's1'], { cwd: root, env })).code, 0);
  const fresh = await runCxl(['tool', 'write_file', '{"path":"f.txt","content":"x"}', '--yes'], { cwd: root, env });
  assert.equal(JSON.parse(fresh.stdout).code, 'not_read');
  const other = await runCxl(['tool', 'write_file', '{"path":"f.txt","content":"x"}', '--session', 's2', '--yes'], { cwd: root, env });
  assert.equal(JSON.parse(other.stdout).code, 'not_read');
  const same = await runCxl(['tool', 'write_file', '{"path":"f.txt","content":"v2\\n"}', '--session', 's1', '--yes'], { cwd: root, env });
  assert.equal(same.code, 0, same.stdout);
  assert.equal(fs.readFileSync(path.join(root, 'f.txt'), 'utf8'), 'v2\n');
  assert.ok(fs.existsSync(path.join(env.CXL_STATE_DIR, 'sessions', 's1', 'ledger.json')));
});

test('--root, --policy overrides (with a warning for a bad value), and the default chain denials', async () => {
  const root = tree({ 'sub/big.txt': 'x'.repeat(2000), 'node_modules/m.js': 'm' });
  const big = await runCxl(['tool', 'read_file', '{"path":"big.txt"}', '--root', path.join(root, 'sub'), '--policy', '_max_read_bytes=1000'], { cwd: '/' });
  assert.equal(JSON.parse(big.stdout).code, 'too_large');
  const raised = await runCxl(['tool', 'read_file', '{"path":"big.txt"}', '--root', path.join(root, 'sub'), '--policy', '_max_read_bytes=0', '--policy', '_max_output_bytes=0']);
  assert.equal(JSON.parse(raised.stdout).result.length, 2000);
  const warn = await runCxl(['tool', 'read_file', '{"path":"big.txt"}', '--root', path.join(root, 'sub'), '--policy', '_max_read_bytes=lots']);
  assert.match(warn.stderr, /warning: tools_policies\.local_fs\._max_read_bytes = "lots" is not an integer; using 1048576/);
  assert.equal(JSON.parse(warn.stdout).result.length, 2000, 'the default limit stands in for the bad value');
  const denied = await runCxl(['tool', 'read_file', '{"path":"node_modules/m.js"}'], { cwd: root });
  assert.equal(JSON.parse(denied.stdout).code, 'denied_path');
  const allowed = await runCxl(['tool', 'read_file', '{"path":"node_modules/m.js"}', '--policy', '_denied_path_substrings='], { cwd: root });
  assert.equal(JSON.parse(allowed.stdout).result, 'm');
});

test('grep API_KEY over . never prints .env or a key; --yes unlocks reading .env, never a key', async () => {
  const root = tree({ 'app.js': 'use(API_KEY)\n', '.env': 'API_KEY=sk-live-1\n', '.ssh/id_ed25519': 'API_KEY private\n', 'id_rsa': 'API_KEY private\n', 'tls.pem': 'API_KEY pem\n' });
  for (const extra of [[], ['--yes']]) {
    const r = await runCxl(['tool', 'grep', '{"path":".","pattern":"API_KEY"}', ...extra], { cwd: root });
    assert.equal(JSON.parse(r.stdout).result, 'app.js:1: use(API_KEY)');
  }
  const no = await runCxl(['tool', 'read_file', '{"path":".env"}'], { cwd: root });
  assert.equal(no.code, 1);
  assert.equal(JSON.parse(no.stdout).code, 'approval_required');
  const yes = await runCxl(['tool', 'read_file', '{"path":".env"}', '--yes'], { cwd: root });
  assert.equal(JSON.parse(yes.stdout).result, 'API_KEY=sk-live-1\n');
  const key = await runCxl(['tool', 'read_file', '{"path":"id_rsa"}', '--yes'], { cwd: root });
  assert.equal(JSON.parse(key.stdout).code, 'quarantined');
});
