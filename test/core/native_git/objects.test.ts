// The object store status and diff read HEAD's commit, trees and blobs through (objects.ts): every
// object of a repository, loose and then packed (with deltas against an offset and against an
// oid), reads back byte for byte as the git binary prints it, and status and diff answer the same
// on the packed repository as on the loose one.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { applyDelta, ObjectStore, parseTree } from '../../../src/core/native_git/objects.ts';
import { git, repo, text, toolset, write } from './fixture.ts';

/** A history in which one file grows commit by commit, so a repack stores it as deltas. */
function history(): string {
  const lines = Array.from({ length: 200 }, (_, i) => `line ${i} of a file that changes a little each commit`);
  const commits = [];
  for (let c = 0; c < 6; c++) {
    lines.splice(c * 30, 1, `changed in commit ${c}`);
    commits.push({ message: `commit ${c}\n\nbody of ${c}`, files: { 'src/grow.txt': `${lines.join('\n')}\n`, [`src/f${c}.txt`]: `file ${c}\n`, 'top.md': `top ${c}\n` } });
  }
  return repo(commits);
}

/** Every object of the repository as `git cat-file --batch` prints it: oid to type and bytes. */
function everyObject(dir: string): Map<string, { type: string; body: Buffer }> {
  const oids = git(dir, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname)').split('\n').filter(Boolean);
  const out = spawnSync('git', ['cat-file', '--batch'], { cwd: dir, input: `${oids.join('\n')}\n` }).stdout;
  const objects = new Map<string, { type: string; body: Buffer }>();
  for (let at = 0; at < out.length; ) {
    const nl = out.indexOf(10, at);
    const [oid, type, size] = out.toString('latin1', at, nl).split(' ');
    objects.set(oid, { type, body: out.subarray(nl + 1, nl + 1 + Number(size)) });
    at = nl + 1 + Number(size) + 1;
  }
  assert.equal(objects.size, oids.length);
  return objects;
}

for (const how of [['repack', '-adq', '--depth=10'], ['-c', 'repack.useDeltaBaseOffset=false', 'repack', '-adq', '--depth=10']]) {
  test(`every object reads back as git prints it, loose and after git ${how.join(' ')}`, () => {
    const dir = history();
    const objects = everyObject(dir);
    for (const [oid, want] of objects) assert.deepEqual(new ObjectStore(`${dir}/.git`).read(oid), want, `loose ${oid}`);
    git(dir, ...how);
    assert.match(git(dir, 'count-objects', '-v'), /^count: 0$/m);
    const idx = fs.readdirSync(path.join(dir, '.git/objects/pack')).find((f) => f.endsWith('.idx'))!;
    const deltas = git(dir, 'verify-pack', '-v', path.join(dir, '.git/objects/pack', idx));
    assert.match(deltas, /chain length = [1-9]/, 'the pack holds deltas');
    const store = new ObjectStore(`${dir}/.git`);
    for (const [oid, want] of objects) assert.deepEqual(store.read(oid), want, `packed ${oid}`);
    assert.equal(store.read('0'.repeat(40)), null);
  });
}

test('a store holds each pack file open for one stretch of reads and closes them at the next turn of the event loop', async () => {
  const dir = history();
  const objects = [...everyObject(dir).keys()];
  git(dir, 'repack', '-adq', '--depth=10');
  const packFiles = () => fs.readdirSync('/proc/self/fd').filter((fd) => { try { return fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(`${fs.realpathSync(dir)}/.git/objects/pack/`); } catch { return false; } }).length;
  const store = new ObjectStore(`${dir}/.git`);
  for (const oid of objects) assert.ok(store.read(oid), oid);
  // the .idx and the .pack, once each, however many objects were read
  assert.equal(packFiles(), 2);
  await new Promise((r) => setImmediate(r));
  assert.equal(packFiles(), 0, 'nothing held after the stretch');
  // and a later stretch opens them again
  assert.ok(store.read(objects[0]));
  assert.equal(packFiles(), 2);
  await new Promise((r) => setImmediate(r));
  assert.equal(packFiles(), 0);
});

test('status and diff answer the same on a packed repository as on its loose self', async () => {
  const dir = history();
  write(dir, { 'src/grow.txt': 'rewritten\n', 'new.txt': 'new\n' });
  const before = { status: await text(toolset(dir), 'git_status'), diff: await text(toolset(dir), 'git_diff'), show: await text(toolset(dir), 'git_show', { ref: 'HEAD~2' }) };
  git(dir, 'repack', '-adq');
  const after = { status: await text(toolset(dir), 'git_status'), diff: await text(toolset(dir), 'git_diff'), show: await text(toolset(dir), 'git_show', { ref: 'HEAD~2' }) };
  assert.deepEqual(after, before);
  assert.match(after.status, /^HEAD [0-9a-f]{8} commit 5$/m);
  assert.match(after.diff, /^\+rewritten$/m);
});

// A repository is someone else's bytes: each of these was crafted to loop, to allocate gigabytes
// or to name a path outside the tree.
test('a cut or crafted tree object is refused, never looped over or turned into a path outside the tree', () => {
  const oid = Buffer.alloc(20, 0xab);
  const entry = (mode: string, name: string) => Buffer.concat([Buffer.from(`${mode} ${name}\0`, 'utf8'), oid]);
  assert.deepEqual(parseTree(entry('100644', 'a.txt')).map((e) => e.path), ['a.txt']);
  const cut = entry('100644', 'a.txt').subarray(0, 15);
  const started = performance.now();
  assert.throws(() => parseTree(Buffer.concat([Buffer.alloc(30, 0x61), cut])), /malformed tree/);
  assert.throws(() => parseTree(cut), /malformed tree/);
  assert.throws(() => parseTree(Buffer.from('100644 no-nul-at-all')), /malformed tree/);
  assert.ok(performance.now() - started < 1000, 'no loop');
  for (const name of ['..', '.', 'a/../../etc', '/etc', '']) assert.throws(() => parseTree(entry('100644', name)), /git refuses|malformed/, name);
});

test('a delta that declares a result larger than its ops can make is refused before it allocates', () => {
  const varint = (n: number) => {
    const out = [];
    do {
      out.push((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
      n = Math.floor(n / 128);
    } while (n > 0);
    return out;
  };
  const base = Buffer.from('hello world');
  // copy 5 bytes from 0, insert "!"
  const good = Buffer.from([...varint(base.length), ...varint(6), 0x90, 5, 1, 0x21]);
  assert.equal(applyDelta(base, good).toString(), 'hello!');
  const liar = Buffer.from([...varint(base.length), ...varint(2 ** 31), 0x90, 5, 1, 0x21]);
  assert.throws(() => applyDelta(base, liar), /beyond what its ops can make/);
});

test('a pack index whose fanout lies about its size is passed over (the caller asks isomorphic-git)', () => {
  const dir = history();
  const objects = everyObject(dir);
  git(dir, 'repack', '-adq');
  const packDir = path.join(dir, '.git/objects/pack');
  const idx = path.join(packDir, fs.readdirSync(packDir).find((f) => f.endsWith('.idx'))!);
  const bytes = fs.readFileSync(idx);
  // the last fanout entry counts 50 million objects: 1 GB of oids the file does not hold
  bytes.writeUInt32BE(50_000_000, 8 + 255 * 4);
  fs.chmodSync(idx, 0o644);
  fs.writeFileSync(idx, bytes);
  const store = new ObjectStore(`${dir}/.git`);
  const started = performance.now();
  for (const oid of [...objects.keys()].slice(0, 5)) assert.equal(store.read(oid), null);
  assert.ok(performance.now() - started < 2000);
});
