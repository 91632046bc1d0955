import './env.ts';
// Keys drive the real App over a fake stdin; assertions are on what reaches the agent: the
// permission answer (the store's promise resolves with what the SDK sends back) and prompts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestPermissionOutcome } from '@agentclientprotocol/sdk';
import type { ClientStore } from '../../src/client/state.ts';
import { App, type Controller } from '../../src/ui/App.tsx';
import { BINDINGS, matchAction } from '../../src/ui/keys.ts';
import { KEY, renderAt, tick, NO_ARMING } from './harness.ts';
import * as states from './states.ts';

interface Recorder extends Controller {
  sent: string[];
  cancels: number;
  quits: number;
}

function recorder(store: ClientStore): Recorder {
  const r: Recorder = {
    sent: [],
    cancels: 0,
    quits: 0,
    send: (t) => void r.sent.push(t),
    cancel: () => {
      r.cancels++;
      states.permissionAnswers(store).cancelAll();
      store.cancelTurn();
    },
    quit: () => void r.quits++,
    permissions: { answer: (key, outcome) => states.permissionAnswers(store).answer(key, outcome) },
  };
  return r;
}

function mount(store: ClientStore, columns = 100) {
  const ctl = recorder(store);
  const r = renderAt(<App store={store} controller={ctl} animate={false} arming={NO_ARMING} size={{ columns, rows: 30 }} />, columns, 30);
  return { ...r, ctl };
}

const settled = async (p: Promise<RequestPermissionOutcome>) => await Promise.race([p, tick(200).then(() => 'pending' as const)]);

for (const [keys, expected] of [
  [['y'], { outcome: 'selected', optionId: 'once' }],
  [['a'], { outcome: 'selected', optionId: 'always' }],
  [['n'], { outcome: 'selected', optionId: 'no' }],
  [[KEY.esc], { outcome: 'selected', optionId: 'no' }],
  [['2'], { outcome: 'selected', optionId: 'always' }],
  [['3'], { outcome: 'selected', optionId: 'no' }],
] as [string[], RequestPermissionOutcome][]) {
  test(`approval: ${JSON.stringify(keys)} answers ${JSON.stringify(expected)}`, async () => {
    const { store, answers } = states.approvalWithDiff(1);
    const r = mount(store);
    await tick();
    await r.press(...keys);
    assert.deepEqual(await settled(answers[0]), expected);
    assert.equal(store.getState().permissions.length, 0);
    r.unmount();
  });
}

test('approval: letters with no option of their kind do nothing; 9 picks nothing', async () => {
  const s = states.baseStore();
  s.beginTurn('x');
  const p = states.permissionAnswers(s).ask('a1b2c3d4e5f6', { toolCallId: 'k', title: 'Only once or never' }, [
    { optionId: 'ok', name: 'Yes', kind: 'allow_once' },
    { optionId: 'never', name: 'Never', kind: 'reject_always' },
  ]);
  const r = mount(s);
  await tick();
  await r.press('a', '9', 'x');
  assert.equal(await settled(p), 'pending');
  await r.press('n');
  assert.deepEqual(await settled(p), { outcome: 'selected', optionId: 'never' }, 'n falls back to reject_always');
  r.unmount();
});

test('approval: r rejects with a typed reason, which is sent to the agent as the next prompt', async () => {
  const { store, answers } = states.approvalWithDiff(1);
  const r = mount(store);
  await tick();
  await r.press('r');
  assert.match(r.lastFrame(), /Reason for the agent/);
  await r.press('u', 's', 'e', ' ', 'l', 'e', 't');
  assert.equal(await settled(answers[0]), 'pending', 'nothing is answered while typing');
  await r.press(KEY.enter);
  assert.deepEqual(await settled(answers[0]), { outcome: 'selected', optionId: 'no' });
  assert.deepEqual(r.ctl.sent, ['use let']);
  r.unmount();
});

test('approval: r with the built-in agent answers its reject_explain, so its turn stops and the reason is read next', async () => {
  const s = states.baseStore();
  s.beginTurn('fix it');
  const p = states.permissionAnswers(s).ask('a1b2c3d4e5f6', { toolCallId: 'e1', title: 'local_fs.edit_file: a.py', kind: 'edit', status: 'pending' }, [
    ...states.OPTIONS,
    { optionId: 'reject_explain', name: 'Reject and tell the agent why', kind: 'reject_once' },
  ]);
  const r = mount(s);
  await tick();
  assert.match(r.lastFrame(), /3\. Reject {2}\(n\/Esc\)\n\s*4\. Reject and tell the agent why {2}\(r\)/, 'r is named on the option it answers');
  await r.press('r', 'n', 'o', KEY.enter);
  assert.deepEqual(await settled(p), { outcome: 'selected', optionId: 'reject_explain' });
  assert.deepEqual(r.ctl.sent, ['no']);
  r.unmount();
});

