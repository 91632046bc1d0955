// shell_word.ts against a real /bin/sh: every hostile word is quoted so that sh hands it back to
// a program byte for byte, and nothing in it runs, expands or globs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { shellLine, shellWord } from '../../src/core/shell_word.ts';
import { displayArgv } from '../../src/core/argv_display.ts';

const HOSTILE = [
  "it's",
  "''",
  "'",
  '"double"',
  'a b',
  '  lead and trail  ',
  'line\nbreak',
  'tab\there',
  'cr\rhere',
  '$(touch pwned-subst)',
  '`touch pwned-tick`',
  '$HOME',
  '${IFS}',
  '*',
  '?',
  '[a]*',
  '~',
  '~root',
  '{a,b}',
  '-rf',
  '--',
  '-',
  '',
  'a;touch pwned-semi',
  'a|b',
  'a&b',
  '>pwned-redirect',
  '#comment',
  '!',
  'back\\slash',
  'é',
  '日本語',
  '🙂',
  'rtl\u202eevil',
  'zero\u200bwidth',
  'A=b',
  '@vendor',
  '%s',
];

/** What /bin/sh hands printf for each word of `line`, split on the NULs printf writes after each. */
function throughSh(line: string, cwd: string): string[] {
  const r = spawnSync('/bin/sh', ['-c', `printf '%s\\000' ${line}`], { cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\0').slice(0, -1);
}

test('every hostile word comes back from /bin/sh as it went in, and nothing in it ran or matched a file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-shell-word-'));
  try {
    fs.writeFileSync(path.join(dir, 'a-file'), '');
    for (const w of HOSTILE) assert.deepEqual(throughSh(shellWord(w), dir), [w], `${JSON.stringify(w)} as ${shellWord(w)}`);
    assert.deepEqual(throughSh(HOSTILE.map((w) => shellWord(w)).join(' '), dir), HOSTILE, 'all at once, as one line');
    assert.deepEqual(fs.readdirSync(dir), ['a-file'], 'no word created a file');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('plain words stay plain; everything else is single-quoted, as people write it', () => {
  assert.equal(shellWord('@vendor'), '@vendor');
  assert.equal(shellWord('--model=qwen3:8b'), '--model=qwen3:8b');
  assert.equal(shellWord('./src/a.ts'), './src/a.ts');
  assert.equal(shellWord('-rf'), '-rf');
  assert.equal(shellWord(''), "''");
  assert.equal(shellWord('a b'), "'a b'");
  assert.equal(shellWord("it's"), "'it'\\''s'");
  assert.equal(shellWord('$(x)'), "'$(x)'");
  assert.equal(shellLine(['npx', '@zed-industries/claude-code-acp', '--flag', 'two words']), "npx @zed-industries/claude-code-acp --flag 'two words'");
});

test('a program holding = is quoted: sh runs it, it does not set a variable', () => {
  assert.equal(shellLine(['A=b', 'A=b']), "'A=b' A=b");
  const assigned = spawnSync('/bin/sh', ['-c', 'A=b'], { encoding: 'utf8' });
  const quoted = spawnSync('/bin/sh', ['-c', shellLine(['A=b'])], { encoding: 'utf8' });
  assert.equal(assigned.status, 0);
  assert.equal(quoted.status, 127, 'looked up as a program, and not found');
});

test('NUL cannot be in an argument: refused in words, never dropped', () => {
  assert.throws(() => shellWord('a\0b'), /NUL/);
  assert.throws(() => shellLine(['echo', '\0']), /NUL/);
});

test("an approval's steps quote as shellWord does; a word that would not show is in $'…'", () => {
  assert.equal(displayArgv(['npm', 'i', '@vendor/x', 'a b']), "npm i @vendor/x 'a b'");
  assert.equal(displayArgv(['rm', '-rf', 'build\n\n', 'src']), "rm -rf $'build\\n\\n' src");
});
