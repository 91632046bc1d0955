// The one atomic replace: a replace leaves the target whole (old or new) and no temp file, whichever
// step fails. The write fails for real on a full tiny tmpfs (when this machine lets the test mount
// one), the rename for real onto a directory; a flush (fdatasync) and a mode change cannot be made
// to fail on a healthy disk, so those go through `diskSteps`, the module's seam for exactly them.
// Every caller (file tools, session log, session index, saved ledger) flushes before it renames.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, test } from 'node:test';
import { SessionStore, type StoredSession } from '../../../src/agent/sessions/store.ts';
import { sha256, WorkspaceFileIO } from '../../../src/core/local_fs/file_io.ts';
import { ReadLedger } from '../../../src/core/local_fs/ledger.ts';
import { confine } from '../../../src/core/paths.ts';
import { AtomicFile, diskSteps, replaceFileSync } from '../../../src/core/platform/atomic_file.ts';
import { mountTmpfs } from '../../helpers/tmpfs.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function temp(): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-atomic-')));
  dirs.push(d);
  return d;
}

const real = { ...diskSteps };
afterEach(() => Object.assign(diskSteps, real));

const TEMP = /\.cxl-[0-9a-f]+\.tmp$/;
const temps = (dir: string) => fs.readdirSync(dir).filter((n) => TEMP.test(n));
const eio = () => Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });

/** Both ways in: the whole sequence at once, and the open-write-commit steps the file tools take. */
const writers: Record<string, (target: string, data: Buffer) => Promise<void>> = {
  replaceFileSync: async (target, data) => replaceFileSync(target, data, { mode: 0o600 }),
  'AtomicFile steps': async (target, data) => {
    // no discard() of its own: each step that fails must remove the temp file itself
    const f = AtomicFile.create(target, { mode: 0o640 });
    await f.write([data.subarray(0, 10), data.subarray(10)]);
    await f.commit();
  },
};

test('a replace writes all of the new content with the mode asked for and leaves only the target', async () => {
  for (const [name, write] of Object.entries(writers)) {
    const dir = temp();
    const target = path.join(dir, 'data.json');
    fs.writeFileSync(target, 'old');
    await write(target, Buffer.from('x'.repeat(100_000)));
    assert.equal(fs.readFileSync(target, 'utf8'), 'x'.repeat(100_000), name);
    assert.equal(fs.statSync(target).mode & 0o777, name === 'replaceFileSync' ? 0o600 : 0o640, name);
    assert.deepEqual(fs.readdirSync(dir), ['data.json'], name);
  }
});

test('the flush comes after the last byte and before the rename', async () => {
  for (const [name, write] of Object.entries(writers)) {
    const dir = temp();
    const target = path.join(dir, 'f');
    fs.writeFileSync(target, 'old');
    const seen: string[] = [];
    const look = () => seen.push(`${fs.readFileSync(target, 'utf8')} | ${temps(dir).map((t) => fs.readFileSync(path.join(dir, t), 'utf8').length)}`);
    diskSteps.fdatasync = (fd, cb) => (look(), real.fdatasync(fd, cb));
    diskSteps.fdatasyncSync = (fd) => (look(), real.fdatasyncSync(fd));
    await write(target, Buffer.from('n'.repeat(5000)));
    assert.deepEqual(seen, ['old | 5000'], name);
  }
});

test('a write that fails for real (a full tmpfs) leaves the old content and no temp file', async (t) => {
  const mnt = path.join(temp(), 'mnt');
  const fsys = mountTmpfs(mnt, '64k');
  if ('error' in fsys) {
    // the same promise through the seam, so the test still asserts it here
    t.diagnostic(`no tmpfs here (${fsys.error}); the failure is made at the flush instead`);
    diskSteps.fdatasync = (_fd, cb) => cb(eio());
    diskSteps.fdatasyncSync = () => {
      throw eio();
    };
  }
  const dir = 'error' in fsys ? temp() : mnt;
  try {
    for (const [name, write] of Object.entries(writers)) {
      const target = path.join(dir, `${name.replace(/\W/g, '')}.txt`);
      fs.writeFileSync(target, 'old content');
      await assert.rejects(write(target, Buffer.alloc(200_000, 'z')), 'error' in fsys ? { code: 'EIO' } : { code: 'ENOSPC' }, name);
      assert.equal(fs.readFileSync(target, 'utf8'), 'old content', name);
      assert.deepEqual(temps(dir), [], `${name}: no temp file`);
    }
  } finally {
    if (!('error' in fsys)) fsys.unmount();
  }
});

