// write_file, edit_file, sed: the read-before-write contract (three refusals, updates, races),
// atomic writes that keep the mode, byte-exact matching (CRLF, invalid UTF-8), and every
// documented refusal of the mutators.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { bytesReadFrom, expectCode, read, readText, settled, toolset, tree } from '../fs_helpers.ts';

test('write_file creates new files (and parents) without a read, returning sizes and hashes', async () => {
  const root = tree({});
  const ts = toolset(root);
  const r = (await ts.call('write_file', { path: 'a/b/new.txt', content: 'hello\n' })) as Record<string, unknown>;
  assert.deepEqual(Object.keys(r).sort(), ['new_bytes', 'new_sha256', 'old_bytes', 'old_sha256', 'path', 'written']);
  assert.equal(r.path, 'a/b/new.txt');
  assert.equal(r.written, true);
  assert.equal(r.old_bytes, 0);
  assert.equal(r.old_sha256, null);
  assert.equal(r.new_bytes, 6);
  assert.equal(readText(root, 'a/b/new.txt'), 'hello\n');
  // the writer knows the content: a second overwrite needs no read
  await ts.call('write_file', { path: 'a/b/new.txt', content: 'again\n' });
  assert.equal(readText(root, 'a/b/new.txt'), 'again\n');
});

test('write_file on an existing file: never read → not_read, range → range_only, changed → stale', async () => {
  const root = tree({ 'f.txt': 'v1\nmore\n' });
  const ts = toolset(root);
  assert.match(await expectCode(ts, 'write_file', { path: 'f.txt', content: 'x' }, 'not_read'), /has not been read/);
  await ts.call('read_file_range', { path: 'f.txt', start_line: 1, end_line: 1 });
  assert.match(await expectCode(ts, 'write_file', { path: 'f.txt', content: 'x' }, 'range_only'), /Only a range/);
  await ts.call('read_file', { path: 'f.txt' });
  fs.writeFileSync(path.join(root, 'f.txt'), 'v2 from elsewhere\n');
  assert.match(await expectCode(ts, 'write_file', { path: 'f.txt', content: 'x' }, 'stale'), /changed since/);
  assert.equal(readText(root, 'f.txt'), 'v2 from elsewhere\n');
  await ts.call('read_file', { path: 'f.txt' });
  const r = (await ts.call('write_file', { path: 'f.txt', content: 'v3\n' })) as { old_bytes: number; written: boolean };
  assert.equal(r.old_bytes, 18);
  assert.equal(readText(root, 'f.txt'), 'v3\n');
  await expectCode(ts, 'write_file', { path: '.', content: 'x' }, 'is_directory');
});

test('write keeps the file mode (executable scripts stay executable)', async () => {
  const root = tree({ 'run.sh': { content: '#!/bin/sh\n', mode: 0o755 } });
  const ts = toolset(root);
  await ts.call('read_file', { path: 'run.sh' });
  await ts.call('edit_file', { path: 'run.sh', old_string: '#!/bin/sh\n', new_string: '#!/bin/sh\necho hi\n' });
  assert.equal(fs.statSync(path.join(root, 'run.sh')).mode & 0o777, 0o755);
});

test('edit_file: exactly one match, replace_all, and its refusals leave the file untouched', async () => {
  const root = tree({ 'c.ts': 'let a = 1;\nlet b = 1;\nlet c = 2;\n' });
  const ts = toolset(root);
  await expectCode(ts, 'edit_file', { path: 'c.ts', old_string: 'x', new_string: 'y' }, 'not_read');
  await ts.call('read_file_range', { path: 'c.ts', start_line: 1, end_line: 1 }); // a range read suffices
  assert.match(await expectCode(ts, 'edit_file', { path: 'c.ts', old_string: '= 1', new_string: '= 9' }, 'not_unique'), /occurs 2 times.*lines 1, 2/);
  assert.match(await expectCode(ts, 'edit_file', { path: 'c.ts', old_string: 'let d', new_string: 'x' }, 'no_match'), /Re-read/);
  await expectCode(ts, 'edit_file', { path: 'c.ts', old_string: '', new_string: 'x' }, 'bad_args');
  await expectCode(ts, 'edit_file', { path: 'c.ts', old_string: 'let', new_string: 'let' }, 'bad_args');
  assert.equal(readText(root, 'c.ts'), 'let a = 1;\nlet b = 1;\nlet c = 2;\n');
  const r = (await ts.call('edit_file', { path: 'c.ts', old_string: 'let c = 2;', new_string: 'const c = 3;' })) as Record<string, unknown>;
  assert.deepEqual(Object.keys(r).sort(), ['new_bytes', 'new_sha256', 'old_bytes', 'old_sha256', 'path', 'replacements', 'written']);
  assert.equal(r.replacements, 1);
  const all = (await ts.call('edit_file', { path: 'c.ts', old_string: '= 1', new_string: '= 0', replace_all: 'yes' })) as { replacements: number };
  assert.equal(all.replacements, 2);
  assert.equal(readText(root, 'c.ts'), 'let a = 0;\nlet b = 0;\nconst c = 3;\n');
  await expectCode(ts, 'edit_file', { path: 'missing.ts', old_string: 'a', new_string: 'b' }, 'not_found');
});

