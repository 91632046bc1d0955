import './env.ts';
// The composer as an editor, through the real App on a fake stdin: readline keys in a two-line
// prompt, Delete against Backspace, cut and yank, undo, Ctrl+C on a draft, Tab with nothing to
// complete, Ctrl+R over saved prompts, `?`, and prompts saved to the project's history file (a real
// file in a temp dir, read back by a second screen).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { PromptHistory } from '../../src/client/composer/prompt_history.ts';
import type { ClientStore } from '../../src/client/state.ts';
import { App, type Controller } from '../../src/ui/App.tsx';
import { adoptSaved } from '../../src/ui/composer.ts';
import type { UiState } from '../../src/ui/ui_state.ts';
import type { ExternalEditor, PromptStore } from '../../src/ui/views/view.ts';
import { KEY, renderAt, tick } from './harness.ts';
import * as states from './states.ts';

const ALT_B = '\u001Bb';
const ALT_F = '\u001Bf';
const ALT_D = '\u001Bd';
const CTRL = (c: string) => String.fromCharCode(c.charCodeAt(0) - 96);
const DELETE = '\u001B[3~';
const HOME = '\u001B[H';
const END = '\u001B[F';
const CTRL_LEFT = '\u001B[1;5D';
const UNDO = '\u001F';

interface Recorder extends Controller {
  sent: string[];
  cancels: number;
  quits: number;
}

function mount(store: ClientStore, opts: { initial?: Partial<UiState>; prompts?: PromptStore; editor?: ExternalEditor } = {}) {
  const ctl: Recorder = { sent: [], cancels: 0, quits: 0, send: (t) => void ctl.sent.push(t), cancel: () => void ctl.cancels++, quit: () => void ctl.quits++ };
  const r = renderAt(<App store={store} controller={ctl} animate={false} size={{ columns: 100, rows: 30 }} initial={opts.initial} prompts={opts.prompts} editor={opts.editor} />, 100, 30);
  return { ...r, ctl };
}

/** The composer's rows of the last frame (between the rule above it and the status line). */
function prompt(frame: string): string {
  const lines = frame.split('\n');
  let rule = lines.length - 1;
  while (rule > 0 && !/^─{20,}/.test(lines[rule])) rule--;
  return lines
    .slice(rule + 1)
    .filter((l) => /^[›\s] /.test(l))
    .map((l) => l.slice(2).trimEnd())
    .join('\n');
}

test('a word in the middle of a two-line prompt: ↑ to the first line, Alt+B, Ctrl+W, type, Enter', async () => {
  const r = mount(states.idle());
  await tick();
  await r.press(...'fix the parser bug'.split(''), KEY.altEnter, ...'in lexer.ts'.split(''));
  // ↑ moves within the prompt (it has a line above), not to an earlier prompt
  await r.press(KEY.up, END, ALT_B);
  await r.press(CTRL('w'));
  await r.press(...'lexer '.split(''));
  assert.equal(prompt(r.lastFrame()), 'fix the lexer bug\nin lexer.ts');
  await r.press(KEY.enter);
  assert.deepEqual(r.ctl.sent, ['fix the lexer bug\nin lexer.ts']);
  r.unmount();
});

test('Home/End, Ctrl+A/E, Alt+F, Ctrl+←, Delete forwards and Backspace backwards', async () => {
  const r = mount(states.idle());
  await tick();
  await r.press(...'abc def'.split(''), HOME, DELETE);
  assert.equal(prompt(r.lastFrame()), 'bc def');
  await r.press(END, KEY.backspace);
  assert.equal(prompt(r.lastFrame()), 'bc de');
  await r.press(CTRL('a'), ALT_F, 'X', CTRL('e'), CTRL_LEFT, 'Y');
  assert.equal(prompt(r.lastFrame()), 'bcX Yde');
  r.unmount();
});

test('Ctrl+K and Ctrl+U cut, Ctrl+Y puts the cut back, Alt+D cuts the next word, Ctrl+_ undoes', async () => {
  const r = mount(states.idle());
  await tick();
  await r.press(...'one two three'.split(''), CTRL('a'), ALT_F, CTRL('k'));
  assert.equal(prompt(r.lastFrame()), 'one');
  await r.press(CTRL('a'), CTRL('y'));
  assert.equal(prompt(r.lastFrame()), ' two threeone');
  await r.press(CTRL('a'), ALT_D);
  assert.equal(prompt(r.lastFrame()), ' threeone');
  await r.press(UNDO);
  assert.equal(prompt(r.lastFrame()), ' two threeone');
  await r.press(CTRL('e'), CTRL('u'));
  assert.match(prompt(r.lastFrame()), /^\s*message the agent/, 'an empty prompt');
  await r.press(CTRL('z'));
  assert.equal(prompt(r.lastFrame()), ' two threeone');
  r.unmount();
});

test('Ctrl+C clears a draft (undo brings it back); on an empty prompt it is the cancel key again', async () => {
  const s = states.idle();
  s.beginTurn('working on it');
  const r = mount(s);
  await tick();
  await r.press(...'half a thought'.split(''), KEY.ctrlC);
  assert.equal(prompt(r.lastFrame()).includes('half a thought'), false);
  assert.equal(r.ctl.cancels, 0, 'the turn goes on');
  assert.match(r.lastFrame(), /Prompt cleared/);
  await r.press(UNDO);
  assert.equal(prompt(r.lastFrame()), 'half a thought');
  await r.press(CTRL('u'), KEY.ctrlC);
  assert.equal(r.ctl.cancels, 1);
  r.unmount();
});

