// One rule for "does this text hide something" (core/hidden_text.ts), tried through every core
// entry point that asks it, with every class of hidden character: the shell's lexer refuses it
// inside quotes, the argv form's check refuses it before anything runs, jq_query refuses it in a
// filter, the argv display escapes it, terminal text and approval text mark it. Beside each, the
// ordinary Unicode (accents, CJK, emoji and their ZWJ sequences, keycaps, a tag-sequence flag)
// that every one of them must let through unmarked.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { displayArgv } from '../../src/core/argv_display.ts';
import { isToolError } from '../../src/core/errors.ts';
import { findHidden, hasHidden, markHidden } from '../../src/core/hidden_text.ts';
import { stopJqWorker } from '../../src/core/native_jq/runner.ts';
import { NativeJqToolset } from '../../src/core/native_jq/toolset.ts';
import { lex } from '../../src/core/shell/lexer.ts';
import { LocalTerminalHost } from '../../src/core/shell/local_terminal.ts';
import { createLocalShell } from '../../src/core/shell/local_shell.ts';
import type { ShellResult } from '../../src/core/shell/runner.ts';
import { forTerminal, showControls, showLine } from '../../src/core/terminal_text.ts';
import { HIDDEN_CASES, ORDINARY } from '../helpers/hidden_cases.ts';

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-hidden-')));
after(() => {
  fs.rmSync(root, { recursive: true, force: true });
  stopJqWorker();
});
const shell = createLocalShell({ root, policy: { _allowed_commands: 'echo', _allowed_dir: '.' }, host: new LocalTerminalHost() });
const jq = new NativeJqToolset({ root });
const mark = (cp: number) => `⟨U+${cp.toString(16).toUpperCase().padStart(4, '0')}⟩`;

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    assert.ok(isToolError(err), String(err));
    return err.code;
  }
}

describe('each class of hidden character, through every core entry point', () => {
  for (const c of HIDDEN_CASES) {
    test(c.what, async () => {
      assert.deepEqual(findHidden(c.text).map((h) => h.codePoint), c.codePoints, 'the predicate');
      const lexed = lex(`echo '${c.text}'`);
      assert.equal(lexed.ok, false, 'the lexer refuses it inside quotes');
      if (!lexed.ok) assert.equal(lexed.refusal.position, 6 + findHidden(c.text)[0].offset, lexed.refusal.message);
      assert.equal(await code(shell.call('local_shell', { command: 'echo', args: [c.text] })), 'bad_args', 'the argv form is refused before it runs');
      assert.equal(await code(jq.call('jq_query', { filter: `"${c.text}"`, input: 'null' })), 'bad_args', 'jq_query refuses the filter');
      assert.match(displayArgv(['echo', c.text]), /^echo \$'.*'$/, 'the argv display escapes it');
      assert.equal(hasHidden(displayArgv(['echo', c.text])), false, 'and nothing hidden is left in it');
      const marks = c.codePoints.map(mark);
      for (const [name, shown] of [['approval text', showControls(c.text)], ['a diff line', showLine(c.text)]] as const) {
        for (const m of marks) assert.ok(shown.includes(m), `${name}: ${m} in ${shown}`);
        assert.equal(hasHidden(shown, '\n'), false, `${name}: nothing hidden is left`);
      }
      const printed = forTerminal(c.text);
      assert.equal(hasHidden(printed, '\n'), false, `terminal text: nothing hidden is left in ${JSON.stringify(printed)}`);
      // a control is removed from terminal text (escape sequences go with it); every other class is marked
      for (const cp of c.codePoints) if (cp >= 0xa0) assert.ok(printed.includes(mark(cp)), `terminal text marks U+${cp.toString(16)}`);
    });
  }
});

describe('ordinary Unicode passes every entry point as it is', () => {
  for (const o of ORDINARY) {
    test(o.what, async () => {
      assert.deepEqual(findHidden(o.text), []);
      const lexed = lex(`echo '${o.text}'`);
      assert.ok(lexed.ok, lexed.ok ? '' : lexed.refusal.message);
      const ran = (await shell.call('local_shell', { command: 'echo', args: [o.text] })) as ShellResult;
      assert.equal(ran.stdout, `${o.text}\n`);
      const q = (await jq.call('jq_query', { filter: `"${o.text}"`, input: 'null' })) as { values: string[] };
      assert.deepEqual(q.values, [JSON.stringify(o.text)]);
      assert.ok(displayArgv(['echo', o.text]).includes(o.text));
      assert.equal(forTerminal(o.text), o.text);
      assert.equal(showControls(o.text), o.text);
      assert.equal(showLine(o.text), o.text);
    });
  }
});

test('the layout characters a caller allows pass; the same ones are hidden where it does not', () => {
  assert.equal(markHidden('a\tb\nc', '\n\t'), 'a\tb\nc');
  assert.equal(markHidden('a\tb\nc'), 'a⟨U+0009⟩b⟨U+000A⟩c');
  assert.equal(showControls('rm -rf build\r\u001b[2Kecho harmless'), 'rm -rf build⟨U+000D⟩⟨U+001B⟩[2Kecho harmless');
  assert.equal(showLine('\tindented\u001b[8m'), '    indented⟨U+001B⟩[8m');
  assert.equal(displayArgv(['printf', 'a\nb', 'c\u{e0041}']), "printf $'a\\nb' $'c\\U000e0041'");
});
