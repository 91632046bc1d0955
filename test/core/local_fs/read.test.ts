// read_file and read_file_range: text, ranges, caps and notices, the dedup stub, refusals, and
// the edge files (empty, CRLF, no trailing newline, invalid UTF-8, very long lines).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expectCode, toolset, tree } from '../fs_helpers.ts';

test('read_file returns the text and a re-read of the same version is a short stub unless forced', async () => {
  const root = tree({ 'a.txt': 'one\ntwo\n' });
  const ts = toolset(root);
  assert.equal(await ts.call('read_file', { path: 'a.txt' }), 'one\ntwo\n');
  const stub = (await ts.call('read_file', { path: 'a.txt' })) as Record<string, unknown>;
  assert.equal(stub.unchanged, true);
  assert.equal(stub.path, 'a.txt');
  assert.equal(stub.bytes, 8);
  assert.match(String(stub.sha256), /^[0-9a-f]{64}$/);
  assert.equal(await ts.call('read_file', { path: 'a.txt', force: 'true' }), 'one\ntwo\n');
  // another session has not read it: it gets the text
  assert.equal(await toolset(root).call('read_file', { path: './a.txt' }), 'one\ntwo\n');
});

test('read_file with a line bound acts as read_file_range; a start past EOF gives ""', async () => {
  const root = tree({ 'l.txt': 'l1\nl2\nl3\nl4\n' });
  const ts = toolset(root);
  assert.equal(await ts.call('read_file', { path: 'l.txt', start_line: 2, end_line: 3 }), 'l2\nl3\n');
  assert.equal(await ts.call('read_file_range', { path: 'l.txt', start_line: '3' }), 'l3\nl4\n');
  assert.equal(await ts.call('read_file_range', { path: 'l.txt', end_line: 1 }), 'l1\n');
  assert.equal(await ts.call('read_file_range', { path: 'l.txt', start_line: 9 }), '');
  await expectCode(ts, 'read_file_range', { path: 'l.txt', start_line: 3, end_line: 2 }, 'bad_args');
  await expectCode(ts, 'read_file_range', { path: 'l.txt', start_line: 0 }, 'bad_args');
  // a range read never produces the dedup stub and is not a full read
  assert.equal(await ts.call('read_file', { path: 'l.txt' }), 'l1\nl2\nl3\nl4\n');
});

test('output over _max_output_bytes: whole lines, a notice naming the next start_line, counted as a range read', async () => {
  const lines = Array.from({ length: 100 }, (_, i) => `line ${String(i + 1).padStart(3, '0')}`).join('\n') + '\n';
  const root = tree({ 'big.txt': lines });
  const ts = toolset(root, { _max_output_bytes: '100' });
  const out = String(await ts.call('read_file', { path: 'big.txt' }));
  const [body, notice] = out.split('\n[');
  assert.equal(body, 'line 001\nline 002\nline 003\nline 004\nline 005\nline 006\nline 007\nline 008\nline 009\nline 010\nline 011\n');
  assert.match(notice, /showed lines 1-11 of 100\. Continue with read_file_range path="big.txt" start_line=12/);
  await expectCode(ts, 'write_file', { path: 'big.txt', content: 'x' }, 'range_only');
  const next = String(await ts.call('read_file_range', { path: 'big.txt', start_line: 12, end_line: 13 }));
  assert.equal(next, 'line 012\nline 013\n');
});

test('a single line longer than the output cap is cut on a character boundary with a notice', async () => {
  const root = tree({ 'long.txt': `${'é'.repeat(5000)}\nnext\n` });
  const ts = toolset(root, { _max_output_bytes: '101' });
  const out = String(await ts.call('read_file', { path: 'long.txt' }));
  assert.ok(out.startsWith('é'.repeat(50)) && !out.startsWith('é'.repeat(51)), 'cut at 100 bytes = 50 two-byte characters');
  assert.ok(!out.includes('\uFFFD'));
  assert.match(out, /head of line 1 \(cut\)\. Continue with read_file_range path="long.txt" start_line=2/);
});

test('over _max_read_bytes: too_large naming a range read and the key; a range still works', async () => {
  const root = tree({ 'f.txt': 'abc\n'.repeat(100) });
  const ts = toolset(root, { _max_read_bytes: '100' });
  const msg = await expectCode(ts, 'read_file', { path: 'f.txt' }, 'too_large');
  assert.match(msg, /read_file_range/);
  assert.match(msg, /_max_read_bytes/);
  assert.equal(await ts.call('read_file_range', { path: 'f.txt', start_line: 100 }), 'abc\n');
  assert.equal(await toolset(root, { _max_read_bytes: '0' }).call('read_file', { path: 'f.txt' }), 'abc\n'.repeat(100));
});

test('binaries and directories are refused with their codes; missing files are not_found', async () => {
  const root = tree({
    'nul.bin': Buffer.from([0x41, 0x00, 0x42]),
    'late-nul.txt': Buffer.concat([Buffer.alloc(600, 0x61), Buffer.from([0])]),
    'noise.bin': Buffer.from(Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? 0xff : 0x61))),
    'some-bad.txt': Buffer.from([0x61, 0x62, 0xff, 0x63, 0x0a]),
    'dir/x': 'x',
  });
  const ts = toolset(root);
  await expectCode(ts, 'read_file', { path: 'nul.bin' }, 'binary');
  await expectCode(ts, 'read_file', { path: 'noise.bin' }, 'binary');
  await expectCode(ts, 'read_file_range', { path: 'nul.bin' }, 'binary');
  // a NUL after the first 512 bytes, and a little invalid UTF-8, are still text
  assert.equal(String(await ts.call('read_file', { path: 'late-nul.txt' })).length, 601);
  assert.equal(await ts.call('read_file', { path: 'some-bad.txt' }), 'ab\uFFFDc\n');
  await expectCode(ts, 'read_file', { path: 'dir' }, 'is_directory');
  await expectCode(ts, 'read_file', { path: 'nope.txt' }, 'not_found');
  await expectCode(ts, 'read_file', { path: 'dir/x/y' }, 'not_directory');
});

test('edge files: empty, CRLF, no trailing newline, invalid UTF-8 ranges', async () => {
  const root = tree({ 'empty': '', 'crlf.txt': 'a\r\nb\r\nc\r\n', 'nonl.txt': 'x\ny', 'bad.txt': Buffer.from('ok\n\xff\xfe\nend\n', 'latin1') });
  const ts = toolset(root);
  assert.equal(await ts.call('read_file', { path: 'empty' }), '');
  assert.equal(await ts.call('read_file_range', { path: 'empty', start_line: 1 }), '');
  assert.equal(await ts.call('read_file', { path: 'crlf.txt' }), 'a\r\nb\r\nc\r\n');
  assert.equal(await ts.call('read_file_range', { path: 'crlf.txt', start_line: 2, end_line: 2 }), 'b\r\n');
  assert.equal(await ts.call('read_file_range', { path: 'nonl.txt', start_line: 2 }), 'y');
  assert.equal(await ts.call('read_file_range', { path: 'bad.txt', start_line: 2, end_line: 3 }), '\uFFFD\uFFFD\nend\n');
});
