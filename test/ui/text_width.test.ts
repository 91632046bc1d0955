// The UI's narrow-width path (src/ui/text_width.ts) answers exactly what both string-width
// versions of the bundle answer, for every character it accepts, alone, after every other one,
// with colour codes, and in random mixes; and leaves everything else to string-width.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import stringWidth8 from 'string-width';
// wrap-ansi's own copy (7.x), bundled beside the 8.x Ink and widest-line use
import stringWidth7 from '../../node_modules/wrap-ansi/node_modules/string-width/index.js';
import { narrowWidth } from '../../src/ui/text_width.ts';

const accepted: string[] = [];
for (let c = 0x20; c < 0x3000; c++) {
  const ch = String.fromCodePoint(c);
  if (narrowWidth(ch) !== undefined) accepted.push(ch);
}

function same(s: string): void {
  const ours = narrowWidth(s);
  if (ours === undefined) return;
  assert.equal(ours, stringWidth8(s), `string-width 8 on ${JSON.stringify(s)}`);
  assert.equal(ours, (stringWidth7 as (s: string) => number)(s), `string-width 7 on ${JSON.stringify(s)}`);
}

test('every accepted character alone, and each after every other, is measured as string-width measures it', () => {
  assert.ok(accepted.length > 900, `${accepted.length} accepted`);
  for (const a of accepted) same(a);
  const some = accepted.filter((_, i) => i % 7 === 0);
  for (const a of some) for (const b of accepted) same(a + b);
});

test('colour codes as chalk writes them take no width; other escapes are left to string-width', () => {
  for (const s of ['\u001B[31m─ x\u001B[39m', '\u001B[1;38;5;208m›\u001B[0m', '\u001B[m·', 'a\u001B[38;2;255;10;0mb\u001B[22m']) {
    assert.notEqual(narrowWidth(s), undefined, JSON.stringify(s));
    same(s);
  }
  for (const s of ['\u001B[12345m', '\u001B]8;;http://x\u0007link\u001B]8;;\u0007', '\u001B[2K', '\u001B[;1m', '\u001B[31']) assert.equal(narrowWidth(s), undefined, JSON.stringify(s));
});

test('emoji, wide, combining and invisible characters are left to string-width', () => {
  for (const s of ['😀', '中', 'e\u0301', '\u00AD', '\u200B', '©', '‼', '↔', '⏸', 'a\uFE0F', '\t', '\n', '\u0085', '\u2028']) assert.equal(narrowWidth(s), undefined, JSON.stringify(s));
});

test('random mixes of accepted characters and colour codes agree with string-width', () => {
  const parts = [...accepted, 'abc', ' ', '\u001B[31m', '\u001B[0m', '\u001B[1;4m'];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let i = 0; i < 3000; i++) {
    let s = '';
    for (let n = next() % 12; n > 0; n--) s += parts[next() % parts.length];
    same(s);
  }
});
