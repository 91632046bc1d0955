// Runaway reads: a 32 GiB sparse file (zeros the kernel makes up as fast as they are read) made
// count_stats and grep run for minutes. Each reads at most _max_scan_file_bytes of one file and a
// tree search at most _max_scan_call_bytes in one call, and says how to narrow.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { expectCode, toolset, tree } from '../fs_helpers.ts';

const GiB = 1024 ** 3;

function sparse(root: string, rel: string, size: number): void {
  const fd = fs.openSync(path.join(root, rel), 'w');
  fs.ftruncateSync(fd, size);
  fs.closeSync(fd);
}

test('count_stats and grep on a 32 GiB sparse file end at once with too_large and how to narrow', async () => {
  const root = tree({ 'small.txt': 'one needle\ntwo\n' });
  sparse(root, 'huge.bin', 32 * GiB);
  const ts = toolset(root);
  const t0 = Date.now();
  const counted = await expectCode(ts, 'count_stats', { path: 'huge.bin' }, 'too_large');
  assert.match(counted, /huge\.bin is 32(\.0)? GiB, more than count_stats reads of one file \(tools_policies\.local_fs\._max_scan_file_bytes = 256(\.0)? MiB\)\. Read a part with read_file_range/);
  const grepped = await expectCode(ts, 'grep', { path: 'huge.bin', pattern: 'x' }, 'too_large');
  assert.match(grepped, /more than grep reads of one file/);
  assert.ok(Date.now() - t0 < 2000, `took ${Date.now() - t0} ms`);
  assert.equal(await ts.call('count_stats', { path: 'small.txt' }), 'Lines: 2, Words: 3, Bytes: 15');
});

test('a tree search skips a file over the per-file cap (both engines) and stops at the per-call cap, saying so', async () => {
  const root = tree({ 'a/one.txt': 'needle 1\n', 'b/two.txt': 'needle 2\n'.repeat(100), 'c/three.txt': 'needle 3\n' });
  sparse(root, 'a/huge.txt', 32 * GiB);
  const ts = toolset(root);
  const t0 = Date.now();
  // literal: ripgrep (--max-filesize); regex: the in-process walk, which also says what it skipped
  const literal = (await ts.call('grep', { path: '.', pattern: 'needle 1' })) as string;
  assert.equal(literal.split('\n')[0], 'a/one.txt:1: needle 1');
  const regex = (await ts.call('grep', { path: '.', pattern: 'needle [13]', regex: true })) as string;
  assert.match(regex, /^a\/one\.txt:1: needle 1\nc\/three\.txt:1: needle 3\n\[1 file\(s\) over _max_scan_file_bytes=268435456 not searched/);
  assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);

  // a per-call cap smaller than the tree: the walk stops before the file that would pass it
  const tight = toolset(root, { _max_scan_call_bytes: '500' });
  const stopped = (await tight.call('grep', { path: '.', pattern: 'needle', regex: true })) as string;
  assert.match(stopped, /^a\/one\.txt:1: needle 1\n/);
  assert.match(stopped, /\[stopped before b\/two\.txt: this call read _max_scan_call_bytes=500; search a narrower directory\.\]/);
  assert.doesNotMatch(stopped, /c\/three\.txt/);
});

test('the caps are policy keys: 0 is unlimited, a bad value falls back with a warning', async () => {
  const { parseFsPolicy } = await import('../../../src/core/local_fs/policy.ts');
  assert.equal(parseFsPolicy({ _max_scan_file_bytes: '0' }).policy.maxScanFileBytes, Infinity);
  assert.equal(parseFsPolicy({ _max_scan_call_bytes: '4096' }).policy.maxScanCallBytes, 4096);
  const bad = parseFsPolicy({ _max_scan_file_bytes: 'lots' });
  assert.equal(bad.policy.maxScanFileBytes, 256 * 1024 * 1024);
  assert.match(bad.warnings[0], /_max_scan_file_bytes = "lots" is not an integer/);
});
