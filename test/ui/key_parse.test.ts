// Every key of the binding table from the bytes a terminal sends for it (xterm, tmux, rxvt,
// kitty), through the parser the screen uses, to the action the table gives it in each focus.
// Pure: no terminal, the same on Node and Deno.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InputDecoder } from '../../src/ui/input.ts';
import { BINDINGS, matchAction } from '../../src/ui/keys.ts';
import { keyLabel } from '../../src/ui/keys_help.ts';

/** The bytes of each key name the table uses; several where terminals disagree. */
export const BYTES: Record<string, string[]> = {
  return: ['\r'],
  'shift+return': ['\u001B[13;2u'],
  'meta+return': ['\u001B\r'],
  'ctrl+j': ['\n'],
  escape: ['\u001B'],
  tab: ['\t'],
  'shift+tab': ['\u001B[Z'],
  up: ['\u001B[A', '\u001BOA'],
  down: ['\u001B[B', '\u001BOB'],
  left: ['\u001B[D', '\u001BOD'],
  right: ['\u001B[C', '\u001BOC'],
  'ctrl+left': ['\u001B[1;5D', '\u001BOd'],
  'ctrl+right': ['\u001B[1;5C', '\u001BOc'],
  'meta+left': ['\u001B[1;3D', '\u001B\u001B[D'],
  'meta+right': ['\u001B[1;3C', '\u001B\u001B[C'],
  home: ['\u001B[H', '\u001B[1~', '\u001B[7~', '\u001BOH'],
  end: ['\u001B[F', '\u001B[4~', '\u001B[8~', '\u001BOF'],
  pageup: ['\u001B[5~'],
  pagedown: ['\u001B[6~'],
  delete: ['\u001B[3~'],
  'ctrl+delete': ['\u001B[3;5~'],
  backspace: ['\u007F', '\b'],
  'meta+backspace': ['\u001B\u007F'],
  'meta+b': ['\u001Bb'],
  'meta+f': ['\u001Bf'],
  'meta+d': ['\u001Bd'],
  'ctrl+_': ['\u001F'],
  space: [' '],
  digit: ['1', '5', '9'],
};
for (let c = 1; c <= 26; c++) {
  const letter = String.fromCharCode(96 + c);
  // Ctrl+H, I, J, M are Backspace, Tab, a new line and Enter on the wire
  if (!'hijm'.includes(letter)) BYTES[`ctrl+${letter}`] = [String.fromCharCode(c)];
}

/** The keys in `raw` read at once, a lone ESC included (held for what may follow it, then Esc). */
function namesOf(raw: string): (string | undefined)[] {
  const d = new InputDecoder();
  return [...d.feed(raw, 0), ...d.expire(Number.POSITIVE_INFINITY)].map((e) => (e.kind === 'key' ? e.name : e.kind));
}

test('every key the table names comes from the bytes a terminal sends for it', () => {
  const missing: string[] = [];
  for (const b of BINDINGS) {
    for (const k of b.keys) {
      const bytes = BYTES[k] ?? (k.length === 1 ? [k] : undefined);
      if (!bytes) {
        missing.push(k);
        continue;
      }
      for (const raw of bytes) assert.deepEqual(namesOf(raw), [k], `${JSON.stringify(raw)} is ${k}`);
    }
  }
  assert.deepEqual(missing, [], 'keys with no bytes in this test');
});

test('each binding acts on its bytes in each of its foci', () => {
  for (const b of BINDINGS) {
    if (b.focus === 'global') continue;
    for (const f of b.focus) for (const k of b.keys) for (const raw of BYTES[k] ?? [k]) assert.equal(matchAction(f, namesOf(raw)[0]), b.action, `${JSON.stringify(raw)} in ${f}`);
  }
});

test('Backspace and Delete are told apart (Ink reports both as delete), and Alt+letters are not text', () => {
  assert.deepEqual(namesOf('\u007F'), ['backspace']);
  assert.deepEqual(namesOf('\u001B[3~'), ['delete']);
  assert.deepEqual(namesOf('\u001Bb'), ['meta+b']);
  assert.deepEqual(namesOf('\u001BB'), ['meta+shift+b']);
  assert.deepEqual(namesOf('abc'), [undefined], 'a run of text is text');
  assert.deepEqual(namesOf('a'), ['a']);
  assert.deepEqual(namesOf('\u001B[I'), ['focus'], 'a focus report is no key');
});

test('keys are written for people: Ctrl+W, Alt+B, Ctrl+←, Shift+Enter', () => {
  assert.equal(keyLabel('ctrl+w'), 'Ctrl+W');
  assert.equal(keyLabel('meta+b'), 'Alt+B');
  assert.equal(keyLabel('ctrl+left'), 'Ctrl+←');
  assert.equal(keyLabel('shift+return'), 'Shift+Enter');
  assert.equal(keyLabel('?'), '?');
  assert.equal(keyLabel('k'), 'k');
});
