import './env.ts';
// The approval as a person meets it, through the real App over a fake stdin with the real
// delays: keys typed before it was shown never answer it (they stay in the prompt's draft), a
// deliberate key after a short pause does; a body taller than the modal scrolls to its last line
// with the options still on screen, and opens full screen; a command is its quoted argv, whole.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestPermissionOutcome } from '@agentclientprotocol/sdk';
import type { ClientStore } from '../../src/client/state.ts';
import { App, type Controller } from '../../src/ui/App.tsx';
import { APPROVAL_ARMING } from '../../src/ui/ui_state.ts';
import { KEY, NO_ARMING, renderAt, tick } from './harness.ts';
import * as states from './states.ts';

function controller(store: ClientStore): Controller & { sent: string[]; cancels: number; quits: number } {
  const c = {
    sent: [] as string[],
    cancels: 0,
    quits: 0,
    send: (t: string) => void c.sent.push(t),
    cancel: () => {
      c.cancels++;
      states.permissionAnswers(store).cancelAll();
      store.cancelTurn();
    },
    quit: () => void c.quits++,
    permissions: { answer: (key: string, outcome: RequestPermissionOutcome) => states.permissionAnswers(store).answer(key, outcome) },
  };
  return c;
}

function mount(store: ClientStore, o: { columns?: number; rows?: number; arming?: typeof NO_ARMING } = {}) {
  const columns = o.columns ?? 100;
  const rows = o.rows ?? 30;
  const ctl = controller(store);
  const r = renderAt(<App store={store} controller={ctl} animate={false} size={{ columns, rows }} {...(o.arming ? { arming: o.arming } : {})} />, columns, rows);
  return { ...r, ctl };
}

const settled = async (p: Promise<RequestPermissionOutcome>) => await Promise.race([p, tick(100).then(() => 'pending' as const)]);

function ask(store: ClientStore, toolCall: Parameters<ReturnType<typeof states.permissionAnswers>['ask']>[1]) {
  return states.permissionAnswers(store).ask('a1b2c3d4e5f6', toolCall, [...states.OPTIONS, { optionId: 'reject_explain', name: 'Reject and tell the agent why', kind: 'reject_once' }]);
}

const editCall = { toolCallId: 'e1', title: 'Edit src/app.ts', kind: 'edit' as const, status: 'pending' as const, content: [states.DIFF] };

/** Type `text` one key at a time, `gap` ms apart, as a person does. */
async function typeSlowly(r: ReturnType<typeof mount>, text: string, gap: number): Promise<void> {
  for (const ch of text) {
    await r.press(ch);
    await tick(gap);
  }
}

test('typing "yes and also" across the moment an approval appears answers nothing; the text stays in the draft; a y after a pause answers', async () => {
  const store = states.baseStore();
  store.beginTurn('refactor the parser');
  // the real arm delay; a longer quiet time than shipped, so a stall of this shared machine
  // between two of the keys below (60 ms apart) is not taken for the typing having paused
  const arming = { armMs: APPROVAL_ARMING.armMs, quietMs: 1500 };
  const r = mount(store, { arming });
  await tick();
  await typeSlowly(r, 'yes ', 60);
  const answer = ask(store, editCall);
  await tick(5);
  await typeSlowly(r, 'and also', 60);
  assert.equal(await settled(answer), 'pending', 'no typed letter answered (not the a of "and", not the n)');
  assert.match(r.lastFrame(), /keys held a moment/, 'the approval says it holds its keys');
  assert.match(r.lastFrame(), /your prompt: yes and also/, 'what was typed is in the draft, shown under the question');
  await tick(arming.quietMs + 150);
  assert.doesNotMatch(r.lastFrame(), /keys held/, 'armed once the typing paused');
  await r.press('y');
  assert.deepEqual(await settled(answer), { outcome: 'selected', optionId: 'once' });
  assert.match(r.lastFrame(), /› yes and also/, 'the draft is in the composer, nothing lost');
  assert.deepEqual(r.ctl.sent, [], 'and nothing was sent');
  r.unmount();
});

test('a deliberate key soon after the approval appears answers; one in its first moment does not', async () => {
  const store = states.baseStore();
  store.beginTurn('fix it');
  const r = mount(store);
  await tick();
  const early = ask(store, editCall);
  await tick(30);
  assert.match(r.lastFrame(), /keys held a moment/);
  await r.press('n');
  assert.equal(await settled(early), 'pending', 'an n in the first moment is not an answer');
  assert.match(r.lastFrame(), /your prompt: n/, 'it went to the draft');
  // a person who reads the question and answers at once: a little over the arming delay
  await tick(APPROVAL_ARMING.armMs + 100);
  await r.press('y');
  assert.deepEqual(await settled(early), { outcome: 'selected', optionId: 'once' });
  r.unmount();
});