test('edit_file is byte-exact: CRLF must match, and invalid UTF-8 elsewhere survives', async () => {
  const bytes = Buffer.concat([Buffer.from('head\r\n'), Buffer.from([0xff, 0xfe]), Buffer.from('\r\ntarget\r\ntail')]);
  const root = tree({ 'w.txt': bytes });
  const ts = toolset(root);
  await ts.call('read_file', { path: 'w.txt' });
  await expectCode(ts, 'edit_file', { path: 'w.txt', old_string: 'target\n', new_string: 'x' }, 'no_match');
  await ts.call('edit_file', { path: 'w.txt', old_string: 'target\r\n', new_string: 'done\r\n' });
  assert.ok(read(root, 'w.txt').equals(Buffer.concat([Buffer.from('head\r\n'), Buffer.from([0xff, 0xfe]), Buffer.from('\r\ndone\r\ntail')])));
});

test('edit_file and sed refuse binaries (even ones this session wrote)', async () => {
  const root = tree({});
  const ts = toolset(root);
  await ts.call('write_file', { path: 'b.bin', content: 'a\u0000b' });
  await expectCode(ts, 'edit_file', { path: 'b.bin', old_string: 'a', new_string: 'c' }, 'binary');
  await expectCode(ts, 'sed', { path: 'b.bin', pattern: 'a', replacement: 'c' }, 'binary');
  await expectCode(ts, 'read_file', { path: 'b.bin' }, 'binary');
});

test('sed: literal, windowed, one match unless all/expect_replacements; no match shows closest lines', async () => {
  const text = ['alpha = 1', 'beta = 1', 'gamma = 1', 'delta = 2', 'a.b*c = 1', ''].join('\n');
  const root = tree({ 's.py': text });
  const ts = toolset(root);
  await ts.call('read_file', { path: 's.py' });
  assert.match(await expectCode(ts, 'sed', { path: 's.py', pattern: '= 1', replacement: '= 0' }, 'not_unique'), /occurs 4 times.*lines 1, 2, 3, 5/);
  const msg = await expectCode(ts, 'sed', { path: 's.py', pattern: 'gamma = 3', replacement: 'x' }, 'no_match');
  assert.match(msg, /Closest lines:\n3: gamma = 1/);
  assert.match(await expectCode(ts, 'sed', { path: 's.py', pattern: '= 1', replacement: '= 0', expect_replacements: 3 }, 'count_mismatch'), /found 4, at lines 1, 2, 3, 5/);
  assert.equal(readText(root, 's.py'), text, 'refusals leave the file untouched');
  // regex metacharacters are literal
  const lit = (await ts.call('sed', { path: 's.py', pattern: 'a.b*c', replacement: 'abc' })) as Record<string, unknown>;
  assert.equal(lit.replacements, 1);
  assert.equal(lit.changed, 1);
  const win = (await ts.call('sed', { path: 's.py', pattern: '= 1', replacement: '= 7', start_line: 2, end_line: 3, all: true })) as Record<string, unknown>;
  assert.equal(win.replacements, 2);
  assert.equal(readText(root, 's.py'), ['alpha = 1', 'beta = 7', 'gamma = 7', 'delta = 2', 'abc = 1', ''].join('\n'));
  const exp = (await ts.call('sed', { path: 's.py', pattern: '= 1', replacement: '= 5', expect_replacements: '2' })) as Record<string, unknown>;
  assert.equal(exp.replacements, 2);
  assert.match(await expectCode(ts, 'sed', { path: 's.py', pattern: 'alpha', replacement: 'x', start_line: 2 }, 'no_match'), /within lines 2-end/);
  await expectCode(ts, 'sed', { path: 's.py', pattern: '', replacement: 'x' }, 'bad_args');
  await expectCode(ts, 'sed', { path: 's.py', pattern: 'a', replacement: 'b', start_line: 3, end_line: 2 }, 'bad_args');
});