test('a flush that fails leaves the old content and no temp file', async () => {
  diskSteps.fdatasync = (_fd, cb) => cb(eio());
  diskSteps.fdatasyncSync = () => {
    throw eio();
  };
  for (const [name, write] of Object.entries(writers)) {
    const dir = temp();
    const target = path.join(dir, 'f.txt');
    fs.writeFileSync(target, 'old');
    await assert.rejects(write(target, Buffer.from('new content here')), { code: 'EIO' }, name);
    assert.equal(fs.readFileSync(target, 'utf8'), 'old', name);
    assert.deepEqual(fs.readdirSync(dir), ['f.txt'], name);
  }
});

test('a mode that cannot be set leaves no temp file', () => {
  diskSteps.fchmodSync = () => {
    throw Object.assign(new Error('EPERM: operation not permitted, fchmod'), { code: 'EPERM' });
  };
  const dir = temp();
  assert.throws(() => replaceFileSync(path.join(dir, 'f'), 'x', { mode: 0o600 }), { code: 'EPERM' });
  assert.throws(() => AtomicFile.create(path.join(dir, 'g'), { mode: 0o644 }), { code: 'EPERM' });
  assert.deepEqual(fs.readdirSync(dir), []);
});

test('a rename that fails for real (the target is a directory) leaves it as it was and no temp file', async () => {
  for (const [name, write] of Object.entries(writers)) {
    const dir = temp();
    const target = path.join(dir, 'taken');
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, 'inside'), 'kept');
    await assert.rejects(write(target, Buffer.from('new content here')), (err: NodeJS.ErrnoException) => ['EISDIR', 'ENOTEMPTY', 'EEXIST', 'EPERM'].includes(err.code ?? ''), name);
    assert.deepEqual(fs.readdirSync(dir), ['taken'], name);
    assert.equal(fs.readFileSync(path.join(target, 'inside'), 'utf8'), 'kept', name);
  }
});

test("a caller's last check that refuses, or a rename step that never renames, aborts the replace", async () => {
  const dir = temp();
  const target = path.join(dir, 'f');
  fs.writeFileSync(target, 'old');
  const refused = AtomicFile.create(target);
  await refused.write([Buffer.from('new')]);
  await assert.rejects(
    refused.commit({
      rename: () => {
        throw new Error('changed meanwhile');
      },
    }),
    /changed meanwhile/,
  );
  const silent = AtomicFile.create(target);
  await silent.write([Buffer.from('new')]);
  await assert.rejects(silent.commit({ rename: () => {} }), /without renaming/);
  assert.equal(fs.readFileSync(target, 'utf8'), 'old');
  assert.deepEqual(fs.readdirSync(dir), ['f']);
});

const session = (id: string): StoredSession => ({ version: 1, sessionId: id, cwd: '/w', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', mode: 'default', history: [], replay: [], allows: [] });

test('every caller flushes its temp file before the rename: file tools, saved ledger, session log and index', async () => {
  const flushed: string[] = [];
  /** Notes, at each flush, the temp files present in `dirs`: whose replace it is. */
  const watch = (...dirs: string[]) => {
    const note = () => {
      for (const d of dirs) flushed.push(...temps(d).map((n) => n.replace(/^\.(.*)\.cxl-[0-9a-f]+\.tmp$/, '$1')));
    };
    diskSteps.fdatasync = (fd, cb) => (note(), real.fdatasync(fd, cb));
    diskSteps.fdatasyncSync = (fd) => (note(), real.fdatasyncSync(fd));
  };
  const root = temp();
  watch(root);
  fs.writeFileSync(path.join(root, 'a.txt'), 'v1\n');
  await new WorkspaceFileIO(root).write(confine(root, 'a.txt'), Buffer.from('v2\n'), { expectSha256: sha256(Buffer.from('v1\n')) });
  new ReadLedger('s').save(path.join(root, 'ledger.json'));
  assert.deepEqual(flushed, ['a.txt', 'ledger.json']);

  const data = temp();
  const store = new SessionStore(data);
  fs.mkdirSync(store.dir);
  watch(data, store.dir);
  flushed.length = 0;
  await (await store.create(session('s1'))).close();
  assert.deepEqual([...new Set(flushed)].sort(), ['s1.jsonl', 'sessions.index.json'], 'the session log written whole, the index');
});
