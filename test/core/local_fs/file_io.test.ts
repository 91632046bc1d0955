// FileIO: the workspace side (check-to-use window, atomic writes, modes, stale detection, a
// writer killed mid-write) and the client side (an in-memory fake ACP client recording calls).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ClientFileIO, openSame, sha256, WorkspaceFileIO, type FsClient } from '../../../src/core/local_fs/file_io.ts';
import { confine } from '../../../src/core/paths.ts';
import { moduleCommand } from '../../../src/core/platform/runtime.ts';
import { bytesReadFrom, expectCode, settled, toolset, tree } from '../fs_helpers.ts';

const big = { maxBytes: Number.MAX_SAFE_INTEGER };

test('read refuses a file swapped for a symlink between the check and the open', async () => {
  const root = tree({ 'a.txt': 'inside\n', 'b.txt': 'other\n' });
  const outside = tree({ 's.txt': 'SECRET\n' });
  const io = new WorkspaceFileIO(root);
  const c = confine(root, 'a.txt');
  fs.rmSync(path.join(root, 'a.txt'));
  fs.symlinkSync(path.join(outside, 's.txt'), path.join(root, 'a.txt'));
  await assert.rejects(io.read(c, big), { code: 'escape' });
  // swapped for another regular file (a different inode): also refused, not silently read
  const c2 = confine(root, 'b.txt');
  fs.rmSync(path.join(root, 'b.txt'));
  fs.linkSync(path.join(outside, 's.txt'), path.join(root, 'b.txt'));
  await assert.rejects(io.read(c2, big), { code: 'escape' });
});

test('openSame (stat_file, count_stats, grep on a file) refuses a different inode swapped in after the check', () => {
  const root = tree({ 'a.txt': 'inside\n' });
  const outside = tree({ 's.txt': 'SECRET\n' });
  const c = confine(root, 'a.txt');
  const checked = fs.lstatSync(c.real);
  const { fd } = openSame(c, checked);
  fs.closeSync(fd);
  fs.rmSync(path.join(root, 'a.txt'));
  fs.linkSync(path.join(outside, 's.txt'), path.join(root, 'a.txt'));
  assert.throws(() => openSame(c, checked), { code: 'escape' });
  fs.rmSync(path.join(root, 'a.txt'));
  assert.equal(spawnSync('mkfifo', [path.join(root, 'a.txt')]).status, 0);
  assert.throws(() => openSame(c, checked), { code: 'not_regular' });
});

test('read of a FIFO swapped in does not hang; too_large past the limit', async () => {
  const root = tree({ 'f': 'x', 'big.txt': 'y'.repeat(1000) });
  const io = new WorkspaceFileIO(root);
  const c = confine(root, 'f');
  fs.rmSync(path.join(root, 'f'));
  assert.equal(spawnSync('mkfifo', [path.join(root, 'f')]).status, 0);
  await assert.rejects(io.read(c, big), { code: 'not_regular' });
  await assert.rejects(io.read(confine(root, 'big.txt'), { maxBytes: 999 }), { code: 'too_large' });
  assert.equal((await io.read(confine(root, 'big.txt'), { maxBytes: 1000 })).bytes.length, 1000);
});

test('write is atomic via a temp file in the same dir, keeps the mode, and leaves no temp behind', async () => {
  const root = tree({ 'run.sh': { content: '#!/bin/sh\necho 1\n', mode: 0o750 }, 'secret.cfg': { content: 'a', mode: 0o600 } });
  const io = new WorkspaceFileIO(root);
  for (const [rel, mode] of [['run.sh', 0o750], ['secret.cfg', 0o600]] as const) {
    const c = confine(root, rel);
    const before = fs.readFileSync(c.real);
    await io.write(c, Buffer.from('new\n'), { expectSha256: sha256(before) });
    assert.equal(fs.readFileSync(c.real, 'utf8'), 'new\n');
    assert.equal(fs.statSync(c.real).mode & 0o7777, mode);
  }
  const c = confine(root, 'n/e/w.txt');
  await io.write(c, Buffer.from('hi'), { expectSha256: null });
  assert.equal(fs.readFileSync(path.join(root, 'n/e/w.txt'), 'utf8'), 'hi');
  assert.deepEqual(fs.readdirSync(root).sort(), ['n', 'run.sh', 'secret.cfg']);
});

