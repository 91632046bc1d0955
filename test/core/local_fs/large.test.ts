// Large inputs with caps raised: a 100 MB file through read, range, grep, count and edit, and
// very long lines; checks both correctness and that nothing is silently truncated.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { expectCode, toolset, tree } from '../fs_helpers.ts';

const MB = 1024 * 1024;

test('a 100 MB file: too_large by default, readable with caps raised, edited exactly', async () => {
  const root = tree({});
  const file = path.join(root, 'huge.txt');
  const line = `${'0123456789'.repeat(9)}abcdefghi\n`; // 100 bytes
  const count = MB; // 100 MiB
  const block = Buffer.from(line.repeat(MB / 100 * 10));
  const fd = fs.openSync(file, 'w');
  for (let off = 0; off < count * 100; off += block.length) fs.writeSync(fd, block, 0, Math.min(block.length, count * 100 - off));
  fs.closeSync(fd);
  fs.appendFileSync(file, 'THE END\n');
  const size = fs.statSync(file).size;
  assert.equal(size, 100 * MB + 8);

  await expectCode(toolset(root), 'read_file', { path: 'huge.txt' }, 'too_large');
  const ts = toolset(root, { _max_read_bytes: '0', _max_output_bytes: '0', _max_grep_matches: '5' });
  assert.equal(await ts.call('read_file_range', { path: 'huge.txt', start_line: count + 1 }), 'THE END\n');
  assert.equal(await ts.call('count_stats', { path: 'huge.txt' }), `Lines: ${count + 1}, Words: ${count + 2}, Bytes: ${size}`);
  assert.equal(await ts.call('grep', { path: 'huge.txt', pattern: 'THE END' }), `${count + 1}: THE END`);
  const full = String(await ts.call('read_file', { path: 'huge.txt' }));
  assert.equal(full.length, size);
  const r = (await ts.call('edit_file', { path: 'huge.txt', old_string: 'THE END', new_string: 'FIN' })) as Record<string, unknown>;
  assert.equal(r.new_bytes, size - 4);
  const after = fs.readFileSync(file);
  assert.equal(after.subarray(after.length - 4).toString(), 'FIN\n');
  assert.equal(r.new_sha256, createHash('sha256').update(after).digest('hex'));
  assert.equal(after.indexOf('\n'), 99);
});

test('very long lines: a 5 MB single line is read whole with caps raised and capped with a notice otherwise', async () => {
  const long = 'x'.repeat(5 * MB);
  const root = tree({ 'l.txt': `${long}\nshort\n` });
  const raised = toolset(root, { _max_read_bytes: '0', _max_output_bytes: '0' });
  assert.equal(String(await raised.call('read_file', { path: 'l.txt' })).length, 5 * MB + 7);
  const capped = String(await toolset(root, { _max_read_bytes: '0' }).call('read_file', { path: 'l.txt' }));
  assert.ok(capped.length < 40_000);
  assert.match(capped, /start_line=2/);
  await raised.call('sed', { path: 'l.txt', pattern: 'short', replacement: 'tall' });
  assert.equal(fs.readFileSync(path.join(root, 'l.txt'), 'utf8').slice(-5), 'tall\n');
});