test('races: changed between read and edit → stale; swapped for a symlink after the read → refused', async () => {
  const root = tree({ 'r.txt': 'same\n', 'q.txt': 'same\n' });
  const outside = tree({ 'o.txt': 'same\n' });
  const ts = toolset(root);
  await ts.call('read_file', { path: 'r.txt' });
  fs.appendFileSync(path.join(root, 'r.txt'), 'appended\n');
  await expectCode(ts, 'edit_file', { path: 'r.txt', old_string: 'same', new_string: 'mine' }, 'stale');
  await expectCode(ts, 'sed', { path: 'r.txt', pattern: 'same', replacement: 'mine' }, 'stale');
  assert.equal(readText(root, 'r.txt'), 'same\nappended\n');
  assert.deepEqual(fs.readdirSync(root).filter((n) => n.includes('.cxl-')), [], 'a refused write leaves no temp file');
  await ts.call('read_file', { path: 'q.txt' });
  fs.rmSync(path.join(root, 'q.txt'));
  fs.symlinkSync(path.join(outside, 'o.txt'), path.join(root, 'q.txt'));
  await expectCode(ts, 'edit_file', { path: 'q.txt', old_string: 'same', new_string: 'pwned' }, 'escape');
  await expectCode(ts, 'write_file', { path: 'q.txt', content: 'pwned' }, 'escape');
  assert.equal(readText(outside, 'o.txt'), 'same\n');
});

test('edit_file, sed and write_file read the file once: the last check before the rename compares its identity', async () => {
  // a file read in one go, and one big enough to be hashed while it is read
  for (const size of [64_000, 6_000_000]) {
    const lines = 'abcdefghi\n'.repeat(size / 10);
    const root = tree({ 'f.txt': `${lines.slice(0, size / 2)}MARK_A\n${lines.slice(size / 2 + 7)}` });
    const f = path.join(root, 'f.txt');
    const ts = toolset(root, { _max_read_bytes: '0', _max_output_bytes: '100' });
    const settle = async () => settled(ts.io, await ts.resolve('read_file', 'f.txt'));
    await settle();
    await ts.call('read_file', { path: 'f.txt' });
    assert.equal(await bytesReadFrom(f, () => ts.call('edit_file', { path: 'f.txt', old_string: 'MARK_A', new_string: 'MARK_B' })), size, `edit_file, ${size} bytes`);
    await settle();
    assert.equal(await bytesReadFrom(f, () => ts.call('sed', { path: 'f.txt', pattern: 'MARK_B', replacement: 'MARK_C' })), size, `sed, ${size} bytes`);
    await settle();
    const content = readText(root, 'f.txt').replace('MARK_C', 'MARK_D');
    assert.equal(await bytesReadFrom(f, () => ts.call('write_file', { path: 'f.txt', content })), size, `write_file, ${size} bytes`);
    assert.equal(readText(root, 'f.txt'), content);
    // a file whose timestamps are not safely past (here: in the future) cannot be vouched for by
    // them: the last check compares its bytes, a second read
    const later = new Date(Date.now() + 3_600_000);
    fs.utimesSync(f, later, later);
    assert.equal(await bytesReadFrom(f, () => ts.call('edit_file', { path: 'f.txt', old_string: 'MARK_D', new_string: 'MARK_E' })), 2 * size, `racy, ${size} bytes`);
    assert.match(readText(root, 'f.txt'), /^abcdefghi\n[^]*MARK_E\n/);
    assert.equal(read(root, 'f.txt').length, size);
  }
});

test('the ledger is per session and can be saved and restored with it', async () => {
  const root = tree({ 'f.txt': 'x\n' });
  const a = toolset(root);
  await a.call('read_file', { path: 'f.txt' });
  await expectCode(toolset(root), 'write_file', { path: 'f.txt', content: 'y' }, 'not_read');
  const { ReadLedger } = await import('../../../src/core/local_fs/ledger.ts');
  const restored = toolset(root, {}, { ledger: ReadLedger.fromJSON(JSON.parse(JSON.stringify(a.ledger.toJSON()))) });
  await restored.call('write_file', { path: 'f.txt', content: 'y\n' });
  assert.equal(readText(root, 'f.txt'), 'y\n');
});