test('approval queue: "1 of 2", y answers the first, then the second has the keys', async () => {
  const { store, answers } = states.approvalWithDiff(2);
  const r = mount(store);
  await tick();
  assert.match(r.lastFrame(), /approval 1 of 2/);
  await r.press('y');
  assert.deepEqual(await settled(answers[0]), { outcome: 'selected', optionId: 'once' });
  assert.equal(await settled(answers[1]), 'pending');
  assert.match(r.lastFrame(), /\$ rm -rf build/);
  assert.doesNotMatch(r.lastFrame(), /of 2/);
  await r.press('n');
  assert.deepEqual(await settled(answers[1]), { outcome: 'selected', optionId: 'no' });
  r.unmount();
});

test('Ctrl+C cancels: every pending permission is answered cancelled; a second Ctrl+C quits', async () => {
  const { store, answers } = states.approvalWithDiff(2);
  const r = mount(store);
  await tick();
  await r.press(KEY.ctrlC);
  assert.deepEqual(await settled(answers[0]), { outcome: 'cancelled' });
  assert.deepEqual(await settled(answers[1]), { outcome: 'cancelled' });
  assert.equal(r.ctl.cancels, 1);
  assert.equal(r.ctl.quits, 0);
  assert.match(r.lastFrame(), /Ctrl\+C again quits/);
  await r.press(KEY.ctrlC);
  assert.equal(r.ctl.quits, 1);
  r.unmount();
});

test('Ctrl+D quits from any focus', async () => {
  const r = mount(states.idle());
  await tick();
  await r.press(KEY.ctrlD);
  assert.equal(r.ctl.quits, 1);
  r.unmount();
});

test('composer: Enter sends, Alt+Enter makes a new line, bracketed paste never sends', async () => {
  const r = mount(states.idle());
  await tick();
  await r.press('h', 'i', KEY.altEnter, 't', 'h', 'e', 'r', 'e');
  assert.deepEqual(r.ctl.sent, []);
  await r.press(KEY.enter);
  assert.deepEqual(r.ctl.sent, ['hi\nthere']);
  await r.press(`${KEY.pasteStart}line one\rline two\r${KEY.pasteEnd}`);
  assert.deepEqual(r.ctl.sent, ['hi\nthere'], 'a pasted newline is text');
  assert.match(r.lastFrame(), /line one\n\s+line two/);
  await r.press(KEY.backspace, KEY.enter);
  assert.deepEqual(r.ctl.sent, ['hi\nthere', 'line one\nline two']);
  r.unmount();
});

test('composer: letters that are keys elsewhere are text here', async () => {
  const r = mount(states.idle());
  await tick();
  await r.press('y', 'e', 'n', '1', KEY.enter);
  assert.deepEqual(r.ctl.sent, ['yen1']);
  r.unmount();
});