test('Tab with nothing to complete and no calls keeps the keys in the composer', async () => {
  const r = mount(states.idle());
  await tick();
  await r.press(KEY.tab, 'e', 'k');
  assert.equal(prompt(r.lastFrame()), 'ek', 'typed text is not taken as tool-list keys');
  r.unmount();
});

test('Ctrl+R finds an earlier prompt, accents and case aside; Ctrl+R again goes older; Enter edits it, Esc restores the draft', async () => {
  const { past, pastes } = adoptSaved([{ text: 'refactor Módulo.py' }, { text: 'git status' }, { text: 'test módulo.py again' }]);
  const r = mount(states.idle(), { initial: { past, pastes } });
  await tick();
  await r.press('d', 'r', 'a', 'f', 't', CTRL('r'), ...'modulo'.split(''));
  assert.match(r.lastFrame(), /search prompts: modulo.*1 of 2[\s\S]*test módulo\.py again/);
  await r.press(CTRL('r'));
  assert.match(r.lastFrame(), /2 of 2[\s\S]*refactor Módulo\.py/);
  await r.press(KEY.esc);
  assert.equal(prompt(r.lastFrame()), 'draft');
  await r.press(CTRL('r'), 'g', 'i', 't', KEY.enter);
  assert.equal(prompt(r.lastFrame()), 'git status');
  await r.press(KEY.enter);
  assert.deepEqual(r.ctl.sent, ['git status']);
  r.unmount();
});

test('Ctrl+G hands the prompt to the editor and takes back what it saved', async () => {
  const seen: string[] = [];
  const editor: ExternalEditor = (text) => {
    seen.push(text);
    return { text: `${text} (edited)` };
  };
  const r = mount(states.idle(), { editor });
  await tick();
  await r.press(...'draft'.split(''), CTRL('g'));
  await tick(60);
  assert.deepEqual(seen, ['draft']);
  assert.equal(prompt(r.lastFrame()), 'draft (edited)');
  r.unmount();
});

test('? on an empty prompt opens the keys overlay (nothing goes into the scrollback), ↓ scrolls it, Esc closes it; in a prompt it is a character', async () => {
  const s = states.idle();
  const r = mount(s);
  await tick();
  const printed = s.getState().history.length;
  await r.press('?');
  let frame = r.lastFrame() ?? '';
  assert.match(frame, /── keys 1–\d+ of \d+ · ↑↓ PgUp PgDn scroll · Esc closes/, 'the overlay');
  assert.match(frame, /Composer:\n\s+Enter\s+send/);
  assert.equal(s.getState().history.length, printed, 'nothing printed into the scrollback');
  await r.press(KEY.pageDown, KEY.pageDown, KEY.pageDown);
  frame = r.lastFrame() ?? '';
  assert.match(frame, /── keys 31–/, 'scrolled three pages');
  assert.doesNotMatch(frame, /\n\s+Enter\s+send/);
  await r.press(KEY.esc);
  assert.doesNotMatch(r.lastFrame() ?? '', /── keys /, 'closed');
  await r.press('a', '?');
  assert.equal(prompt(r.lastFrame()), 'a?');
  r.unmount();
});

test('sent prompts are saved in the project history file (private), and the next screen recalls them with ↑', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cxl-history-'));
  try {
    const history = PromptHistory.forProject('/srv/proj', { XDG_DATA_HOME: dir });
    const r = mount(states.idle(), { prompts: history });
    await tick();
    await r.press(...'first prompt'.split(''), KEY.enter, ...'second'.split(''), KEY.enter);
    r.unmount();
    assert.equal(statSync(history.file).mode & 0o777, 0o600);
    const again = mount(states.idle(), { initial: adoptSaved(history.load()), prompts: history });
    await tick();
    await again.press(KEY.up);
    assert.equal(prompt(again.lastFrame()), 'second');
    await again.press(KEY.up);
    assert.equal(prompt(again.lastFrame()), 'first prompt');
    again.unmount();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a long paste, once sent, stays collapsed in the history; Ctrl+O prints it whole', async () => {
  const s = states.idle();
  const r = mount(s);
  await tick();
  const big = Array.from({ length: 50 }, (_, i) => `log line ${i + 1}`).join('\n');
  await r.press(...'see: '.split(''), `${KEY.pasteStart}${big}${KEY.pasteEnd}`, KEY.enter);
  assert.deepEqual(r.ctl.sent, [`see: ${big}`], 'the agent gets the whole text');
  // the recorder does what the client does with a sent prompt
  s.beginTurn(r.ctl.sent[0]);
  s.endTurn('end_turn');
  s.settle();
  await tick();
  const user = s.getState().history.filter((h) => h.kind === 'user').at(-1);
  assert.ok(user?.kind === 'user' && user.shown === 'see: [pasted 50 lines]');
  assert.equal(r.stdout.frames.join('').includes('log line 17'), false, 'not flooded into the scrollback');
  await r.press(CTRL('o'));
  const out = s.getState().history.at(-1);
  assert.ok(out?.kind === 'output' && out.text === `see: ${big}`);
  r.unmount();
});

test('in the tool list, text that is no key of the list goes back to the prompt with the focus', async () => {
  const r = mount(states.toolRunning());
  await tick();
  await r.press(KEY.tab);
  assert.match(r.lastFrame(), /Tab\/Esc composer/, 'the tool list has the keys');
  await r.press('h', 'i');
  assert.equal(prompt(r.lastFrame()), 'hi');
  assert.doesNotMatch(r.lastFrame(), /Tab\/Esc composer/);
  r.unmount();
});
