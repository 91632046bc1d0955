// The read-before-write ledger: the three refusals, full vs range, updates, save/restore.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ReadLedger } from '../../../src/core/local_fs/ledger.ts';
import { tempDir } from '../fs_helpers.ts';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

test('never read → not_read; changed → stale; range for a full overwrite → range_only', () => {
  const l = new ReadLedger('s1');
  assert.throws(() => l.check('/r/f', A, false, 'f'), { code: 'not_read' });
  l.recordRead('/r/f', A, false);
  assert.doesNotThrow(() => l.check('/r/f', A, false, 'f'));
  assert.throws(() => l.check('/r/f', A, true, 'f'), { code: 'range_only' });
  assert.throws(() => l.check('/r/f', B, false, 'f'), { code: 'stale' });
  l.recordRead('/r/f', A, true);
  assert.doesNotThrow(() => l.check('/r/f', A, true, 'f'));
});

test('a later range read of the same version keeps the full read; of a new version it does not', () => {
  const l = new ReadLedger('s');
  l.recordRead('/f', A, true);
  l.recordRead('/f', A, false);
  assert.equal(l.get('/f')?.full, true);
  l.recordRead('/f', B, false);
  assert.equal(l.get('/f')?.full, false);
});

test('a write records the new content as known in full', () => {
  const l = new ReadLedger('s');
  l.recordWrite('/f', B);
  assert.doesNotThrow(() => l.check('/f', B, true, 'f'));
  assert.throws(() => l.check('/f', A, true, 'f'), { code: 'stale' });
});

test('save and load round-trip; another session id is refused; a missing file is a fresh ledger', () => {
  const dir = tempDir();
  const file = path.join(dir, 'sessions', 'x', 'ledger.json');
  const l = new ReadLedger('sess-1');
  l.recordRead('/r/a', A, true);
  l.recordRead('/r/b', B, false);
  l.save(file);
  const back = ReadLedger.load(file, 'sess-1');
  assert.equal(back.size, 2);
  assert.deepEqual(back.get('/r/a')?.full, true);
  assert.deepEqual(back.get('/r/b')?.sha256, B);
  assert.throws(() => ReadLedger.load(file, 'other'), { code: 'bad_args' });
  assert.equal(ReadLedger.load(path.join(dir, 'none.json'), 'n').size, 0);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
});

test('a save that cannot replace the file (a directory stands there) fails and leaves no temp file', () => {
  const dir = tempDir();
  const file = path.join(dir, 'ledger.json');
  fs.mkdirSync(file);
  const l = new ReadLedger('s');
  l.recordRead('/r/a', A, true);
  assert.throws(() => l.save(file));
  assert.deepEqual(fs.readdirSync(dir), ['ledger.json']);
  assert.equal(fs.statSync(file).isDirectory(), true);
});

test('restoring drops malformed entries instead of trusting them', () => {
  const l = ReadLedger.fromJSON({ version: 1, sessionId: 's', entries: { '/ok': { sha256: A, full: true, at: 1 }, '/bad1': { sha256: 'zz', full: true }, '/bad2': { sha256: A }, '/bad3': null } });
  assert.equal(l.size, 1);
  assert.throws(() => ReadLedger.fromJSON({ version: 2, sessionId: 's' }), { code: 'bad_args' });
  assert.throws(() => ReadLedger.fromJSON(null), { code: 'bad_args' });
});

test('takeChanges gives the entries changed since the last call, forgotten ones as null, once', () => {
  const l = new ReadLedger('s');
  l.recordRead('/w/a', 'a'.repeat(64), true);
  l.recordRead('/w/b', 'b'.repeat(64), false);
  assert.deepEqual(l.takeChanges().map(([p, e]) => [p, e?.full]), [['/w/a', true], ['/w/b', false]]);
  assert.deepEqual(l.takeChanges(), []);
  l.recordWrite('/w/b', 'c'.repeat(64));
  l.forget('/w/a');
  l.forget('/w/never-read');
  assert.deepEqual(l.takeChanges().map(([p, e]) => [p, e?.sha256 ?? null]), [['/w/b', 'c'.repeat(64)], ['/w/a', null]]);
});
