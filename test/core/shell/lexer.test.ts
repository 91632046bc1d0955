import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lex, MAX_LINE_BYTES } from '../../../src/core/shell/lexer.ts';

test('tokens carry values after quote removal and their offsets in the line', () => {
  const r = lex(`git  commit -m 'a b'&&ls;"x"y`);
  assert.ok(r.ok);
  assert.deepEqual(
    r.tokens.map((t) => (t.kind === 'word' ? [t.value, t.quoted, t.start, t.end] : [t.op, t.start, t.end])),
    [
      ['git', false, 0, 3],
      ['commit', false, 5, 11],
      ['-m', false, 12, 14],
      ['a b', true, 15, 20],
      ['&&', 20, 22],
      ['ls', false, 22, 24],
      [';', 24, 25],
      ['xy', true, 25, 29],
    ],
  );
});

test('a refusal names the construct, its offset, and the tokens read before it', () => {
  const r = lex('ls && echo a | wc');
  assert.ok(!r.ok);
  assert.equal(r.refusal.construct, 'pipe |');
  assert.equal(r.refusal.position, 13);
  assert.equal(r.tokens.filter((t) => t.kind === 'op').length, 1);
});

test('every ASCII byte outside quotes is either accepted as a word character, a separator, or refused', () => {
  const accepted = new Set<string>();
  for (let c = 0; c < 128; c++) {
    const ch = String.fromCharCode(c);
    const r = lex(`echo a${ch}b`);
    if (r.ok) accepted.add(ch);
  }
  assert.deepEqual([...accepted].sort().join(''), [...'\t %+,-./0123456789:;=@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~'].sort().join(''));
});

test('the length limit is inclusive and counted in UTF-8 bytes', () => {
  assert.ok(lex('a'.repeat(MAX_LINE_BYTES)).ok);
  assert.ok(lex(`${'a'.repeat(MAX_LINE_BYTES)}\n`).ok, 'the trimmed newline does not count');
  assert.ok(!lex('a'.repeat(MAX_LINE_BYTES + 1)).ok);
  const euro = lex(`'${'€'.repeat(MAX_LINE_BYTES / 3)}'`);
  assert.ok(!euro.ok);
  assert.equal(euro.refusal.position, 1 + Math.floor((MAX_LINE_BYTES - 1) / 3), 'the offset of the character that crosses the limit');
});
