// edit_file and sed on a big file start writing the temp file while the file is still being read
// (the head before the first occurrence is final), so the disk takes it during the read. Nothing
// of that may show: the result is byte for byte the edit, the ledger has its hash, a refusal at
// any step leaves the file as it was and no temp file behind.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { sha256, WorkspaceFileIO } from '../../../src/core/local_fs/file_io.ts';
import { confine } from '../../../src/core/paths.ts';
import { expectCode, toolset, tree } from '../fs_helpers.ts';

const MB = 1024 * 1024;
const hex = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const temps = (root: string) => fs.readdirSync(root).filter((n) => n.includes('.cxl-'));

/** A 12 MB file (past the 4 MB the hashing read starts at), `marker` at each offset given. */
function bigFile(root: string, name: string, marks: Record<number, string>): Buffer {
  const line = 'const value = compute(alpha, beta); // filler\n';
  const b = Buffer.alloc(12 * MB, line);
  for (const [at, m] of Object.entries(marks)) b.write(m, Number(at));
  fs.writeFileSync(path.join(root, name), b);
  return b;
}

/** What replacing the one `from` in `b` with `to` gives. */
function replaced(b: Buffer, from: string, to: string): Buffer {
  const i = b.indexOf(from);
  assert.notEqual(i, -1);
  return Buffer.concat([b.subarray(0, i), Buffer.from(to), b.subarray(i + from.length)]);
}

test('edit_file on a big file: the edit exactly, wherever the change is and whatever its length', async () => {
  const root = tree({});
  const ts = toolset(root, { _max_read_bytes: '0' });
  for (const [where, at] of [['near the start', 100], ['in the middle', 6 * MB + 7], ['near the end', 12 * MB - 40], ['across a read chunk', 3 * MB - 5]] as const) {
    for (const to of ['X', 'a much longer replacement text than the marker was', '']) {
      const before = bigFile(root, 'big.txt', { [at]: '@@MARK@@' });
      await ts.call('read_file_range', { path: 'big.txt', start_line: 1, end_line: 1 });
      const r = (await ts.call('edit_file', { path: 'big.txt', old_string: '@@MARK@@', new_string: to })) as Record<string, unknown>;
      const after = fs.readFileSync(path.join(root, 'big.txt'));
      assert.ok(after.equals(replaced(before, '@@MARK@@', to)), `${where}, ${JSON.stringify(to)}: not the edit`);
      assert.equal(r.new_sha256, hex(after), `${where}: the ledger's hash`);
      assert.deepEqual(temps(root), [], `${where}: a temp file left`);
      // the ledger took the new version: the edit back needs no read in between
      if (to !== '') {
        await ts.call('edit_file', { path: 'big.txt', old_string: to, new_string: '@@MARK@@' });
        assert.ok(fs.readFileSync(path.join(root, 'big.txt')).equals(before), `${where}: the edit back`);
      }
    }
  }
});

test('sed on a big file: only its line window changes, the head before the first occurrence kept', async () => {
  const root = tree({});
  const ts = toolset(root, { _max_read_bytes: '0' });
  // the pattern occurs early and late; the window takes only the late one
  const before = bigFile(root, 'big.txt', { [2 * MB]: 'NEEDLE', [10 * MB]: 'NEEDLE' });
  const lineOf = (off: number) => before.subarray(0, off).toString('latin1').split('\n').length;
  await ts.call('read_file_range', { path: 'big.txt', start_line: 1, end_line: 1 });
  await ts.call('sed', { path: 'big.txt', pattern: 'NEEDLE', replacement: 'PIN', start_line: lineOf(10 * MB), end_line: lineOf(10 * MB) });
  const after = fs.readFileSync(path.join(root, 'big.txt'));
  const want = Buffer.concat([before.subarray(0, 10 * MB), Buffer.from('PIN'), before.subarray(10 * MB + 6)]);
  assert.ok(after.equals(want));
  assert.deepEqual(temps(root), []);
});

test('a big edit refused after the early write began leaves the file as it was and no temp file', async () => {
  const root = tree({});
  const ts = toolset(root, { _max_read_bytes: '0' });
  const file = path.join(root, 'big.txt');
  // two occurrences: the temp file has the head before the first when the plan refuses
  const twice = bigFile(root, 'big.txt', { [8 * MB]: '@@TWICE@@', [11 * MB]: '@@TWICE@@' });
  await ts.call('read_file_range', { path: 'big.txt', start_line: 1, end_line: 1 });
  await expectCode(ts, 'edit_file', { path: 'big.txt', old_string: '@@TWICE@@', new_string: 'once' }, 'not_unique');
  assert.ok(fs.readFileSync(file).equals(twice));
  assert.deepEqual(temps(root), []);
  // changed behind the session's back since it read it: stale, and nothing of the early write stays
  const other = bigFile(root, 'big.txt', { [9 * MB]: '@@ONCE@@' });
  await expectCode(ts, 'edit_file', { path: 'big.txt', old_string: '@@ONCE@@', new_string: 'x' }, 'stale');
  assert.ok(fs.readFileSync(file).equals(other));
  assert.deepEqual(temps(root), []);
  // no occurrence at all: the whole file was offered to the temp file, then discarded
  await ts.call('read_file_range', { path: 'big.txt', start_line: 1, end_line: 1 });
  await expectCode(ts, 'edit_file', { path: 'big.txt', old_string: 'absent text', new_string: 'x' }, 'no_match');
  assert.deepEqual(temps(root), []);
});

