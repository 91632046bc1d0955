// The line range fs/read_text_file serves, against what it did before (decode the whole file,
// split on '\n', slice, join) on every edge: line 1, past the end, limit 0 or absent, no final
// newline, CRLF, an empty file, multi-byte and broken UTF-8 next to newlines, and random files.
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { test } from 'node:test';
import { lineRange } from '../../../src/client/hosts/line_range.ts';

/** The way fs_host cut a range before: the whole file split into lines. */
function bySplit(bytes: Buffer, line?: number | null, limit?: number | null): string {
  const lines = bytes.toString('utf8').split('\n');
  const start = Math.max(0, (line ?? 1) - 1);
  const end = limit == null ? lines.length : start + Math.max(0, limit);
  return lines.slice(start, end).join('\n');
}

const files: Array<[string, Buffer]> = [
  ['empty', Buffer.from('')],
  ['one newline', Buffer.from('\n')],
  ['newlines only', Buffer.from('\n\n\n')],
  ['one line, no final newline', Buffer.from('alpha')],
  ['one line', Buffer.from('alpha\n')],
  ['no final newline', Buffer.from('alpha\nbeta\ngamma')],
  ['final newline', Buffer.from('alpha\nbeta\ngamma\n')],
  ['CRLF', Buffer.from('alpha\r\nbeta\r\ngamma\r\n')],
  ['CRLF, no final newline', Buffer.from('alpha\r\nbeta')],
  ['lone CR', Buffer.from('a\rb\nc\r')],
  ['multi-byte', Buffer.from('é\n€uro\n😀\nz')],
  ['a byte order mark', Buffer.from('\ufefffirst\nsecond\n')],
  ['broken UTF-8 before and after newlines', Buffer.from([0x61, 0xe2, 0x0a, 0x82, 0x62, 0x0a, 0xf0, 0x9f, 0x0a, 0xff, 0x0a])],
];
const lineArgs = [undefined, null, 0, 1, 2, 3, 4, 5, 100, -1, 1.5, 2.9];
const limitArgs = [undefined, null, 0, 1, 2, 3, 4, 100, -1, 0.5, 1.5];

test('every file × line × limit gives what splitting the whole file gave', () => {
  let cases = 0;
  for (const [name, bytes] of files) {
    for (const line of lineArgs) {
      for (const limit of limitArgs) {
        assert.equal(lineRange(bytes, line, limit), bySplit(bytes, line, limit), `${name}, line ${line}, limit ${limit}`);
        cases++;
      }
    }
  }
  assert.equal(cases, files.length * lineArgs.length * limitArgs.length);
});

test('the cases that matter, spelled out', () => {
  const f = Buffer.from('l1\nl2\nl3\n');
  assert.equal(lineRange(f, 1, 1), 'l1');
  assert.equal(lineRange(f, 2, 2), 'l2\nl3');
  assert.equal(lineRange(f, 2), 'l2\nl3\n', 'to the end keeps the final newline');
  assert.equal(lineRange(f, 4), '', 'the empty line after the final newline');
  assert.equal(lineRange(f, 9, 3), '', 'past the end');
  assert.equal(lineRange(f, 1, 0), '', 'limit 0');
  assert.equal(lineRange(Buffer.from('a\r\nb'), 1, 1), 'a\r');
  assert.equal(lineRange(Buffer.from(''), 1, 5), '');
});

test('random files and ranges agree with splitting', () => {
  // a fixed-seed generator, so a failure repeats
  let seed = 0x2545f491;
  const rand = (n: number) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const pieces = [[0x61], [0x62, 0x63], [0x0a], [0x0a], [0x0d, 0x0a], [0x0d], [0xc3, 0xa9], [0xe2, 0x82, 0xac], [0xff], [0xe2]];
  for (let i = 0; i < 3000; i++) {
    const bytes: number[] = [];
    for (let j = rand(40); j > 0; j--) bytes.push(...pieces[rand(pieces.length)]);
    const buf = Buffer.from(bytes);
    const line = rand(4) === 0 ? undefined : rand(12);
    const limit = rand(4) === 0 ? undefined : rand(8);
    assert.equal(lineRange(buf, line, limit), bySplit(buf, line, limit), `${JSON.stringify(bytes)} line ${line} limit ${limit}`);
  }
});

test('a range deep in a large file', () => {
  const lines = Array.from({ length: 200_000 }, (_, i) => `line ${i} ${'x'.repeat(i % 50)}`);
  const buf = Buffer.from(`${lines.join('\n')}\n`);
  assert.equal(lineRange(buf, 150_001, 3), lines.slice(150_000, 150_003).join('\n'));
  assert.equal(lineRange(buf, 200_000), `${lines[199_999]}\n`);
});