test('write refuses (stale) when the content changed after the caller read it, or a new file appeared', async () => {
  const root = tree({ 'a.txt': 'v1\n' });
  const io = new WorkspaceFileIO(root);
  const c = confine(root, 'a.txt');
  const sha = sha256(fs.readFileSync(c.real));
  fs.writeFileSync(c.real, 'v2 by someone else\n');
  await assert.rejects(io.write(c, Buffer.from('mine\n'), { expectSha256: sha }), { code: 'stale' });
  assert.equal(fs.readFileSync(c.real, 'utf8'), 'v2 by someone else\n');
  const n = confine(root, 'new.txt');
  fs.writeFileSync(n.real, 'raced\n');
  await assert.rejects(io.write(n, Buffer.from('mine\n'), { expectSha256: null }), { code: 'stale' });
  assert.equal(fs.readFileSync(n.real, 'utf8'), 'raced\n');
  assert.deepEqual(fs.readdirSync(root).sort(), ['a.txt', 'new.txt']);
});

test('a read vouches for its bytes with the file\'s identity only once its last change is past the racy window', async () => {
  const root = tree({ 'a.txt': 'abc\n' });
  const io = new WorkspaceFileIO(root);
  const c = confine(root, 'a.txt');
  // a timestamp in the future (or just now) is racy: a later change could carry the same one
  const later = new Date(Date.now() + 3_600_000);
  fs.utimesSync(c.real, later, later);
  assert.equal((await io.read(c, big)).identity, undefined);
  fs.utimesSync(c.real, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  const snap = await settled(io, c);
  const st = fs.statSync(c.real, { bigint: true });
  assert.deepEqual(snap.identity, { dev: st.dev, ino: st.ino, size: st.size, mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs });
});

test('the last check refuses a change between the read and the rename at equal size, whichever part of the identity shows it', async () => {
  const root = tree({});
  const io = new WorkspaceFileIO(root);
  // whole seconds, so the mtime can be put back exactly
  const past = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
  const changes: Record<string, (f: string) => void> = {
    'replaced by another file (another inode)': (f) => {
      fs.writeFileSync(`${f}.new`, 'version TWO\n');
      fs.renameSync(`${f}.new`, f);
    },
    'rewritten in place (same inode and size)': (f) => fs.writeFileSync(f, 'version TWO\n'),
    'rewritten in place with its mtime put back (only the ctime moves)': (f) => {
      fs.writeFileSync(f, 'version TWO\n');
      fs.utimesSync(f, past, past);
    },
  };
  const files = Object.keys(changes).map((_, i) => {
    const f = path.join(root, `f${i}.txt`);
    fs.writeFileSync(f, 'version one\n');
    fs.utimesSync(f, past, past);
    return confine(root, `f${i}.txt`);
  });
  for (const [i, [what, change]] of Object.entries(changes).entries()) {
    const c = files[i];
    const snap = await settled(io, c);
    assert.ok(snap.identity, what);
    let changedTo: bigint[] = [];
    await assert.rejects(
      io.write(c, Buffer.from('mine, same len\n'), {
        expectSha256: snap.sha256,
        expectBytes: snap.bytes,
        expectIdentity: snap.identity,
        beforeCommit: () => {
          change(c.real);
          const st = fs.statSync(c.real, { bigint: true });
          changedTo = [st.ino, st.size, st.mtimeNs];
        },
      }),
      { code: 'stale' },
      what,
    );
    assert.equal(fs.readFileSync(c.real, 'utf8'), 'version TWO\n', what);
    if (i === 2) assert.deepEqual(changedTo, [snap.identity.ino, snap.identity.size, snap.identity.mtimeNs], 'only the ctime told this change apart');
  }
  // unchanged, the same write goes through on the identity alone
  fs.writeFileSync(files[0].real, 'version one\n');
  fs.utimesSync(files[0].real, past, past);
  const c = confine(root, 'f0.txt'); // another inode since the rename
  const snap = await settled(io, c);
  await io.write(c, Buffer.from('mine\n'), { expectSha256: snap.sha256, expectBytes: snap.bytes, expectIdentity: snap.identity });
  assert.equal(fs.readFileSync(c.real, 'utf8'), 'mine\n');
});

test('an equal identity stands for the bytes: the last check reads nothing then, and reads them all without one', async () => {
  const root = tree({ 'a.txt': 'x'.repeat(5000) });
  const io = new WorkspaceFileIO(root);
  const c = confine(root, 'a.txt');
  const snap = await settled(io, c);
  // same bytes the session read, but a different identity: compared byte for byte and accepted
  const { identity } = snap;
  assert.equal(await bytesReadFrom(c.real, () => io.write(c, Buffer.from('y'.repeat(5000)), { expectSha256: snap.sha256, expectBytes: snap.bytes, expectIdentity: { ...identity!, ctimeNs: identity!.ctimeNs + 1n } })), 5000);
  const c2 = confine(root, 'a.txt'); // the write made another inode
  const again = await settled(io, c2);
  assert.equal(await bytesReadFrom(c.real, () => io.write(c2, Buffer.from('z'), { expectSha256: again.sha256, expectBytes: again.bytes, expectIdentity: again.identity })), 0);
  assert.equal(fs.readFileSync(c.real, 'utf8'), 'z');
});

test('write refuses a target swapped for a symlink after the check; the outside file is untouched', async () => {
  const root = tree({ 'data.txt': 'SAME' });
  const outside = tree({ 'o.txt': 'SAME' });
  const io = new WorkspaceFileIO(root);
  const c = confine(root, 'data.txt');
  fs.rmSync(c.real);
  fs.symlinkSync(path.join(outside, 'o.txt'), c.real);
  await assert.rejects(io.write(c, Buffer.from('pwned'), { expectSha256: sha256(Buffer.from('SAME')) }), { code: 'escape' });
  assert.equal(fs.readFileSync(path.join(outside, 'o.txt'), 'utf8'), 'SAME');
});

test('a writer killed with SIGKILL mid-write leaves the old or the new content, never a mix', async () => {
  const size = 4 * 1024 * 1024;
  const root = tree({ 'f.bin': Buffer.alloc(size, 'o') });
  const [cmd, ...pre] = moduleCommand(new URL('./fixtures/looping_writer.ts', import.meta.url).href);
  const seen = new Set<string>();
  const tempLeft = () => fs.readdirSync(root).some((n) => /^\.f\.bin\.cxl-[0-9a-f]+\.tmp$/.test(n));
  // ten rounds, then more (bounded) until some kill has landed inside a write: on a loaded
  // machine the timed kills can all fall between writes, and then the test would prove nothing
  for (let round = 0; round < 10 || (!tempLeft() && round < 40); round++) {
    const child = spawn(cmd, [...pre, root, 'f.bin', String(size)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((r) => child.once('exit', r));
    // every third round kills as soon as a temp file appears (a write under way); the others
    // kill after a delay, half of them only once a write has finished (so a new content lands)
    const mode = round % 3 === 2 ? 'temp' : round % 2 === 0 ? 'wrote' : 'ready';
    const watcher = mode === 'temp' ? fs.watch(root) : undefined;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      if (watcher) {
        child.stdout.resume();
        watcher.on('change', (_e, name) => {
          if (/\.tmp$/.test(String(name))) resolve();
        });
      } else {
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          if (out.includes(mode)) resolve();
        });
      }
      child.once('exit', (code) => reject(new Error(`writer exited early (${code})`)));
    });
    if (!watcher) await new Promise((r) => setTimeout(r, 15 + (round % 6) * 23));
    child.kill('SIGKILL');
    watcher?.close();
    await exited;
    const b = fs.readFileSync(path.join(root, 'f.bin'));
    assert.equal(b.length, size, `round ${round}: length ${b.length}`);
    const first = b[0];
    assert.ok([0x6f, 0x78, 0x79].includes(first), `round ${round}: unexpected byte ${first}`);
    assert.ok(b.equals(Buffer.alloc(size, first)), `round ${round}: a mix of contents`);
    seen.add(String.fromCharCode(first));
  }
  assert.ok(seen.has('x') || seen.has('y'), 'a kill after a finished write leaves a new content');
  // a temp file left behind proves some kill landed inside a write (between create and rename)
  assert.ok(tempLeft(), 'no kill interrupted a write; the test proved nothing');
});

