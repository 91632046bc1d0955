// The input decoder: what one Ink event becomes (keys, typed text, pastes), and the terminal
// modes the UI turns on: off again on a normal end, on a thrown error and on process.exit.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { moduleCommand } from '../../src/core/platform/runtime.ts';
import { expandPastes, insertPaste, pasteLabel, showPastes } from '../../src/ui/composer.ts';
import { cleanPaste, InputDecoder, PASTE_TIMEOUT_MS, type InputEvent } from '../../src/ui/input.ts';
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON } from '../../src/ui/terminal_modes.ts';

const show = (evs: InputEvent[]) =>
  evs.map((e) => (e.kind === 'paste' ? `paste:${JSON.stringify(e.text)}` : e.kind === 'focus' ? `focus:${e.focused}` : e.kind === 'report' ? `report:${JSON.stringify(e.text)}` : e.name === 'return' ? 'Enter' : JSON.stringify(e.input)));

test('text and Enter in one read: the text, then Enter (and \\r\\n is one Enter, \\n a new line)', () => {
  const d = new InputDecoder();
  assert.deepEqual(show(d.feed('hello\r')), ['"hello"', 'Enter']);
  assert.deepEqual(show(d.feed('a\r\nb\rc')), ['"a"', 'Enter', '"b"', 'Enter', '"c"']);
  assert.deepEqual(show(d.feed('one\ntwo')), ['"one"', '"\\n"', '"two"']);
  // other keys in the same read act as keys: Backspace (DEL), Tab, Ctrl+letters
  const mixed = d.feed('ab\u007F\tc\u0004\u0000');
  assert.deepEqual(
    mixed.map((e) => (e.kind === 'key' ? `${e.input}|${e.name ?? ''}` : 'paste')),
    ['ab|', '|backspace', '|tab', 'c|c', 'd|ctrl+d', '|ctrl+space'],
  );
  // Enter alone and Alt+Enter, each its own event
  assert.deepEqual(show(d.feed('\r')), ['Enter']);
  assert.deepEqual(d.feed('\u001B\r').map((e) => e.kind === 'key' && e.name), ['meta+return']);
});

test('a bracketed paste is one paste event, whatever Enters and keys it holds and however it is split', () => {
  const d = new InputDecoder();
  assert.deepEqual(d.feed('\u001B[200~'), []);
  assert.equal(d.pasting, true);
  assert.deepEqual(d.feed('line one\rline two'), []);
  assert.deepEqual(d.feed('\r'), [], 'an Enter inside the paste is text');
  assert.deepEqual(d.feed('\t'), []);
  assert.deepEqual(show(d.feed('end\u001B[201~')), ['paste:"line one\\rline two\\r\\tend"']);
  assert.equal(d.pasting, false);
  // markers and text in the same event, with typed keys after it
  assert.deepEqual(show(d.feed('\u001B[200~x\ry\u001B[201~z\r')), ['paste:"x\\ry"', '"z"', 'Enter']);
});

test('a paste whose end marker never comes ends after the timeout; later keys are keys again', () => {
  const d = new InputDecoder();
  d.feed('\u001B[200~', 1000);
  d.feed('abc', 1100);
  assert.deepEqual(show(d.feed('q', 1100 + PASTE_TIMEOUT_MS + 1)), ['paste:"abc"', '"q"']);
  assert.equal(d.pasting, false);
  d.feed('\u001B[200~', 0);
  d.feed('left', 1);
  assert.deepEqual(show(d.flush()), ['paste:"left"']);
});

test('a 16 MiB paste in 4 KiB reads is one paste, read at once (not searched again whole at each read)', () => {
  const d = new InputDecoder();
  const piece = `${'x'.repeat(4095)}\n`;
  const started = Date.now();
  d.feed('\u001B[200~', 0);
  for (let i = 0; i < 4096; i++) assert.equal(d.feed(piece, 1).length, 0);
  // the end marker cut between two reads
  assert.deepEqual(d.feed('\u001B[20', 2), []);
  const [paste, ...rest] = d.feed('1~z', 2);
  assert.equal(paste?.kind === 'paste' && paste.text.length, 4096 * 4096);
  assert.equal(rest.length, 1);
  // a search of the whole paste at each read took minutes here
  assert.ok(Date.now() - started < 3000, `${Date.now() - started} ms`);
});

test('cleanPaste keeps text and line ends, drops escapes and control characters', () => {
  assert.equal(cleanPaste('a\r\nb\rc\td\u0007\u001B[31mred\u001B]52;c;eA==\u0007\u0000'), 'a\nb\nc\tdred');
});

test('a long paste is one token shown as [pasted N lines]; sending puts the whole text back', () => {
  const big = Array.from({ length: 120 }, (_, i) => `line ${i + 1}`).join('\n');
  const { composer, pastes } = insertPaste({ text: 'see: ', cursor: 5 }, big, new Map());
  assert.equal(showPastes(composer.text, pastes), 'see: [pasted 120 lines]');
  assert.equal(expandPastes(composer.text, pastes), `see: ${big}`);
  const again = insertPaste(composer, big, pastes);
  assert.equal(again.pastes.size, 2, 'a second paste has its own token');
  assert.equal(expandPastes(again.composer.text, again.pastes), `see: ${big}${big}`);
  // a short paste goes in as text
  const short = insertPaste({ text: '', cursor: 0 }, 'a\nb', new Map());
  assert.equal(short.composer.text, 'a\nb');
  assert.equal(short.pastes.size, 0);
  assert.equal(pasteLabel('x'.repeat(5000)), '[pasted 5,000 characters]');
});

// A child that turns the modes on, then ends in the way named by its argument.
const CHILD = `
import process from 'node:process';
import { enableTerminalModes } from ${JSON.stringify(fileURLToPath(new URL('../../src/ui/terminal_modes.ts', import.meta.url)))};
const restore = enableTerminalModes(process.stdout);
const how = process.argv[process.argv.length - 1];
if (how === 'normal') { restore(); restore(); }
else if (how === 'throw') setTimeout(() => { throw new Error('boom'); }, 5);
else if (how === 'exit') setTimeout(() => process.exit(7), 5);
`;

test('bracketed paste is turned off on a normal end (once), on a thrown error and on process.exit', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cxl-modes-'));
  try {
    const file = path.join(dir, 'child.ts');
    writeFileSync(file, CHILD);
    const [cmd, ...args] = moduleCommand(file);
    for (const how of ['normal', 'throw', 'exit']) {
      const r = spawnSync(cmd, [...args, how], { encoding: 'utf8', timeout: 30_000 });
      assert.ok(r.stdout.startsWith(BRACKETED_PASTE_ON), `${how}: turned on first`);
      assert.equal(r.stdout.split(BRACKETED_PASTE_OFF).length - 1, 1, `${how}: turned off exactly once; stdout ${JSON.stringify(r.stdout)}`);
      assert.ok(r.stdout.endsWith(BRACKETED_PASTE_OFF), `${how}: off is the last thing written`);
      if (how === 'throw') assert.notEqual(r.status, 0);
      if (how === 'exit') assert.equal(r.status, 7);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