test('tool list: Tab focuses it, arrows select, Enter toggles a diff, e expands all, Ctrl+O prints the full output', async () => {
  const store = states.finishedTurn();
  const r = mount(store);
  await tick();
  // history already holds these changes' diffs (nobody was asked about them): the live region is below it
  const live = () => r.lastFrame().split('Done: two files changed.\n').at(-1)!;
  await r.press(KEY.tab);
  assert.match(live(), /› ✓ edit Edit src\/app\.ts/);
  assert.doesNotMatch(live(), /line three/);
  await r.press(KEY.enter);
  assert.match(live(), /3 \+ line three/);
  await r.press(KEY.space);
  assert.doesNotMatch(live(), /line three/);
  await r.press(KEY.down);
  assert.match(live(), /› ✓ edit Write docs\/new\.md/);
  await r.press('e');
  assert.match(live(), /line three/);
  assert.match(live(), /1 \+ # New/);
  await r.press('e');
  assert.doesNotMatch(live(), /1 \+ # New/);
  await r.press(KEY.ctrlO);
  const out = store.getState().history.at(-1);
  assert.ok(out && out.kind === 'output' && out.title === 'Write docs/new.md');
  assert.match(out.text, /\+# New/);
  await r.press(KEY.tab, 'x', KEY.enter);
  assert.deepEqual(r.ctl.sent, ['x'], 'Tab returns to the composer');
  r.unmount();
});

test('every binding in the table is reachable from its focus and the footer shows it', async () => {
  for (const b of BINDINGS) {
    const foci = b.focus === 'global' ? (['composer', 'tools', 'approval', 'reason'] as const) : b.focus;
    for (const f of foci) {
      for (const k of b.keys) {
        // a focus may give a key that works anywhere a meaning of its own (Ctrl+C clears a prompt first)
        const own = b.focus === 'global' ? BINDINGS.find((o) => o.focus !== 'global' && o.focus.includes(f) && o.keys.includes(k)) : undefined;
        assert.equal(matchAction(f, k), own?.action ?? b.action, `${k} in ${f}`);
      }
    }
  }
  // no key means two things in one focus
  for (const a of BINDINGS) for (const b of BINDINGS) {
    if (a === b || a.focus === 'global' || b.focus === 'global') continue;
    const shared = a.focus.filter((f) => (b.focus as string[]).includes(f));
    for (const k of a.keys) assert.ok(shared.length === 0 || !b.keys.includes(k), `${k} is both ${a.action} and ${b.action} in ${shared.join(', ')}`);
  }
  const r = mount(states.approvalWithDiff(1).store);
  await tick();
  for (const label of ['y allow once', 'a allow always', 'n/Esc reject', 'r reject + reason', '1-9 pick', 'Ctrl+C cancel']) assert.ok(r.lastFrame().includes(label), label);
  r.unmount();
});

test('composer: ↑/↓ recall earlier prompts, and ↓ past the newest gives an empty prompt', async () => {
  const r = mount(states.idle());
  await tick();
  await r.press('o', 'n', 'e', KEY.enter, 't', 'w', 'o', KEY.enter);
  await r.press(KEY.up);
  assert.match(r.lastFrame(), /› two/);
  await r.press(KEY.up, KEY.up);
  assert.match(r.lastFrame(), /› one/);
  await r.press(KEY.down);
  assert.match(r.lastFrame(), /› two/);
  await r.press('!', KEY.enter);
  assert.deepEqual(r.ctl.sent, ['one', 'two', 'two!']);
  await r.press(KEY.up, KEY.down);
  assert.match(r.lastFrame(), /› {2}message the agent/);
  r.unmount();
});

test('input: text and Enter in one read send it; a bracketed paste with Enters in one read does not', async () => {
  const r = mount(states.idle());
  await tick();
  await r.press('hello there\r');
  assert.deepEqual(r.ctl.sent, ['hello there'], 'one chunk ending in \\r sends');
  await r.press('one\rtwo\r');
  assert.deepEqual(r.ctl.sent, ['hello there', 'one', 'two'], 'each Enter sends what came before it');
  await r.press('threx\u007Fe\r');
  assert.deepEqual(r.ctl.sent.at(-1), 'three', 'a Backspace in the same read edits');
  r.ctl.sent.splice(-1);
  await r.press(`${KEY.pasteStart}pasted\rtext\r${KEY.pasteEnd}`);
  assert.deepEqual(r.ctl.sent, ['hello there', 'one', 'two'], 'a paste never sends');
  assert.match(r.lastFrame(), /› pasted\n\s+text/);
  await r.press('!\r');
  assert.deepEqual(r.ctl.sent.at(-1), 'pasted\ntext\n!');
  r.unmount();
});

test('input: a paste of 120 lines shows as [pasted 120 lines] and is sent whole', async () => {
  const r = mount(states.idle());
  await tick();
  const body = Array.from({ length: 120 }, (_, i) => `row ${i + 1}`).join('\r');
  await r.press('look: ', `${KEY.pasteStart}${body}${KEY.pasteEnd}`, ' please');
  assert.match(r.lastFrame(), /› look: \[pasted 120 lines\] please/);
  assert.doesNotMatch(r.lastFrame(), /row 60/);
  await r.press(KEY.enter);
  assert.equal(r.ctl.sent.length, 1);
  assert.equal(r.ctl.sent[0], `look: ${body.replace(/\r/g, '\n')} please`);
  // ↑ brings the prompt back with its token, still sent whole
  await r.press(KEY.up);
  assert.match(r.lastFrame(), /› look: \[pasted 120 lines\] please/);
  await r.press(KEY.enter);
  assert.equal(r.ctl.sent[1], r.ctl.sent[0]);
  r.unmount();
});
