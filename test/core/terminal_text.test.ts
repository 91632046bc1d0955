// The one sanitiser, against the sequences an attacker would put in a model's answer, a file or
// a command's output: each escape class is removed, controls go, invisible characters are marked.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forTerminal, stripControls } from '../../src/core/terminal_text.ts';

const ESC = '\u001b';

test('escape sequences of every class are removed, the text around them kept', () => {
  const cases: Array<[string, string]> = [
    [`a${ESC}[31mred${ESC}[0m b`, 'ared b'],
    [`${ESC}]52;c;Y3VybCB4IHwgc2g=\u0007after`, 'after'], // OSC 52 (clipboard), BEL-terminated
    [`${ESC}]52;c;Y3VybA==${ESC}\\after`, 'after'], // OSC 52, ST-terminated
    [`${ESC}]8;;http://evil/${ESC}\\link${ESC}]8;;${ESC}\\`, 'link'], // OSC 8 hyperlink
    [`x${ESC}P+q544e${ESC}\\y`, 'xy'], // DCS (terminal queries)
    [`\u009b2Kgone`, 'gone'], // C1 CSI
    [`\u009d0;title\u0007t`, 't'], // C1 OSC
    [`ok${ESC}7${ESC}8`, 'ok'], // save/restore cursor
    [`x${ESC}(0y`, 'xy'], // charset designation
    ['rm -rf build\r\u001b[2Kecho harmless', 'rm -rf buildecho harmless'],
    ['bell\u0007 nul\u0000 del\u007f', 'bell nul del'],
  ];
  for (const [input, want] of cases) assert.equal(stripControls(input), want, JSON.stringify(input));
  assert.equal(stripControls('tab\there\nline two'), 'tab    here\nline two');
  assert.equal(stripControls('plain text'), 'plain text');
});

test('bidi controls and zero-width characters are marked, so Trojan Source reads as what it is', () => {
  const trojan = 'if (isAdmin) { \u202E } \u2066// check later\u2069 {';
  assert.equal(forTerminal(trojan), 'if (isAdmin) { ⟨U+202E⟩ } ⟨U+2066⟩// check later⟨U+2069⟩ {');
  assert.equal(forTerminal('ad\u200Bmin\uFEFF'), 'ad⟨U+200B⟩min⟨U+FEFF⟩');
  assert.equal(forTerminal('café 日本'), 'café 日本');
  assert.equal(forTerminal(`\u202E${ESC}]52;c;eA==\u0007x`), '⟨U+202E⟩x');
});
