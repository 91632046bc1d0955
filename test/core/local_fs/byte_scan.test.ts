// The SIMD scan kernel against plain Buffer methods: newline counts and needle offsets agree on
// random content, at chunk boundaries, for needles of repeated bytes, windows and limits.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { borrowScanBuffer, countNewlines, findAll, kernelAvailable } from '../../../src/core/local_fs/byte_scan.ts';

/** The answers findAll must give: non-overlapping copies wholly inside [from, to). */
function oracle(hay: Buffer, needle: Buffer, from: number, to: number, limit = Infinity): number[] {
  const out: number[] = [];
  let i = hay.indexOf(needle, from);
  while (i !== -1 && i + needle.length <= to && out.length < limit) {
    out.push(i);
    i = hay.indexOf(needle, i + needle.length);
  }
  return out;
}

function newlines(b: Buffer): number {
  let n = 0;
  for (const c of b) if (c === 10) n++;
  return n;
}

let seed = 7;
const rand = (n: number) => {
  seed = (seed * 16807) % 2147483647;
  return seed % n;
};

test('the kernel runs on this runtime (WebAssembly SIMD)', () => {
  assert.equal(kernelAvailable(), true);
});

test('countNewlines equals a byte-by-byte count, at every length around the 16-byte steps and 64 KiB chunks', () => {
  const big = Buffer.alloc(3 * 65536 + 100);
  for (let i = 0; i < big.length; i++) big[i] = rand(4) === 0 ? 10 : 97 + rand(3);
  for (const len of [0, 1, 15, 16, 17, 16 * 1024 - 1, 16 * 1024, 65535, 65536, 65537, 255 * 16, 255 * 16 + 1, 2 * 65536 + 7, big.length]) {
    for (const start of [0, 1, 13]) {
      const b = big.subarray(start, Math.min(start + len, big.length));
      assert.equal(countNewlines(b), newlines(b), `len ${len} from ${start}`);
    }
  }
  // a run of 255 * 16 + more newlines: no byte counter overflows
  const all = Buffer.alloc(200_000, 10);
  assert.equal(countNewlines(all), 200_000);
});

test('findAll equals repeated Buffer.indexOf: random text, needles of every kind, windows and limits', () => {
  // twenty kinds of byte: the kernel runs; six: most needles are of bytes too common for it
  for (const alphabet of [Buffer.from('abcdefghijklmnop\n\r x'), Buffer.from('ab\n\r x')]) {
    const hay = Buffer.alloc(300_000);
    for (let i = 0; i < hay.length; i++) hay[i] = alphabet[rand(alphabet.length)];
    randomCases(hay, alphabet);
  }
});

function randomCases(hay: Buffer, alphabet: Buffer) {
  for (let k = 0; k < 300; k++) {
    const len = 1 + rand(k % 10 === 0 ? 5000 : 12);
    let needle: Buffer;
    if (k % 3 === 0) {
      const at = rand(hay.length - len);
      needle = Buffer.from(hay.subarray(at, at + len)); // one that occurs
    } else {
      needle = Buffer.alloc(len);
      for (let i = 0; i < len; i++) needle[i] = alphabet[rand(alphabet.length)];
    }
    const from = rand(3) === 0 ? rand(hay.length) : 0;
    const to = rand(3) === 0 ? from + rand(hay.length - from + 1) : hay.length;
    const limit = rand(4) === 0 ? 1 + rand(3) : Infinity;
    assert.deepEqual(findAll(hay, needle, from, to, limit), oracle(hay, needle, from, to, limit), `case ${k}: needle of ${len} in [${from}, ${to}) limit ${limit}`);
  }
}

test('findAll: copies across the 64 KiB chunk boundaries, overlapping candidates, repeated bytes', () => {
  const hay = Buffer.alloc(5 * 65536, 'y');
  const needle = Buffer.from('NEEDLE\r\nX');
  const spots = [0, 65536 - 4, 65536 + 5, 2 * 65536 - needle.length, 2 * 65536, 3 * 65536 + 5, hay.length - needle.length];
  for (const s of spots) needle.copy(hay, s);
  assert.deepEqual(findAll(hay, needle), spots);
  assert.deepEqual(findAll(hay, needle, 0, hay.length, 3), spots.slice(0, 3));
  assert.deepEqual(findAll(hay, needle, 1, hay.length - 1), spots.slice(1, -1));
  // non-overlapping, leftmost first: 'aaa' in 'a' x 100,001 across chunk ends
  const as = Buffer.alloc(100_001, 'a');
  assert.deepEqual(findAll(as, Buffer.from('aaa')), oracle(as, Buffer.from('aaa'), 0, as.length));
  assert.equal(findAll(as, Buffer.from('aaa')).length, 33_333);
  // a needle longer than the kernel takes is searched all the same
  const long = Buffer.alloc(10_000, 'q');
  long[9999] = 0x21;
  const h2 = Buffer.concat([Buffer.alloc(70_000, 'q'), long, Buffer.alloc(100, 'q')]);
  assert.deepEqual(findAll(h2, long), [70_000]);
  assert.deepEqual(findAll(hay, Buffer.alloc(0)), []);
});

test('in the arena (scanned where it lies): the same answers as the copying scan, at its start, end and any offset', () => {
  const alphabet = Buffer.from('abcdefghijklmnop\n\r x');
  const hay = Buffer.alloc(300_000);
  for (let i = 0; i < hay.length; i++) hay[i] = alphabet[rand(alphabet.length)];
  const lease = borrowScanBuffer(hay.length + 64);
  assert.ok(lease, 'the arena is free');
  try {
    for (const shift of [0, 1, 13, 64]) {
      const inArena = lease.buf.subarray(shift, shift + hay.length);
      hay.copy(inArena);
      assert.equal(countNewlines(inArena), newlines(hay), `shift ${shift}`);
      assert.equal(countNewlines(inArena.subarray(5, 200_001)), newlines(hay.subarray(5, 200_001)));
      randomCases(inArena, alphabet);
      // a copy at the very end of the data: the kernel reads nothing past it
      const needle = Buffer.from('Zq9\nEND');
      needle.copy(inArena, inArena.length - needle.length);
      assert.deepEqual(findAll(inArena, needle), [inArena.length - needle.length]);
      hay.copy(inArena);
    }
    // one holder at a time: a second borrower is told to allocate
    assert.equal(borrowScanBuffer(10), undefined);
  } finally {
    lease.release();
  }
  const again = borrowScanBuffer(10);
  assert.ok(again, 'free again after release');
  again.release();
  assert.equal(borrowScanBuffer(2 ** 31), undefined, 'over the arena limit');
});
