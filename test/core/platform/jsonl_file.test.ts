// The one reader and appender of JSON-line files, on real files: each damaged-line case is
// skipped and named with its line number, a torn tail is left out on read and ended before the
// next append, and a record after it is never swallowed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { appendJsonLines, parseJsonLines, readJsonLines } from '../../../src/core/platform/jsonl_file.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function temp(): string {
  const d = fs.mkdtempSync(path.join(tmpdir(), 'cxl-jsonl-'));
  dirs.push(d);
  return path.join(d, 'log.jsonl');
}

const invalid = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) && typeof (v as { n?: unknown }).n === 'number' ? undefined : 'not a record with a number n');

test('each damaged line is skipped and named by number; blank lines are ignored; the good ones read in order', () => {
  const skipped: string[] = [];
  const text = ['{"n":1}', '{"n":"two"}', 'garbage', '', '[3]', 'null', '{"n":4}', '{"n":5', '{"n":6}', ''].join('\n');
  const got = parseJsonLines<{ n: number }>(text, { invalid, skipped: (n, why) => skipped.push(`${n}: ${why}`) });
  assert.deepEqual(got.map((r) => r.n), [1, 4, 6]);
  assert.deepEqual(skipped.map((s) => Number(s.split(':')[0])), [2, 3, 5, 6, 8]);
  assert.match(skipped[1], /not JSON/);
  assert.match(skipped[0], /not a record with a number n/);
});

test('a torn last line is left out silently on read (it may be being written), and numbering continues from firstLine', () => {
  const skipped: number[] = [];
  assert.deepEqual(parseJsonLines<{ n: number }>('{"n":1}\n{"n":2', { invalid, skipped: (n) => skipped.push(n) }).map((r) => r.n), [1]);
  assert.equal(skipped.length, 0);
  parseJsonLines('{"n":1}\nbad\n', { firstLine: 10, skipped: (n) => skipped.push(n) });
  assert.deepEqual(skipped, [11]);
});

test('an append after a torn tail ends it first: the new record is whole, the torn line is named, not glued', () => {
  const file = temp();
  appendJsonLines(file, [{ n: 1 }]);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  // a write cut short (not fs.appendFileSync: Deno's resets the file's mode to 0666)
  const fd = fs.openSync(file, 'a');
  fs.writeSync(fd, '{"n":2, "pad":"cut he');
  fs.closeSync(fd);
  appendJsonLines(file, [{ n: 3 }, { n: 4 }]);
  const skipped: number[] = [];
  assert.deepEqual(readJsonLines<{ n: number }>(file, { invalid, skipped: (n) => skipped.push(n) }).map((r) => r.n), [1, 3, 4]);
  assert.deepEqual(skipped, [2]);
  // control: an append to a file that ends well adds no blank line
  const before = fs.readFileSync(file, 'utf8');
  appendJsonLines(file, [{ n: 5 }]);
  assert.equal(fs.readFileSync(file, 'utf8'), `${before}{"n":5}\n`);
  assert.deepEqual(readJsonLines(path.join(path.dirname(file), 'missing.jsonl')), []);
});