test('WorkspaceFileIO: a write continues the early temp file from the shared prefix and cuts what is past the new end', async () => {
  const root = tree({});
  const old = bigFile(root, 'big.txt', {});
  const io = new WorkspaceFileIO(root);
  for (const keep of [0, 5 * MB, old.length]) {
    const c = confine(root, 'big.txt'); // each write's rename brings another inode
    // everything read is offered, though the new content keeps only `keep` bytes of it
    const snap = await io.read(c, { maxBytes: Number.MAX_SAFE_INTEGER, hashing: true, early: (_b, len) => ({ keep: len }) });
    assert.ok(snap.early, 'a big hashing read with `early` begins a temp file');
    await snap.early.settled();
    assert.equal(snap.early.written, old.length);
    const next = Buffer.concat([snap.bytes.subarray(0, keep), Buffer.from(`shorter tail ${keep}\n`)]);
    await io.write(c, [next.subarray(0, keep), next.subarray(keep)], { expectSha256: sha256(snap.bytes), expectBytes: snap.bytes, early: { temp: snap.early, change: { changeStart: keep, oldChangeEnd: old.length, newChangeEnd: next.length } } });
    const got = fs.readFileSync(c.real);
    assert.ok(got.equals(next), `kept ${keep}: ${got.length} bytes, want ${next.length}`);
    fs.writeFileSync(c.real, old);
  }
  const c = confine(root, 'big.txt');
  assert.deepEqual(temps(root), []);
  // a small file, or a read without `early`, starts nothing
  assert.equal((await io.read(c, { maxBytes: Number.MAX_SAFE_INTEGER, hashing: true })).early, undefined);
  fs.writeFileSync(path.join(root, 'small.txt'), 'abc\n');
  assert.equal((await io.read(confine(root, 'small.txt'), { maxBytes: 100, hashing: true, early: (_b, len) => ({ keep: len }) })).early, undefined);
  // discarded, the temp file is gone from the directory at once
  const snap = await io.read(c, { maxBytes: Number.MAX_SAFE_INTEGER, hashing: true, early: (_b, len) => ({ keep: len }) });
  assert.equal(temps(root).length, 1);
  snap.early!.discard();
  assert.deepEqual(temps(root), []);
});

test('WorkspaceFileIO: a guessed replacement is kept when the plan is that replacement, and only the head when it is not', async () => {
  const root = tree({});
  const at = 7 * MB + 3;
  const old = bigFile(root, 'big.txt', { [at]: 'OLD-TEXT' });
  const io = new WorkspaceFileIO(root);
  const replace = { with: Buffer.from('the new, longer text'), length: 'OLD-TEXT'.length };
  const guess = (_b: Buffer, len: number) => (len > at + 8 ? { keep: at, replace } : { keep: Math.max(0, len - 7) });
  const edited = Buffer.concat([old.subarray(0, at), replace.with, old.subarray(at + 8)]);
  // the plan is the guess: the temp file holds all of it, nothing is written again
  let c = confine(root, 'big.txt');
  let snap = await io.read(c, { maxBytes: Number.MAX_SAFE_INTEGER, hashing: true, early: guess });
  await snap.early!.settled();
  assert.equal(snap.early!.written, edited.length, 'the whole new content was written during the read');
  await io.write(c, [edited.subarray(0, at), edited.subarray(at, at + replace.with.length), edited.subarray(at + replace.with.length)], { expectSha256: sha256(snap.bytes), expectBytes: snap.bytes, early: { temp: snap.early!, change: { changeStart: at, oldChangeEnd: at + 8, newChangeEnd: at + replace.with.length } } });
  assert.ok(fs.readFileSync(c.real).equals(edited));
  // the plan differs (another replacement text of the same span, or a second change further on):
  // only the head before the guessed span is kept
  for (const other of [Buffer.concat([old.subarray(0, at), Buffer.from('THE NEW, LONGER TEXT'), old.subarray(at + 8)]), Buffer.concat([old.subarray(0, at), replace.with, old.subarray(at + 8, 10 * MB), Buffer.from('!'), old.subarray(10 * MB + 1)])]) {
    fs.writeFileSync(c.real, old);
    c = confine(root, 'big.txt');
    snap = await io.read(c, { maxBytes: Number.MAX_SAFE_INTEGER, hashing: true, early: guess });
    const end = other.length === edited.length && other[10 * MB + 12] === 0x21 ? 10 * MB + 13 : at + replace.with.length;
    await io.write(c, other, { expectSha256: sha256(snap.bytes), expectBytes: snap.bytes, early: { temp: snap.early!, change: { changeStart: at, oldChangeEnd: end - replace.with.length + 8, newChangeEnd: end } } });
    assert.ok(fs.readFileSync(c.real).equals(other));
  }
  assert.deepEqual(temps(root), []);
});
