// One writer at a time per real path: two sessions of one agent writing through the client, two
// processes writing the workspace, and the lock file's own rules (a live holder is waited for, a
// dead or ancient one is recovered, something planted under its name never hangs a write).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { test } from 'node:test';
import { isToolError } from '../../../src/core/errors.ts';
import { ClientFileIO, sha256, WorkspaceFileIO, type FsClient } from '../../../src/core/local_fs/file_io.ts';
import { confine } from '../../../src/core/paths.ts';
import { moduleCommand } from '../../../src/core/platform/runtime.ts';
import { lockFileOf, processStartTime, STALE_LOCK_MS, sweepHolderFiles, withFileLock } from '../../../src/core/platform/write_lock.ts';
import { tempDir, toolset, tree } from '../fs_helpers.ts';

const ROUNDS = 50;

/** An ACP client's fs/* over the real disk, each call a round trip away (as over JSON-RPC). */
class DiskClient implements FsClient {
  writes = 0;
  async readTextFile(p: string) {
    await new Promise((r) => setTimeout(r, 0));
    const text = fs.readFileSync(p, 'utf8');
    await new Promise((r) => setImmediate(r));
    return text;
  }
  async writeTextFile(p: string, content: string) {
    await new Promise((r) => setTimeout(r, 0));
    fs.writeFileSync(p, content);
    this.writes++;
  }
}

async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'written';
  } catch (err) {
    if (isToolError(err)) return err.code;
    throw err;
  }
}

test(`two sessions of one agent editing one file through the client: ${ROUNDS} rounds, no update lost, the loser gets stale`, async () => {
  const root = tree({ 'shared.txt': 'END\n' });
  const client = new DiskClient();
  // each session has its own FileIO and ledger, as each ACP session does
  const a = toolset(root, {}, { io: new ClientFileIO(client), sessionId: 'a' });
  const b = toolset(root, {}, { io: new ClientFileIO(client), sessionId: 'b' });
  const acked: string[] = [];
  let stale = 0;
  for (let round = 0; round < ROUNDS; round++) {
    await Promise.all([a.call('read_file', { path: 'shared.txt', force: true }), b.call('read_file', { path: 'shared.txt', force: true })]);
    const edit = (who: string) => outcome((who === 'a' ? a : b).call('edit_file', { path: 'shared.txt', old_string: 'END\n', new_string: `${who} ${round}\nEND\n` }));
    const [ra, rb] = await Promise.all([edit('a'), edit('b')]);
    for (const [who, r] of [['a', ra], ['b', rb]] as const) {
      if (r === 'written') acked.push(`${who} ${round}`);
      else {
        assert.equal(r, 'stale', `round ${round}: ${who} got ${r}`);
        stale++;
      }
    }
  }
  const lines = fs.readFileSync(path.join(root, 'shared.txt'), 'utf8').trimEnd().split('\n').slice(0, -1);
  assert.deepEqual(lines, acked, 'every acknowledged write is in the file, in order');
  assert.equal(acked.length, ROUNDS, 'one writer wins each round');
  assert.equal(stale, ROUNDS, 'the other one is told stale');
  assert.equal(client.writes, ROUNDS, 'no write reached the client for a loser');
});

test(`two processes editing one workspace file at the same instant: ${ROUNDS} rounds, no update lost, the loser gets stale`, async () => {
  const base = tempDir('cxl-race-');
  const root = path.join(base, 'w');
  fs.mkdirSync(root);
  fs.mkdirSync(path.join(base, 'barrier'));
  fs.writeFileSync(path.join(root, 'shared.txt'), 'END\n');
  const [cmd, ...pre] = moduleCommand(new URL('./fixtures/race_writer.ts', import.meta.url).href);
  const run = (id: string, other: string) =>
    new Promise<Array<{ round: number; result: string }>>((resolve, reject) => {
      const child = spawn(cmd, [...pre, root, 'shared.txt', id, other, String(ROUNDS)], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(out.trim().split('\n').map((l) => JSON.parse(l))) : reject(new Error(`writer ${id} exited ${code}`))));
    });
  const [p, q] = await Promise.all([run('p', 'q'), run('q', 'p')]);
  const acked: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const results = [p[round].result, q[round].result].sort();
    assert.deepEqual(results, ['stale', 'written'], `round ${round}: ${results}`);
    acked.push(p[round].result === 'written' ? `p ${round}` : `q ${round}`);
  }
  const lines = fs.readFileSync(path.join(root, 'shared.txt'), 'utf8').trimEnd().split('\n').slice(0, -1);
  assert.deepEqual(lines, acked, 'every acknowledged write is in the file');
  assert.deepEqual(fs.readdirSync(root), ['shared.txt'], 'no lock or temp file left behind');
});

test('a write waits for another process holding the lock, then re-verifies against what that process wrote', async () => {
  const root = tree({ 'a.txt': 'v1\n' });
  const c = confine(root, 'a.txt');
  const lock = lockFileOf(c.real);
  // another live process (pid 1 always exists) holds the lock while it writes v2
  fs.writeFileSync(lock, JSON.stringify({ pid: 1, host: (await import('node:os')).hostname() }));
  const io = new WorkspaceFileIO(root);
  let settled = false;
  const mine = outcome(io.write(c, Buffer.from('mine\n'), { expectSha256: sha256(Buffer.from('v1\n')) })).finally(() => (settled = true));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(settled, false, 'the write waits while the lock is held');
  assert.equal(fs.readFileSync(c.real, 'utf8'), 'v1\n');
  fs.writeFileSync(c.real, 'v2 by the holder\n');
  fs.rmSync(lock);
  assert.equal(await mine, 'stale');
  assert.equal(fs.readFileSync(c.real, 'utf8'), 'v2 by the holder\n');
  assert.deepEqual(fs.readdirSync(root), ['a.txt'], 'its temp file is removed');
});