test('while held, Esc and digits answer nothing either; scroll keys still scroll', async () => {
  const store = states.baseStore();
  store.beginTurn('fix it');
  const r = mount(store, { rows: 16 });
  await tick();
  const p = ask(store, editCall);
  await tick(20);
  const before = r.lastFrame();
  await r.press(KEY.esc, '3', KEY.down, KEY.down);
  assert.equal(await settled(p), 'pending');
  assert.notEqual(r.lastFrame().match(/lines (\d+)–/)?.[1], before.match(/lines (\d+)–/)?.[1], 'the arrows scrolled');
  r.unmount();
});

/** A new file of `n` lines, asked about. */
function tallDiff(n: number) {
  const text = Array.from({ length: n }, (_, i) => `line ${i + 1} of the generated module`).join('\n') + '\n';
  return { toolCallId: 'w1', title: 'Write gen.py', kind: 'edit' as const, status: 'pending' as const, content: [{ type: 'diff' as const, path: `${states.CWD}/gen.py`, oldText: null, newText: text }] };
}

for (const [columns, rows] of [
  [100, 24],
  [60, 15],
] as const) {
  test(`a 120-line diff at ${columns}×${rows}: scrolled to its last line before answering, the position shown, the options on screen`, async () => {
    const store = states.baseStore();
    store.beginTurn('generate');
    const r = mount(store, { columns, rows, arming: NO_ARMING });
    await tick();
    const p = ask(store, tallDiff(120));
    await tick();
    let f = r.lastFrame();
    assert.match(f, /lines 1–\d+ of 120/);
    assert.match(f, / 1 \+ line 1 of the generated module/);
    assert.doesNotMatch(f, /120 \+ line 120/);
    assert.match(f, /Allow once|1 y Allow once/, 'the options are on screen');
    for (let i = 0; i < 60 && !/120 \+ line 120/.test(r.lastFrame()); i++) await r.press(i % 2 ? KEY.pageDown : ' ');
    f = r.lastFrame();
    assert.match(f, /120 \+ line 120 of the generated module/, 'the last line can be read');
    assert.match(f, /lines \d+–120 of 120/);
    assert.match(f, /Allow once|1 y Allow once/, 'the options are still on screen');
    for (const line of f.split('\n')) assert.ok([...line].length <= columns, `wider than ${columns}: ${line}`);
    assert.ok(f.split('\n').length - 1 < rows, 'the live region (all but the prompt in history) stays shorter than the terminal');
    await r.press(KEY.up);
    assert.match(r.lastFrame(), /lines \d+–119 of 120/, '↑ scrolls back a line');
    for (let i = 0; i < 60 && !/lines 1–/.test(r.lastFrame()); i++) await r.press(KEY.pageUp);
    assert.match(r.lastFrame(), /lines 1–/, 'PgUp back to the top');
    // f: the whole screen for the diff, the options still under it; Esc back (not a rejection)
    const inModal = Number(r.lastFrame().match(/lines 1–(\d+)/)?.[1]);
    await r.press('f');
    const full = r.lastFrame();
    assert.ok(Number(full.match(/lines 1–(\d+)/)?.[1]) > inModal, 'full screen shows more of it');
    assert.match(full, /f or Esc back|lines 1–\d+ of 120/);
    assert.match(full, /Allow once|1 y Allow once/);
    await r.press(KEY.esc);
    assert.equal(await settled(p), 'pending', 'Esc left full screen; it did not reject');
    assert.equal(Number(r.lastFrame().match(/lines 1–(\d+)/)?.[1]), inModal);
    await r.press('n');
    assert.deepEqual(await settled(p), { outcome: 'selected', optionId: 'no' });
    r.unmount();
  });
}

