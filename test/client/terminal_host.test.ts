// terminal/* served by the client: process groups, confinement, environment, output cap.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { TailBuffer } from '../../src/core/shell/output_limit.ts';
import { TerminalHost } from '../../src/client/terminal_host.ts';

const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-term-')));
mkdirSync(path.join(root, 'sub'));
after(() => rmSync(root, { recursive: true, force: true }));

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

test('kill takes down the whole process group, and the terminal stays readable', async () => {
  const h = new TerminalHost(root);
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