test('a lock left by a dead process, an ancient one, or a FIFO planted under its name does not stop a write', async () => {
  const root = tree({ 'a.txt': 'v1\n' });
  const io = new WorkspaceFileIO(root);
  const c = confine(root, 'a.txt');
  const lock = lockFileOf(c.real);
  const os = await import('node:os');
  const write = async (content: string) => {
    const t0 = Date.now();
    await io.write(c, Buffer.from(content), { expectSha256: sha256(fs.readFileSync(c.real)) });
    assert.equal(fs.readFileSync(c.real, 'utf8'), content);
    assert.equal(fs.existsSync(lock), false, 'the lock is gone after the write');
    return Date.now() - t0;
  };
  // a process that has exited: its pid is free
  const dead = Number(spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim());
  assert.ok(dead > 1);
  fs.writeFileSync(lock, JSON.stringify({ pid: dead, host: os.hostname() }));
  assert.ok((await write('v2\n')) < 2000, 'a dead holder is not waited for');
  // a live pid that started at another time than its holder did: the pid was reused (Linux tells)
  const start1 = processStartTime(1);
  fs.writeFileSync(lock, JSON.stringify({ pid: 1, host: os.hostname(), start: `${Number(start1 ?? '0') + 1}` }));
  if (start1 !== undefined) assert.ok((await write('v2b\n')) < 2000, 'a reused pid is not the holder');
  else fs.rmSync(lock);
  // a live pid, but older than any real write
  fs.writeFileSync(lock, JSON.stringify({ pid: 1, host: os.hostname() }));
  const old = (Date.now() - STALE_LOCK_MS - 5000) / 1000;
  fs.utimesSync(lock, old, old);
  assert.ok((await write('v3\n')) < 2000, 'an ancient lock is not waited for');
  // an empty lock (its writer died between create and write), also ancient
  fs.writeFileSync(lock, '');
  fs.utimesSync(lock, old, old);
  await write('v4\n');
  // a FIFO under the lock's name: never opened (it would block), removed
  assert.equal(spawnSync('mkfifo', [lock]).status, 0);
  assert.ok((await write('v5\n')) < 2000);
  assert.deepEqual(fs.readdirSync(root), ['a.txt']);
});

test('kill -9 between writing a holder file and linking it: the next acquire sweeps the dead writer\'s .new file', { timeout: 120_000 }, async () => {
  const dir = tempDir('cxl-lock-sweep-');
  const target = path.join(dir, 'shared.json');
  const lock = lockFileOf(target);
  const [cmd, ...pre] = moduleCommand(new URL('./fixtures/lock_looper.ts', import.meta.url).href);
  const leftovers = () => fs.readdirSync(dir).filter((n) => n.endsWith('.new'));
  // a kill lands between the write and the link (or the remove after it) in a good share of tries
  for (let kills = 0; kills < 40 && leftovers().length === 0; kills++) {
    const child = spawn(cmd, [...pre, target], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.on('error', reject);
      child.stdout.once('data', () => resolve());
    });
    await new Promise((r) => setTimeout(r, Math.random() * 20));
    child.kill('SIGKILL');
    await new Promise((r) => child.on('close', r));
  }
  const left = leftovers();
  assert.ok(left.length > 0, 'some kill left a holder file behind');
  assert.match(left[0], /^\.shared\.json\.cxl-lock(\.break)?\.\d+\.\d+\.new$/);
  // one left empty (killed between create and write) is judged after a second
  await new Promise((r) => setTimeout(r, 1100));
  // a live writer's holder file (this process's pid) is never swept
  const mine = `${lock}.${process.pid}.99.new`;
  fs.writeFileSync(mine, JSON.stringify({ pid: process.pid, host: (await import('node:os')).hostname() }));
  const t0 = Date.now();
  await withFileLock(target, 'the looped file', () => undefined);
  assert.ok(Date.now() - t0 < 2000, 'a dead holder is not waited for');
  assert.deepEqual(leftovers(), [path.basename(mine)], 'the dead writers\' holder files are gone, the live one kept');
  assert.equal(fs.existsSync(lock), false);
  // an empty one just made may be a writer between create and write: kept for now
  fs.rmSync(mine);
  const dead = Number(spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim());
  const empty = `${lock}.${dead}.1.new`;
  fs.writeFileSync(empty, '');
  sweepHolderFiles(lock, Date.now() + STALE_LOCK_MS + 1);
  assert.equal(fs.existsSync(empty), true, 'a young empty holder file is kept');
  const old = (Date.now() - 2000) / 1000;
  fs.utimesSync(empty, old, old);
  sweepHolderFiles(lock, Date.now() + 2 * STALE_LOCK_MS + 2);
  assert.deepEqual(leftovers(), []);
});

test('a new file created by two sessions at once through the client: one creates it, the other gets stale', async () => {
  const root = tree({});
  const client = new DiskClient();
  const a = toolset(root, {}, { io: new ClientFileIO(client), sessionId: 'a' });
  const b = toolset(root, {}, { io: new ClientFileIO(client), sessionId: 'b' });
  const [ra, rb] = await Promise.all([outcome(a.call('write_file', { path: 'n.txt', content: 'from a\n' })), outcome(b.call('write_file', { path: 'n.txt', content: 'from b\n' }))]);
  assert.deepEqual([ra, rb].sort(), ['stale', 'written']);
  assert.equal(fs.readFileSync(path.join(root, 'n.txt'), 'utf8'), ra === 'written' ? 'from a\n' : 'from b\n');
});
