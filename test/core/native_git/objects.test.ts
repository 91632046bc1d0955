// The object store status and diff read HEAD's commit, trees and blobs through (objects.ts): every
// object of a repository, loose and then packed (with deltas against an offset and against an
// oid), reads back byte for byte as the git binary prints it, and status and diff answer the same
// on the packed repository as on the loose one.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ObjectStore } from '../../../src/core/native_git/objects.ts';
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
