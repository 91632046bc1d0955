// terminal/* served by the client: process groups, confinement, environment, output cap.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { TailBuffer } from '../../../src/core/shell/output_limit.ts';
import { TerminalHost } from '../../../src/client/hosts/terminal_host.ts';
import { stopSandboxesAhead } from '../../../src/core/shell/local_terminal.ts';
import { eventually, processesWith, uniqueSleep } from '../../core/shell/helpers.ts';
import { hasBwrap } from '../../helpers/system_tools.ts';

const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-term-')));
mkdirSync(path.join(root, 'sub'));
after(() => removeWorkspace(root));

/**
 * Removes a test workspace. A command's end starts the next command's sandbox ahead, and bwrap
 * setting it up makes its mount points again in a tree being removed (rm: ENOTEMPTY; seen once
 * in CI): the held sandboxes are stopped first, and the removal is tried again while one finishes.
 */
async function removeWorkspace(dir: string): Promise<void> {
  stopSandboxesAhead();
  for (let i = 0; ; i++) {
    try {
      rmSync(dir, { recursive: true, force: true });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOTEMPTY' || i >= 40) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

// A killed process whose parent is gone can linger as a zombie until init reaps it: count it dead.
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

test('kill takes down the whole process group, and the terminal stays readable (unsandboxed)', async () => {
  const h = new TerminalHost(root, () => {}, { mode: 'off' });
  const id = h.create({ command: 'sleep 30 & echo $!; sleep 30' });
  let out = '';
  for (let i = 0; i < 100 && !/\d+\n/.test(out); i++) {
    await new Promise((r) => setTimeout(r, 20));
    out = h.output(id).output;
  }
  const grandchild = Number(out.trim());
  assert.ok(grandchild > 0 && alive(grandchild));
  h.kill(id);
  const exit = await h.waitForExit(id);
  assert.equal(exit.signal, 'SIGKILL');
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(alive(grandchild), false, 'the background child died with its group');
  assert.equal(h.output(id).exitStatus?.signal, 'SIGKILL');
  h.release(id);
  assert.throws(() => h.output(id), /released or never created/);
});

test('cwd must be a directory inside the root; the default is the root', async () => {
  const h = new TerminalHost(root);
  assert.throws(() => h.create({ command: 'pwd', cwd: '/etc' }), /outside the workspace/);
  assert.throws(() => h.create({ command: 'pwd', cwd: path.join(root, 'missing') }), /not a directory/);
  const a = h.create({ command: 'pwd', args: [] });
  const b = h.create({ command: 'pwd', args: [], cwd: path.join(root, 'sub') });
  await Promise.all([h.waitForExit(a), h.waitForExit(b)]);
  assert.equal(h.output(a).output.trim(), root);
  assert.equal(h.output(b).output.trim(), path.join(root, 'sub'));
  h.dispose();
});

test('credentials are scrubbed from the environment; variables the agent sets are kept', async () => {
  process.env.OPENAI_API_KEY = 'sk-secret';
  try {
    const h = new TerminalHost(root);
    const id = h.create({ command: 'env', args: [], env: [{ name: 'FROM_AGENT', value: 'yes' }] });
    await h.waitForExit(id);
    const env = h.output(id).output;
    assert.doesNotMatch(env, /sk-secret/);
    assert.match(env, /^FROM_AGENT=yes$/m);
  } finally {
    delete process.env.OPENAI_API_KEY;
  }
});

test('args run without a shell: metacharacters are plain words', async () => {
  const h = new TerminalHost(root);
  const id = h.create({ command: 'echo', args: ['$HOME', '&&', 'x;y'] });
  await h.waitForExit(id);
  assert.equal(h.output(id).output, '$HOME && x;y\n');
});

test('the tail buffer keeps the last bytes, never more than the limit, starting on a character', () => {
  const b = new TailBuffer(10);
  b.push(Buffer.from('ab'));
  assert.equal(b.text(), 'ab');
  assert.equal(b.truncated, false);
  b.push(Buffer.from('ééééé')); // 10 bytes
  b.push(Buffer.from('z'));
  const t = b.text();
  assert.ok(Buffer.byteLength(t) <= 10);
  assert.ok(t.endsWith('z'));
  assert.match(t, /^é*z$/);
  assert.equal(b.truncated, true);
  for (let i = 0; i < 10_000; i++) b.push(Buffer.from('0123456789'));
  assert.equal(b.text(), '0123456789');
});

// ── the sandbox of the client's terminals (the TUI serving terminal/create) ──

const haveBwrap = hasBwrap('the client terminal host sandbox tests');

function wsWithKey(): string {
  const ws = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-term-sb-')));
  mkdirSync(path.join(ws, '.ssh'));
  writeFileSync(path.join(ws, '.ssh', 'id_rsa'), 'PRIVATE term-test-key\n');
  writeFileSync(path.join(ws, 'notes.txt'), 'PRIVATE notes\n');
  mkdirSync(path.join(ws, '.git', 'hooks'), { recursive: true });
  return ws;
}

async function runIn(h: TerminalHost, p: Parameters<TerminalHost['create']>[0]): Promise<{ output: string; exitCode?: number | null }> {
  const id = h.create(p);
  const exit = await h.waitForExit(id);
  const out = h.output(id).output;
  h.release(id);
  return { output: out, exitCode: exit.exitCode };
}

test('terminals run sandboxed: a recursive grep never shows the key; hooks cannot be planted; the workspace is writable', async () => {
  if (!haveBwrap) return;
  const ws = wsWithKey();
  try {
    const h = new TerminalHost(ws);
    assert.equal(h.sandboxState().state, 'bubblewrap');
    const g = await runIn(h, { command: 'grep -r PRIVATE .' });
    assert.match(g.output, /PRIVATE notes/);
    assert.doesNotMatch(g.output, /term-test-key/);
    const w = await runIn(h, { command: 'touch made.txt .git/hooks/pre-commit' });
    assert.notEqual(w.exitCode, 0);
    assert.equal(existsSync(path.join(ws, 'made.txt')), true, 'no hint: workspace-write');
    assert.equal(existsSync(path.join(ws, '.git', 'hooks', 'pre-commit')), false);
  } finally {
    await removeWorkspace(ws);
  }
});

test("the agent's hint is honoured only when it narrows", async () => {
  if (!haveBwrap) return;
  const ws = wsWithKey();
  try {
    const h = new TerminalHost(ws);
    const ro = await runIn(h, { command: 'touch', args: ['ro.txt'], _meta: { 'cxl/sandbox': 'read-only' } });
    assert.notEqual(ro.exitCode, 0);
    assert.equal(existsSync(path.join(ws, 'ro.txt')), false, 'read-only narrows');
    const wide = await runIn(h, { command: 'touch', args: ['/var/tmp/cxl-term-wide'], _meta: { 'cxl/sandbox': 'danger-full-access' } });
    assert.notEqual(wide.exitCode, 0, 'an unknown hint is not a wider sandbox');
    assert.equal(existsSync('/var/tmp/cxl-term-wide'), false);
    const net = new TerminalHost(ws, () => {}, { mode: 'off' });
    const off = await runIn(net, { command: 'grep', args: ['-r', 'PRIVATE', '.'], _meta: { 'cxl/sandbox': 'read-only' } });
    assert.match(off.output, /term-test-key/, 'mode off on the client: no sandbox, whatever the agent hints');
  } finally {
    await removeWorkspace(ws);
  }
});

test('kill and release leave nothing behind in the sandbox, including a daemon that left the group', async () => {
  if (!haveBwrap) return;
  const ws = wsWithKey();
  try {
    const h = new TerminalHost(ws);
    const m = uniqueSleep();
    const id = h.create({ command: `sleep ${m} & setsid sleep ${m} & wait` });
    assert.ok(await eventually(() => processesWith(`sleep ${m}`).length >= 2, 8000), 'started');
    h.kill(id);
    const exit = await h.waitForExit(id);
    assert.equal(exit.signal, 'SIGKILL');
    assert.ok(await eventually(() => processesWith(`sleep ${m}`).length === 0), `left: ${processesWith(`sleep ${m}`).join(' ')}`);
    const id2 = h.create({ command: `setsid sleep ${m} & sleep ${m}` });
    assert.ok(await eventually(() => processesWith(`sleep ${m}`).length >= 2, 8000));
    h.dispose();
    assert.ok(await eventually(() => processesWith(`sleep ${m}`).length === 0), 'dispose kills every sandbox');
    assert.throws(() => h.output(id2), /released/);
  } finally {
    await removeWorkspace(ws);
  }
});

test('required with a sandbox that cannot start: terminal/create is refused with sandbox_unavailable', () => {
  const bin = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-fake-bwrap-')));
  try {
    writeFileSync(path.join(bin, 'bwrap'), '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n');
    chmodSync(path.join(bin, 'bwrap'), 0o755);
    const probe = { pathEnv: `${bin}:${process.env.PATH}`, platform: 'linux' };
    const h = new TerminalHost(root, () => {}, { mode: 'required', probe });
    assert.equal(h.sandboxState().state, 'unavailable');
    assert.throws(() => h.create({ command: 'true', args: [] }), (e: Error & { data?: { code?: string } }) => e.data?.code === 'sandbox_unavailable' && /apt-get install bubblewrap/.test(e.message));
    // auto: runs, unsandboxed, and says so in its state
    const auto = new TerminalHost(root, () => {}, { probe });
    assert.match(auto.sandboxState().reason ?? '', /No permissions to create new namespace/);
    auto.dispose();
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});

test("the session's additional directories: a cwd there is allowed, outside every root still refused; sandboxed, one is writable and its key hidden", async () => {
  const ws = wsWithKey();
  const extra = wsWithKey();
  try {
    const plain = new TerminalHost(ws, () => {}, { mode: 'off' });
    assert.throws(() => plain.create({ command: 'pwd', cwd: extra }), /outside the workspace/, 'one root by default');
    plain.dispose();
    const h = new TerminalHost(ws, () => {}, { mode: 'off', extra: [extra] });
    assert.equal((await runIn(h, { command: 'pwd', args: [], cwd: extra })).output.trim(), extra);
    assert.throws(() => h.create({ command: 'pwd', cwd: path.dirname(extra) }), /outside the workspace/);
    assert.throws(() => h.create({ command: 'pwd', cwd: '/etc' }), /outside the workspace/);
    h.dispose();
    if (!haveBwrap) return;
    const sb = new TerminalHost(ws, () => {}, { extra: [extra] });
    const g = await runIn(sb, { command: 'grep', args: ['-r', 'PRIVATE', extra] });
    assert.match(g.output, /PRIVATE notes/);
    assert.doesNotMatch(g.output, /term-test-key/);
    await runIn(sb, { command: 'touch', args: [path.join(extra, 'made.txt')] });
    assert.equal(existsSync(path.join(extra, 'made.txt')), true, 'workspace-write reaches the additional directory');
    sb.dispose();
  } finally {
    await removeWorkspace(ws);
    await removeWorkspace(extra);
  }
});