/** An in-memory ACP client: fs/read_text_file and fs/write_text_file, recording every call. */
class FakeClient implements FsClient {
  files = new Map<string, string>();
  calls: unknown[][] = [];
  async readTextFile(p: string, line?: number, limit?: number) {
    this.calls.push(['read', p, line, limit]);
    const t = this.files.get(p);
    if (t === undefined) throw new Error(`Resource not found: ${p}`);
    return t;
  }
  async writeTextFile(p: string, content: string) {
    this.calls.push(['write', p, content]);
    this.files.set(p, content);
  }
}

test('client-backed IO reads and writes through the client with confined absolute paths', async () => {
  const root = tree({ 'a.txt': 'on disk\n' });
  const fake = new FakeClient();
  const abs = path.join(root, 'a.txt');
  fake.files.set(abs, 'in the editor\nsecond\n');
  const ts = toolset(root, {}, { io: new ClientFileIO(fake) });
  assert.equal(await ts.call('read_file', { path: 'a.txt' }), 'in the editor\nsecond\n');
  const r = (await ts.call('edit_file', { path: 'a.txt', old_string: 'second', new_string: 'SECOND' })) as { written: boolean };
  assert.equal(r.written, true);
  assert.equal(fake.files.get(abs), 'in the editor\nSECOND\n');
  assert.equal(fs.readFileSync(abs, 'utf8'), 'on disk\n', 'the disk is not touched: the client owns the content');
  assert.deepEqual(fake.calls, [
    ['read', abs, undefined, undefined],
    ['read', abs, undefined, undefined],
    ['read', abs, undefined, undefined],
    ['write', abs, 'in the editor\nSECOND\n'],
  ]);
  // a new file through the client, then a change behind our back is stale
  await ts.call('write_file', { path: 'sub/new.txt', content: 'n\n' });
  assert.equal(fake.files.get(path.join(root, 'sub/new.txt')), 'n\n');
  fake.files.set(abs, 'changed by the user\n');
  await expectCode(ts, 'edit_file', { path: 'a.txt', old_string: 'SECOND', new_string: 'x' }, 'stale');
  await expectCode(ts, 'read_file', { path: 'missing.txt' }, 'not_found');
});