test('a command is shown as its quoted argv, whole: an argument of newlines hides no operand, at 60 columns too', async () => {
  for (const columns of [60, 100]) {
    const store = states.baseStore();
    store.beginTurn('clean');
    const r = mount(store, { columns, rows: 24, arming: NO_ARMING });
    await tick();
    const p = ask(store, { toolCallId: 'x1', title: 'rm -rf build', kind: 'execute', status: 'pending', rawInput: { command: 'rm', args: ['-rf', `build${'\n'.repeat(60)}`, 'src'] } });
    await tick();
    const f = r.lastFrame();
    // wrapped rows continue under the `$ ` (a break at a space drops the space)
    const shown = f.replace(/\n {6}/g, '');
    assert.match(shown, new RegExp(`\\$ rm -rf ?\\$'build${'\\\\n'.repeat(60)}' src\n`), `the operand src is on screen at ${columns} columns:\n${f}`);
    await r.press('n');
    assert.deepEqual(await settled(p), { outcome: 'selected', optionId: 'no' });
    r.unmount();
  }
});

test("the steps the agent says a command runs (cxl/steps) are what is shown, and control characters in a line show as marks", async () => {
  const store = states.baseStore();
  store.beginTurn('go');
  const r = mount(store, { arming: NO_ARMING });
  await tick();
  const p = ask(store, {
    toolCallId: 'x2',
    title: 'local_shell: ls && rm x',
    kind: 'execute',
    status: 'pending',
    rawInput: { command: 'ls && rm x' },
    content: [{ type: 'content', content: { type: 'text', text: 'Will run:\n  ls\n  rm x' } }],
    _meta: { 'cxl/steps': ['ls', 'rm x'] },
  });
  await tick();
  let f = r.lastFrame();
  assert.match(f, /\$ ls\n\s+\$ rm x\n/);
  assert.doesNotMatch(f, /Will run:/, 'said once');
  await r.press('n');
  await settled(p);
  const q = ask(store, { toolCallId: 'x3', title: 'echo', kind: 'execute', status: 'pending', rawInput: { command: 'rm -rf build\r\u001b[2Kecho harmless' } });
  await tick();
  f = r.lastFrame();
  assert.match(f, /\$ rm -rf build⟨U\+000D⟩⟨U\+001B⟩\[2Kecho harmless/, 'a line that would rewrite itself on a terminal is shown as it is');
  await r.press('n');
  await settled(q);
  r.unmount();
});

test('Esc interrupts a running turn; the prompts queued behind it come back to the composer, not sent', async () => {
  const store = states.streaming();
  store.queuePrompt('then add tests');
  store.queuePrompt('and update the docs');
  const r = mount(store);
  await tick();
  assert.match(r.lastFrame(), /Esc interrupt/, 'the footer names the key while a turn runs');
  await r.press('d', 'r', 'a', 'f', 't');
  await r.press(KEY.esc);
  assert.equal(r.ctl.cancels, 1);
  assert.deepEqual(store.getState().queued, []);
  assert.deepEqual(r.ctl.sent, []);
  const f = r.lastFrame();
  assert.match(f, /› then add tests\n\s+and update the docs\n\s+draft/, 'queued prompts first, then what was being typed');
  assert.match(f, /2 queued prompts are back in the composer, not sent/);
  r.unmount();
});

test('Ctrl+C also brings queued prompts back; Esc with the turn over does nothing', async () => {
  const store = states.streaming();
  store.queuePrompt('next');
  const r = mount(store);
  await tick();
  await r.press(KEY.ctrlC);
  assert.equal(r.ctl.cancels, 1);
  assert.match(r.lastFrame(), /› next/);
  const idle = mount(states.idle());
  await tick();
  await idle.press(KEY.esc);
  assert.equal(idle.ctl.cancels, 0);
  idle.unmount();
  r.unmount();
});

test('Ctrl+D never throws a draft away: in the composer it deletes forward; elsewhere it asks for a second press; with no draft it quits at once', async () => {
  const r = mount(states.finishedTurn());
  await tick();
  await r.press('h', 'a', 'l', 'f', KEY.ctrlD);
  assert.equal(r.ctl.quits, 0, 'in the composer, with a draft, Ctrl+D edits');
  assert.match(r.lastFrame(), /› half/);
  await r.press(KEY.tab, KEY.ctrlD);
  assert.equal(r.ctl.quits, 0, 'the draft is not thrown away by one press');
  assert.match(r.lastFrame(), /Ctrl\+D again quits \(the draft is not sent\)/);
  await r.press(KEY.ctrlD);
  assert.equal(r.ctl.quits, 1);
  r.unmount();
  const empty = mount(states.idle());
  await tick();
  await empty.press(KEY.ctrlD);
  assert.equal(empty.ctl.quits, 1, 'no draft: at once');
  empty.unmount();
});
