import './env.ts';
// Nothing says the agent waits unless the UI says so: the bell, OSC 9 and OSC 777 go out when an
// approval appears or a turn ends while the terminal is not focused (or never said), and the
// title follows the state. Driven through the real App; what it writes to the terminal recorded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NOTIFY_VALUES } from '../../src/config/schema.ts';
import { parseConfigText } from '../../src/config/load.ts';
import { App } from '../../src/ui/App.tsx';
import { Notifier, NOTIFY_MODES, notifySettings, reminderAt, type NotifySettings } from '../../src/ui/notify.ts';
import { NO_ARMING, renderAt, tick } from './harness.ts';
import * as states from './states.ts';

const BEL = '\u0007';

function mount(settings: NotifySettings = { mode: 'auto', title: true }) {
  const written: string[] = [];
  const store = states.baseStore();
  const notifier = new Notifier((s) => void written.push(s), settings);
  const r = renderAt(<App store={store} controller={{ send() {}, cancel() {}, quit() {}, permissions: { answer: (k, o) => states.permissionAnswers(store).answer(k, o) } }} animate={false} size={{ columns: 100, rows: 30 }} arming={NO_ARMING} notifier={notifier} />, 100, 30);
  return { r, store, written, out: () => written.join('') };
}

const ask = (store: ReturnType<typeof states.baseStore>, id: string) => states.permissionAnswers(store).ask('a1b2c3d4e5f6', { toolCallId: id, title: `Edit src/${id}.ts`, kind: 'edit', status: 'pending', content: [states.DIFF] }, states.OPTIONS);

test('an approval that waits rings the bell and sends OSC 9 and OSC 777; the title says so', async () => {
  const { r, store, out } = mount();
  await tick();
  assert.match(out(), /\u001B\]2;cxl · ready\u0007/);
  store.beginTurn('fix it');
  await tick();
  assert.match(out(), /\u001B\]2;cxl · working\u0007/);
  assert.doesNotMatch(out(), /\u0007\u001B\]9;/, 'no alert while the agent just works');
  void ask(store, 'a');
  await tick();
  assert.ok(out().includes(`${BEL}\u001B]9;waiting for approval: Edit src/a.ts${BEL}\u001B]777;notify;cxl;waiting for approval: Edit src/a.ts${BEL}`), JSON.stringify(out()));
  assert.match(out(), /\u001B\]2;cxl · waiting for approval\u0007/);
  r.unmount();
});

test('with the terminal focused (it said so) nothing rings; unfocused again, it does; a turn that ends rings too', async () => {
  const { r, store, written, out } = mount();
  await tick();
  store.beginTurn('fix it');
  await r.press('\u001B[I');
  void ask(store, 'a');
  await tick();
  assert.ok(!out().includes(BEL + '\u001B]9;'), 'focused: the person sees it');
  await r.press('y');
  await r.press('\u001B[O');
  assert.doesNotMatch(r.lastFrame(), /\[O|\[I/, 'focus reports are not typed text');
  const before = written.length;
  void ask(store, 'b');
  await tick();
  assert.match(written.slice(before).join(''), /\u0007\u001B\]9;waiting for approval: Edit src\/b\.ts/);
  await r.press('y');
  const atEnd = written.length;
  store.endTurn('end_turn');
  await tick();
  assert.match(written.slice(atEnd).join(''), /\u0007\u001B\]9;the turn has ended\u0007/);
  r.unmount();
});

test('notify = "bell" rings only; "off" writes nothing but the title; terminal_title = false leaves the title alone', async () => {
  const bell = mount({ mode: 'bell', title: false });
  await tick();
  bell.store.beginTurn('x');
  void ask(bell.store, 'a');
  await tick();
  assert.equal(bell.out(), BEL);
  bell.r.unmount();
  const off = mount({ mode: 'off', title: true });
  await tick();
  off.store.beginTurn('x');
  void ask(off.store, 'a');
  await tick();
  assert.doesNotMatch(off.out(), /\u0007\u001B\]9|\u001B\]777/);
  assert.match(off.out(), /cxl · waiting for approval/);
  off.r.unmount();
});

