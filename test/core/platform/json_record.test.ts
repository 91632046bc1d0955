// The one read-modify-write of cxl's JSON records (trust store, mission records), as more than one
// process and a sick disk use it: writers at once lose nothing, a writer killed mid-write leaves
// the old record or the new and a lock the next writer takes over at once, a damaged record is
// named and never written over, and a full disk is an error in words at once, with no lock left.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { readRecord, updateRecord, UNCHANGED } from '../../../src/core/platform/json_record.ts';
import { lockFileOf } from '../../../src/core/platform/write_lock.ts';
import { runWriter } from '../../helpers/store_writer.ts';
import { mountTmpfs } from '../../helpers/tmpfs.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-record-')));
  dirs.push(d);
  return d;
}

type Rec = Record<string, unknown>;
const valid = (v: unknown): Rec | { damaged: string } => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : { damaged: 'not an object' });
test('a damaged record is named with its path and never written over; a writer that may start afresh keeps it aside first', async () => {
  const d = tmp();
  const file = path.join(d, 'rec.json');
  // control: a good record is changed as asked
  fs.writeFileSync(file, '{"a":1}');
  assert.deepEqual((await updateRecord<Rec>(file, valid, (c) => ({ ...c, b: 2 }), { shown: 'the record' })).value, { a: 1, b: 2 });
  assert.equal((await updateRecord<Rec>(file, valid, () => UNCHANGED, { shown: 'the record' })).wrote, false);
  for (const [what, bytes] of [
    ['cut short', '{"a":1,"b":'],
    ['emptied', ''],
    ['of another shape', '[1,2]'],
  ] as const) {
    fs.writeFileSync(file, bytes);
    await assert.rejects(
      updateRecord<Rec>(file, valid, (c) => ({ ...c, c: 3 }), { shown: 'the record' }),
      (e: Error & { code?: string }) => e.code === 'damaged' && e.message.includes(file),
      `a record ${what} is reported with its path`,
    );
    assert.equal(fs.readFileSync(file, 'utf8'), bytes, `a record ${what} is not written over`);
    assert.equal(readRecord(file, valid).state, 'damaged');
    const r = await updateRecord<Rec>(file, valid, (c) => ({ ...c, fresh: true }), { shown: 'the record', onDamaged: 'set-aside' });
    assert.deepEqual(r.value, { fresh: true });
    assert.ok(r.aside && r.aside.file.startsWith(`${file}.damaged-`));
    assert.equal(fs.readFileSync(r.aside.file, 'utf8'), bytes, 'what it held is kept');
    fs.rmSync(r.aside.file);
  }
  // a link planted in its place is not followed, nor written through
  const outside = path.join(d, 'outside.json');
  fs.writeFileSync(outside, '{"secret":1}');
  fs.rmSync(file);
  fs.symlinkSync(outside, file);
  await assert.rejects(updateRecord<Rec>(file, valid, (c) => ({ ...c, x: 1 }), { shown: 'the record' }), /symbolic link/);
  assert.equal(fs.readFileSync(outside, 'utf8'), '{"secret":1}');
  assert.equal(fs.existsSync(lockFileOf(file)), false, 'no lock left by a refusal');
});

test('four processes adding to one record at once lose none of it', { timeout: 120_000 }, async () => {
  const file = path.join(tmp(), 'rec.json');
  const ws = ['p', 'q', 'r', 's'].map((k) => runWriter(['record', file, k, '15']));
  for (const w of ws) assert.equal(await w.done, 0, w.out());
  const got = readRecord(file, valid);
  assert.equal(got.state, 'ok');
  assert.equal(Object.keys((got as { value: Rec }).value).length, 60);
  assert.equal(fs.existsSync(lockFileOf(file)), false);
});

test('kill -9 mid-write, ten times: the record reads whole every time, and the dead writer\'s lock is taken over at once', { timeout: 180_000 }, async () => {
  const file = path.join(tmp(), 'rec.json');
  let last = 0;
  for (let round = 0; round < 10; round++) {
    const w = runWriter(['spin-record', file]);
    await w.started;
    await new Promise((r) => setTimeout(r, 5 + Math.floor(Math.random() * 60)));
    w.child.kill('SIGKILL');
    await w.done;
    const got = readRecord(file, valid);
    assert.equal(got.state, 'ok', `round ${round}: ${JSON.stringify(got)}`);
    const n = Number((got as { value: Rec }).value.n);
    assert.ok(n >= last && n >= 1, `round ${round}: the counter went from ${last} to ${n}`);
    last = n;
    // the writer may have died holding the lock: its pid is gone, so it is free now, not in 10 s
    const t = performance.now();
    await updateRecord<Rec>(file, valid, (c) => ({ ...c, n: Number(c?.n) + 1 }), { shown: 'the record' });
    assert.ok(performance.now() - t < 2000, `round ${round}: the next write waited ${Math.round(performance.now() - t)} ms`);
    last++;
    assert.equal(fs.existsSync(lockFileOf(file)), false);
  }
});

test('a full disk: each write fails at once saying so, and leaves no lock that would hold off the next', { timeout: 90_000 }, async () => {
  const base = tmp();
  const mnt = mountTmpfs(path.join(base, 'mnt'), '2m');
  let wrap: string[] = [];
  let dir: string;
  if ('error' in mnt) {
    // no mount here: a file-size limit of 0 makes every write fail as a full disk would
    dir = path.join(base, 'data');
    fs.mkdirSync(dir);
    wrap = ['sh', '-c', 'ulimit -f 0; trap "" XFSZ; exec "$@"', 'sh'];
  } else dir = mnt.dir;
  try {
    const file = path.join(dir, 'rec.json');
    fs.writeFileSync(file, '{"kept":true}');
    if (!('error' in mnt)) {
      // fill it: every block taken
      const fd = fs.openSync(path.join(dir, 'fill'), 'w');
      try {
        for (;;) fs.writeSync(fd, Buffer.alloc(64 * 1024));
      } catch (err) {
        assert.equal((err as NodeJS.ErrnoException).code, 'ENOSPC');
      } finally {
        fs.closeSync(fd);
      }
    }
    for (let i = 0; i < 2; i++) {
      const w = runWriter(['update-once', file], wrap);
      assert.equal(await w.done, 0, w.out());
      const r = JSON.parse(w.out().trim().split('\n').pop()!) as { error?: string; code?: string; ms: number };
      assert.equal(r.code, 'io_error', w.out());
      assert.match(r.error!, /the test record was not written: (no space left on the device|.*file-size limit)/);
      assert.ok(r.ms < 3000, `write ${i + 1} took ${Math.round(r.ms)} ms: a full disk is said at once, not after a lock's timeout`);
      assert.equal(fs.existsSync(lockFileOf(file)), false, 'no lock file left behind');
      assert.deepEqual(fs.readdirSync(dir).filter((n) => n.includes('cxl-')), [], 'no temp file left behind');
    }
    assert.equal(fs.readFileSync(file, 'utf8'), '{"kept":true}', 'the record as it was');
  } finally {
    if (!('error' in mnt)) mnt.unmount();
  }
});
