import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capText, HeadTailBuffer } from '../../../src/core/shell/output_limit.ts';

const enc = new TextEncoder();

test('output within the limit is returned whole', () => {
  const b = new HeadTailBuffer(100);
  for (const part of ['hello ', 'wörld ', '🙂']) b.push(enc.encode(part));
  assert.deepEqual(b.result(), { text: 'hello wörld 🙂', totalBytes: enc.encode('hello wörld 🙂').length, omittedBytes: 0, truncated: false });
});

test('over the limit: head and tail kept, the middle cut, the cut counted', () => {
  const b = new HeadTailBuffer(20);
  b.push(enc.encode('0123456789'));
  b.push(enc.encode('abcdefghijklmnopqrstuvwxyz'));
  b.push(enc.encode('ABCDEFGHIJ'));
  const r = b.result();
  assert.equal(r.truncated, true);
  assert.equal(r.totalBytes, 46);
  assert.equal(r.omittedBytes, 26);
  assert.ok(r.text.startsWith('0123456789\n[... 26 bytes of output cut'));
  assert.ok(r.text.endsWith('\nABCDEFGHIJ'));
});

test('cuts land on UTF-8 character boundaries for every split of multibyte text', () => {
  const text = 'é🙂日a'.repeat(50);
  for (let limit = 4; limit < 60; limit++) {
    for (const chunk of [1, 3, 7, 1000]) {
      const b = new HeadTailBuffer(limit);
      const bytes = enc.encode(text);
      for (let i = 0; i < bytes.length; i += chunk) b.push(bytes.subarray(i, i + chunk));
      const r = b.result();
      assert.ok(!r.text.includes('\ufffd'), `limit ${limit} chunk ${chunk}: no replacement character`);
      const [head, tail] = r.text.split(/\n\[\.\.\. \d+ bytes of output cut[^\]]*\]\n/);
      assert.ok(text.startsWith(head), `limit ${limit}: head is a prefix`);
      assert.ok(text.endsWith(tail), `limit ${limit}: tail is a suffix`);
      assert.ok(enc.encode(head).length + enc.encode(tail).length <= limit);
      assert.equal(enc.encode(head).length + enc.encode(tail).length + r.omittedBytes, bytes.length);
    }
  }
});

test('memory stays bounded: 50 MB pushed in small chunks keeps about the limit', () => {
  const limit = 64 * 1024;
  const b = new HeadTailBuffer(limit);
  const chunk = new Uint8Array(1000).fill(0x61);
  let peak = 0;
  for (let i = 0; i < 50_000; i++) {
    b.push(chunk);
    peak = Math.max(peak, b.retainedBytes);
  }
  assert.equal(b.totalBytes, 50_000_000);
  assert.ok(peak <= limit + 64 * 1000, `retained at most ${peak} bytes`);
  const r = b.result();
  assert.equal(r.omittedBytes, 50_000_000 - limit);
});

test('limit 0 means unlimited', () => {
  const b = new HeadTailBuffer(0);
  const big = 'x'.repeat(3_000_000);
  b.push(enc.encode(big));
  assert.equal(b.result().text, big);
});

test('capText caps an assembled string the same way', () => {
  const r = capText('a'.repeat(10) + 'b'.repeat(10), 10);
  assert.equal(r.truncated, true);
  assert.match(r.text, /^aaaaa\n\[\.\.\. 10 bytes of output cut.*\]\nbbbbb$/);
});