test('the settings: agents.toml `notify` and `terminal_title`, CXL_NOTIFY over them; a bad value is a config error', () => {
  assert.deepEqual([...NOTIFY_VALUES], [...NOTIFY_MODES], 'the config and the UI read the same values');
  assert.deepEqual(notifySettings({}, {}), { mode: 'auto', title: true });
  const cfg = parseConfigText('agents.toml', 'notify = "bell"\nterminal_title = false\n');
  assert.deepEqual(notifySettings(cfg, {}), { mode: 'bell', title: false });
  assert.deepEqual(notifySettings(cfg, { CXL_NOTIFY: 'off' }), { mode: 'off', title: false });
  assert.equal(parseConfigText('agents.toml', 'notify = false\n').notify, 'off');
  assert.throws(() => parseConfigText('agents.toml', 'notify = "loud"\n'), /agents\.toml:1:\d+: .*notify/);
});

test('after the terminal was lent to an editor (its title restored), the title is set again; without titles nothing is written', () => {
  const written: string[] = [];
  const n = new Notifier((s) => void written.push(s), { mode: 'auto', title: true });
  n.retitle();
  assert.deepEqual(written, [], 'no title set yet: nothing to set again');
  n.title('working');
  n.title('working');
  assert.equal(written.length, 1, 'an unchanged state is not written twice');
  n.retitle();
  assert.deepEqual(written, ['\u001B]2;cxl · working\u0007', '\u001B]2;cxl · working\u0007']);
  const none: string[] = [];
  const quiet = new Notifier((s) => void none.push(s), { mode: 'auto', title: false });
  quiet.title('working');
  quiet.retitle();
  assert.deepEqual(none, []);
});

test('an approval with a deadline counts down on screen and calls again before it rejects itself; one without a deadline shows no clock', async () => {
  const { r, store, out } = mount();
  await tick();
  store.beginTurn('fix it');
  void ask(store, 'plain');
  await tick();
  assert.doesNotMatch(r.lastFrame() ?? '', /rejects itself/, 'no envelope timeout: no clock');
  states.permissionAnswers(store).answer(store.getState().permissions[0].key, { outcome: 'selected', optionId: 'allow_once' });
  await tick();
  // 12 s left: the reminder comes half way (6 s); the clock shows the time left and ticks down
  const expiresAt = new Date(Date.now() + 12_000).toISOString();
  void states.permissionAnswers(store).ask('a1b2c3d4e5f6', { toolCallId: 't', title: 'Edit src/t.ts', kind: 'edit', status: 'pending', content: [states.DIFF], _meta: { cxl: { rule: 'files.write', reason: 'asks', expiresAt } } }, states.OPTIONS);
  // polled, not a fixed wait: frames come later on a loaded machine
  const clock = async (done: (seconds: number) => boolean) => {
    let m: RegExpExecArray | null = null;
    for (const end = Date.now() + 8000; Date.now() < end; await tick(50)) {
      m = /rejects itself in 0:(\d\d) unless answered/.exec(r.lastFrame() ?? '');
      if (m && done(Number(m[1]))) break;
    }
    return m;
  };
  const first = await clock(() => true);
  assert.ok(first, r.lastFrame());
  assert.ok(Number(first[1]) >= 9 && Number(first[1]) <= 12, first[0]);
  assert.doesNotMatch(out(), /approval rejects itself in/, 'no reminder yet');
  const later = await clock((s) => s <= Number(first[1]) - 2);
  assert.ok(later && Number(later[1]) <= Number(first[1]) - 2 && Number(later[1]) >= 6, `the clock ticked: ${first[0]} then ${later?.[0]}`);
  for (const end = Date.now() + 10_000; !/\u001B\]9;approval rejects itself/.test(out()) && Date.now() < end; ) await tick(50);
  assert.match(out(), /\u001B\]9;approval rejects itself in 0:0\d: Edit src\/t\.ts\u0007/);
  r.unmount();
});

test('the reminder comes a minute before a long deadline, half way through a short one, and not for one nearly gone', () => {
  assert.equal(reminderAt(0, 300_000), 240_000);
  assert.equal(reminderAt(0, 60_000), 30_000);
  assert.equal(reminderAt(0, 5_000), undefined);
});
