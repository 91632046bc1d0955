// The composer's editing commands as pure functions: each readline/emacs key on a prompt with a
// cursor (`|` marks it), multi-line prompts, paste tokens and characters outside the BMP.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ComposerState } from '../../src/ui/composer.ts';
import * as e from '../../src/ui/editing.ts';

const at = (marked: string): ComposerState => ({ text: marked.replace('|', ''), cursor: marked.indexOf('|') });
const show = (s: ComposerState) => `${s.text.slice(0, s.cursor)}|${s.text.slice(s.cursor)}`;
const run = (f: (s: ComposerState) => e.Edit | undefined, marked: string) => {
  const r = f(at(marked));
  return r ? show(r.composer) : undefined;
};

test('Home/Ctrl+A and End/Ctrl+E go to the start and end of the cursor line', () => {
  assert.equal(run(e.lineStart, 'one\ntw|o\nthree'), 'one\n|two\nthree');
  assert.equal(run(e.lineEnd, 'one\nt|wo\nthree'), 'one\ntwo|\nthree');
  assert.equal(run(e.lineStart, 'a b |c'), '|a b c');
});

test('Alt+B/Alt+F and Ctrl+←/→ move by words, over punctuation', () => {
  assert.equal(run(e.wordLeft, 'git commit -m "fix it"|'), 'git commit -m "fix |it"');
  assert.equal(run(e.wordLeft, 'hello   |'), '|hello   ');
  assert.equal(run(e.wordRight, '|  foo.bar'), '  foo|.bar');
  assert.equal(run(e.wordRight, 'foo|.bar baz'), 'foo.bar| baz');
  assert.equal(run(e.wordLeft, 'módulo ünïcode|'), 'módulo |ünïcode');
});

test('←/→ step over a whole code point (an emoji, a paste token)', () => {
  assert.equal(run(e.charLeft, 'a😀|b'), 'a|😀b');
  assert.equal(run(e.charRight, 'a|😀b'), 'a😀|b');
  assert.equal(run(e.charLeft, '|ab'), '|ab');
});

test('Backspace deletes before the cursor, Delete (and Ctrl+D) after it', () => {
  assert.equal(run(e.deleteBack, 'ab|c'), 'a|c');
  assert.equal(run(e.deleteForward, 'ab|c'), 'ab|');
  assert.equal(run(e.deleteForward, 'ab|'), 'ab|');
  assert.equal(run(e.deleteBack, 'x😀|'), 'x|');
  assert.equal(run(e.deleteForward, '|😀x'), '|x');
});

test('Ctrl+W cuts the word before (to whitespace), Alt+D the word after; both return what was cut', () => {
  const w = e.killWordBack(at('rm -rf build/out|'));
  assert.equal(show(w.composer), 'rm -rf |');
  assert.equal(w.killed, 'build/out');
  assert.equal(run(e.killWordBack, 'one two  |three'), 'one |three');
  const d = e.killWordForward(at('say |hello world'));
  assert.equal(show(d.composer), 'say | world');
  assert.equal(d.killed, 'hello');
});

test('Ctrl+U cuts to the line start, Ctrl+K to the line end, and at a line end the line break', () => {
  assert.equal(run(e.killLineStart, 'first\nsec|ond'), 'first\n|ond');
  assert.equal(run(e.killLineEnd, 'fi|rst\nsecond'), 'fi|\nsecond');
  const k = e.killLineEnd(at('first|\nsecond'));
  assert.equal(show(k.composer), 'first|second');
  assert.equal(k.killed, '\n');
});

test('↑/↓ move a line up and down in the same column, and say when there is no line (history takes over)', () => {
  assert.equal(run(e.lineUp, 'short\na longer li|ne'), 'short|\na longer line');
  assert.equal(run(e.lineDown, 'ab|c\nde\nf'), 'abc\nde|\nf');
  assert.equal(run(e.lineUp, 'on the fir|st line\nsecond'), undefined);
  assert.equal(run(e.lineDown, 'first\nlast |line'), undefined);
  assert.equal(run(e.lineUp, 'x😀y\nabc|'), 'x😀y|\nabc', 'columns count code points');
});