test('client-backed IO: the client\'s own failures get stable codes (not_found, io_error)', async () => {
  const root = tree({ 'a.txt': 'on disk\n' });
  const c = confine(root, 'a.txt');
  await assert.rejects(new ClientFileIO(new FakeClient()).read(c, big), { code: 'not_found' });
  const enoent = Object.assign(new Error('gone'), { code: 'ENOENT' });
  await assert.rejects(new ClientFileIO({ readTextFile: async () => Promise.reject(enoent) }).read(c, big), { code: 'not_found' });
  const broken = new ClientFileIO({ readTextFile: async () => Promise.reject(new Error('editor crashed')), writeTextFile: async () => Promise.reject(new Error('disk full')) });
  await assert.rejects(broken.read(c, big), (e: { code: string; message: string }) => e.code === 'io_error' && /could not read a\.txt: editor crashed/.test(e.message));
  // a new file is first checked to be still missing: a client that cannot read says so
  await assert.rejects(broken.write(confine(root, 'n.txt'), Buffer.from('x'), { expectSha256: null }), (e: { code: string; message: string }) => e.code === 'io_error' && /could not read n\.txt: editor crashed/.test(e.message));
  const fullDisk = new ClientFileIO({ readTextFile: async () => Promise.reject(enoent), writeTextFile: async () => Promise.reject(new Error('disk full')) });
  await assert.rejects(fullDisk.write(confine(root, 'n.txt'), Buffer.from('x'), { expectSha256: null }), (e: { code: string; message: string }) => e.code === 'io_error' && /could not write n\.txt: disk full/.test(e.message));
});

test('client-backed IO: a missing capability is a clear refusal, and the gate still applies', async () => {
  const root = tree({ 'a.txt': 'x\n', '.env': 'K=V\n' });
  const readOnly = new ClientFileIO({ readTextFile: async () => 'x\n' });
  const ts = toolset(root, {}, { io: readOnly });
  assert.equal(await ts.call('read_file', { path: 'a.txt' }), 'x\n');
  const msg = await expectCode(ts, 'write_file', { path: 'a.txt', content: 'y' }, 'capability_missing');
  assert.match(msg, /fs\.writeTextFile/);
  await expectCode(toolset(root, {}, { io: new ClientFileIO({}) }), 'read_file', { path: 'a.txt' }, 'capability_missing');
  const fake = new FakeClient();
  const gated = toolset(root, {}, { io: new ClientFileIO(fake) });
  await expectCode(gated, 'read_file', { path: '.env' }, 'approval_required');
  await expectCode(gated, 'read_file', { path: '../x' }, 'escape');
  assert.deepEqual(fake.calls, [], 'refused paths never reach the client');
});
