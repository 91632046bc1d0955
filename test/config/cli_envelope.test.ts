// `cxl tool` and `cxl check` with --envelope: the envelope decision is reported, and a
// non-interactive `cxl tool` refuses an approve unless --yes.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCxl } from '../helpers/cxl.ts';

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-envcli-')));
after(() => fs.rmSync(base, { recursive: true, force: true }));
const root = path.join(base, 'ws');
fs.mkdirSync(path.join(root, '.ssh'), { recursive: true });
fs.writeFileSync(path.join(root, 'a.txt'), 'hello\n');
fs.writeFileSync(path.join(root, '.ssh', 'id_ed25519'), 'KEY\n');
fs.symlinkSync('.ssh/id_ed25519', path.join(root, 'notes'));
const env = { HOME: base, PATH: process.env.PATH };
const tool = async (name: string, args: Record<string, unknown>, ...flags: string[]) => {
  const r = await runCxl(['tool', name, JSON.stringify(args), '--root', root, ...flags], { cwd: root, env });
  return { code: r.code, out: JSON.parse(r.stdout || '{}'), stderr: r.stderr };
};

test('cxl tool reports the envelope decision; approve is refused without --yes', async () => {
  const read = await tool('read_file', { path: 'a.txt' });
  assert.equal(read.code, 0, read.stderr);
  assert.deepEqual(read.out.envelope, { action: 'allow', rule: 'files.read', envelope: 'default', sentence: 'allow: local_fs.read_file is a read, files.read is `allow` of envelope default' });
  const w = await tool('write_file', { path: 'b.txt', content: 'x' });
  assert.equal(w.code, 1);
  assert.equal(w.out.code, 'approval_required');
  assert.equal(fs.existsSync(path.join(root, 'b.txt')), false);
  const y = await tool('write_file', { path: 'b.txt', content: 'x' }, '--yes');
  assert.equal(y.code, 0, y.stderr);
  assert.equal(y.out.envelope.approved_by, 'yes');
  assert.equal(fs.readFileSync(path.join(root, 'b.txt'), 'utf8'), 'x');
  const auto = await tool('write_file', { path: 'c.txt', content: 'y' }, '--envelope', 'auto_edit');
  assert.equal(auto.out.envelope.action, 'allow');
  const ro = await tool('write_file', { path: 'd.txt', content: 'y' }, '--envelope', 'read_only', '--yes');
  assert.equal(ro.out.code, 'envelope_denied');
  assert.equal(ro.out.details.rule, 'files.write');
});

test('cxl tool: the symlinked key stays out of reach for local_fs and local_shell', async () => {
  assert.equal((await tool('read_file', { path: 'notes' }, '--yes')).out.code, 'quarantined');
  // the command policy refuses it before the envelope (whose floor would deny it)
  const sh = await tool('local_shell', { command: 'cat notes' }, '--yes');
  assert.equal(sh.out.code, 'policy_refused');
  assert.equal(sh.out.details.rule, 'path-quarantine');
});

test('cxl tool takes the default envelope from agents.toml, and names unknown envelopes', async () => {
  fs.mkdirSync(path.join(base, '.contenox'), { recursive: true });
  fs.writeFileSync(path.join(base, '.contenox', 'agents.toml'), 'default_envelope = "strict"\n');
  try {
    const r = await tool('read_file', { path: 'a.txt' });
    assert.equal(r.out.code, 'envelope_denied');
    assert.match(r.out.error, /default_action is `deny` of envelope strict/);
  } finally {
    fs.rmSync(path.join(base, '.contenox'), { recursive: true });
  }
  const bad = await runCxl(['tool', 'read_file', '{"path":"a.txt"}', '--root', root, '--envelope', 'nope'], { cwd: root, env });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown envelope `nope`\. Known envelopes: ask_always, auto_edit, default, read_only, serve, strict/);
});

test('cxl check reports the envelope decision of an allowed line', async () => {
  const r = await runCxl(['check', 'ls -la && rm a.txt'], { cwd: root, env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^envelope default: approve: shell program `rm` is in ask_always of envelope default$/m);
  const j = await runCxl(['check', 'git log --oneline', '--json', '--envelope', 'read_only'], { cwd: root, env });
  assert.equal(j.code, 1);
  assert.deepEqual(JSON.parse(j.stdout).envelope, { action: 'deny', rule: 'shell', envelope: 'read_only', sentence: 'deny: local_shell runs a command, shell is `deny` of envelope read_only' });
  const q = await runCxl(['check', 'cat notes'], { cwd: root, env });
  assert.equal(q.code, 1);
  assert.match(q.stdout, /^refuse: step cat: `notes` at offset 4: `notes \(.*\.ssh\/id_ed25519\)` is in the credential quarantine/m);
  assert.match(q.stdout, /^ {2}rule: path-quarantine;/m);
  const refused = await runCxl(['check', 'ls | wc'], { cwd: root, env });
  assert.match(refused.stdout, /^envelope default: not consulted \(the command policy refused the line\)$/m);
});
