import './env.ts';
// Keys for the daily-driver features on the real App over a fake stdin: the slash-command list
// and registry, @-mention completion, Shift+Tab modes, the transcript view (Ctrl+T) and the
// session picker. Assertions are on what reaches the controller (the client) and on the frame.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClientStore } from '../../src/client/state.ts';
import { App, type Controller } from '../../src/ui/App.tsx';
import { KEY, renderAt, tick, NO_ARMING } from './harness.ts';
import * as states from './states.ts';

interface Calls {
  sent: string[];
  modes: string[];
  loads: string[];
  news: number;
  lists: number;
  dismissed: number;
  refreshes: number;
  quits: number;
}

function controller(store: ClientStore): Controller & { calls: Calls } {
  const calls: Calls = { sent: [], modes: [], loads: [], news: 0, lists: 0, dismissed: 0, refreshes: 0, quits: 0 };
  return {
    calls,
    send: (t) => void calls.sent.push(t),
    cancel: () => store.cancelTurn(),
    quit: () => void calls.quits++,
    config: {
      setMode: (m) => {
        calls.modes.push(m);
        store.config.setMode(m);
      },
      config: () => {},
    },
    newSession: () => void calls.news++,
    listSessions: () => void calls.lists++,
    loadSession: (id) => {
      calls.loads.push(id);
      store.offerSessions(undefined);
    },
    dismissSessions: () => {
      calls.dismissed++;
      store.offerSessions(undefined);
    },
    refreshFiles: () => {
      calls.refreshes++;
      store.setFiles({ paths: ['README.md', 'src/app.ts', 'src/ui/text_layout.ts', 'docs/tui.md'], loading: false, truncated: false });
    },
  };
}

function mount(store: ClientStore, columns = 100, rows = 30) {
  const ctl = controller(store);
  const r = renderAt(<App store={store} controller={ctl} animate={false} arming={NO_ARMING} size={{ columns, rows }} />, columns, rows);
  return { ...r, ctl, calls: ctl.calls };
}

const typed = (s: string) => [...s];

test('/ opens the command list; ↓ and Enter run the chosen one; /help prints commands and keys into history', async () => {
  const store = states.withModes();
  const r = mount(store);
  await tick();
  await r.press('/');
  let f = r.lastFrame();
  assert.match(f, /› \/help +the commands and keys/);
  assert.match(f, /\/mode NAME +switch the session mode/);
  assert.match(f, /Tab\/Enter complete/, 'the footer has the list keys');
  // the agent's commands follow the client's (past the list's height here): typing narrows to them
  await r.press('c');
  assert.match(r.lastFrame(), /\/compact +summarise the session \(agent\)/, "the agent's commands are listed too");
  await r.press(KEY.backspace);
  await r.press(KEY.enter);
  const help = store.getState().history.at(-1);
  assert.ok(help && help.kind === 'info' && help.title === 'help');
  assert.ok(help.lines.some((l) => /\/resume \[ID\] +pick one of this directory's sessions/.test(l)));
  assert.ok(help.lines.some((l) => /Shift\+Tab +next mode/.test(l)));
  assert.ok(help.lines.some((l) => /\/compact/.test(l)));
  assert.deepEqual(r.calls.sent, [], '/help is the client\'s, nothing is sent');
  f = r.lastFrame();
  assert.match(f, /── help ─/);
  r.unmount();
});

test('Tab completes /mo to /mode and lists the modes; Enter on one switches to it', async () => {
  const store = states.withModes();
  const r = mount(store);
  await tick();
  await r.press(...typed('/mo'), KEY.tab);
  assert.match(r.lastFrame(), /─\n› \/mode\n/);
  assert.match(r.lastFrame(), /› default +current/);
  await r.press(KEY.down, KEY.enter);
  assert.deepEqual(r.calls.modes, ['read_only']);
  assert.match(r.lastFrame(), /envelope read_only/, 'the status line follows');
  assert.doesNotMatch(r.lastFrame(), /› \/mode/, 'the composer is empty again');
  await tick();
  const confirm = store.getState().history.at(-1);
  assert.ok(confirm?.kind === 'notice' && /^Mode: read_only/.test(confirm.text), '/mode confirms in the history');
  r.unmount();
});

test('the status line colours the mode by how much it lets the agent do unasked', async () => {
  const { statusRow } = await import('../../src/ui/status_line.ts');
  const { modeRisk } = await import('../../src/ui/mode_risk.ts');
  const store = states.withModes();
  const span = (mode: string) => {
    store.config.setMode(mode);
    return statusRow(store.getState(), 140).find((x) => x.text.startsWith('envelope '));
  };
  assert.equal(span('read_only')?.color, 'risk_low');
  assert.equal(span('default')?.color, 'risk_mid');
  assert.equal(modeRisk({ id: 'auto_edit', name: 'auto_edit' }), 'high');
  assert.equal(modeRisk({ id: 'bypassPermissions', name: 'Bypass Permissions' }), 'high');
  assert.equal(modeRisk({ id: 'plan', name: 'Plan Mode' }), 'low');
  assert.equal(modeRisk({ id: 'code', name: 'Code' }), 'mid');
});

test('Esc closes the list; an unknown /command and //name go to the agent; /clear /resume /quit reach the client', async () => {
  const store = states.withModes();
  const r = mount(store);
  await tick();
  await r.press(...typed('/zz'), KEY.esc, KEY.enter);
  await r.press(...typed('//help'), KEY.enter);
  assert.deepEqual(r.calls.sent, ['/zz', '/help']);
  await r.press(...typed('/clear'), KEY.esc, KEY.enter);
  await r.press(...typed('/resume'), KEY.esc, KEY.enter);
  await r.press(...typed('/resume abc-123'), KEY.enter);
  await r.press(...typed('/quit'), KEY.esc, KEY.enter);
  assert.equal(r.calls.news, 1);
  assert.equal(r.calls.lists, 1);
  assert.deepEqual(r.calls.loads, ['abc-123']);
  assert.equal(r.calls.quits, 1);
  await r.press(...typed('/mode nope'), KEY.esc, KEY.enter);
  assert.match(r.lastFrame(), /No mode `nope`\. Modes: default \(current\), read_only\./);
  await r.press('x');
  assert.doesNotMatch(r.lastFrame(), /No mode/, 'the hint goes at the next key');
  r.unmount();
});

test('Shift+Tab cycles the modes through the client; with none it says so', async () => {
  const store = states.withModes();
  const r = mount(store);
  await tick();
  assert.match(r.lastFrame(), /envelope default/);
  await r.press('\u001B[Z');
  assert.deepEqual(r.calls.modes, ['read_only']);
  assert.match(r.lastFrame(), /envelope read_only/);
  await r.press('\u001B[Z');
  assert.deepEqual(r.calls.modes, ['read_only', 'default'], 'and round again');
  r.unmount();
  const none = mount(states.idle());
  await tick();
  await none.press('\u001B[Z');
  assert.deepEqual(none.calls.modes, []);
  assert.match(none.lastFrame(), /This agent offers no modes/);
  none.unmount();
});

test('@ asks for the file list, fuzzy-filters it, Tab puts the path in; the prompt is sent with it', async () => {
  const store = states.withModes();
  const r = mount(store);
  await tick();
  await r.press(...typed('fix @txtl'));
  assert.equal(r.calls.refreshes, 1);
  const f = r.lastFrame();
  assert.match(f, /› src\/ui\/text_layout\.ts/);
  assert.doesNotMatch(f, /README/);
  await r.press(KEY.tab, ...typed('now'), KEY.enter);
  assert.deepEqual(r.calls.sent, ['fix @src/ui/text_layout.ts now']);
  // a mention typed out in full: Enter sends, there is nothing left to complete
  await r.press('see @README.md\r');
  assert.deepEqual(r.calls.sent.at(-1), 'see @README.md');
  r.unmount();
});

test('Ctrl+T opens the transcript of every turn; arrows select, Enter opens a diff, Ctrl+O prints it, Esc goes back', async () => {
  const store = states.twoTurns();
  const r = mount(store, 100, 30);
  await tick();
  await r.press(KEY.ctrlT);
  let f = r.lastFrame();
  assert.match(f, /── transcript · 3 tool calls · 2 prompts/);
  assert.match(f, /› rename the lines\n {2}✓ edit Edit src\/app\.ts/, 'earlier turns are there, under their prompt');
  assert.match(f, /› ✓ execute npm test/, 'the newest call is selected');
  assert.match(f, /Esc back/);
  await r.press(KEY.up, KEY.up, KEY.enter);
  f = r.lastFrame();
  assert.match(f, /› ✓ edit Edit src\/app\.ts/);
  assert.match(f, /3 \+ line three/, 'the diff of a call from an earlier turn opens');
  await r.press(KEY.ctrlO);
  const out = store.getState().history.at(-1);
  assert.ok(out && out.kind === 'output' && out.title === 'Edit src/app.ts' && /\+line three/.test(out.text));
  await r.press(KEY.esc);
  assert.doesNotMatch(r.lastFrame(), /── transcript/);
  await r.press('h', 'i', KEY.enter);
  assert.deepEqual(r.calls.sent, ['hi'], 'the composer has the keys again');
  r.unmount();
});

test('the session picker: arrows choose, Enter resumes it, Esc dismisses it', async () => {
  const store = states.withModes();
  store.offerSessions({ sessions: states.SESSIONS, startup: true });
  const r = mount(store);
  await tick();
  assert.match(r.lastFrame(), /── resume a session \(3\)/);
  assert.match(r.lastFrame(), /› fix the flaky test/);
  await r.press(KEY.down, KEY.enter);
  assert.deepEqual(r.calls.loads, ['bbbbbbbb-2222']);
  store.offerSessions({ sessions: states.SESSIONS, startup: false });
  await tick();
  await r.press(KEY.esc);
  assert.equal(r.calls.dismissed, 1);
  assert.doesNotMatch(r.lastFrame(), /resume a session/);
  r.unmount();
});

test('the transcript scrolls through a long session: the selection stays on screen, PgUp/PgDn move ten', async () => {
  const store = states.baseStore();
  for (let t = 0; t < 4; t++) {
    store.beginTurn(`turn ${t}`);
    for (let i = 0; i < 10; i++) store.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: `t${t}c${i}`, title: `Read file-${t}-${i}.txt`, kind: 'read', status: 'completed' });
    store.endTurn('end_turn');
    store.settle();
  }
  const r = mount(store, 80, 20);
  await tick();
  await r.press(KEY.ctrlT);
  let f = r.lastFrame();
  assert.match(f, /── transcript · 40 tool calls · 4 prompts/);
  assert.match(f, /› ✓ read Read file-3-9\.txt/);
  assert.match(f, /… \d+ earlier entries \(↑\)/);
  await r.press(KEY.pageUp, KEY.pageUp);
  f = r.lastFrame();
  assert.match(f, /› ✓ read Read file-1-9\.txt/, 'twenty calls up');
  assert.match(f, /… \d+ more entries \(↓\)/);
  await r.press(KEY.pageDown, KEY.down);
  assert.match(r.lastFrame(), /› ✓ read Read file-3-0\.txt/, 'ten down and one more crosses into the last turn');
  for (const line of r.lastFrame().split('\n').slice(-18)) assert.ok([...line].length <= 80);
  r.unmount();
});

test('the status line says when no model is reachable (cxl acp\'s check at start) until a request is answered', async () => {
  const { statusRow } = await import('../../src/ui/status_line.ts');
  const store = states.withModes();
  const text = () => statusRow(store.getState(), 160).map((x) => x.text).join('');
  store.applyUpdate({ sessionUpdate: 'session_info_update', _meta: { 'cxl/model': { reachable: false, problem: 'nothing answers at http://127.0.0.1:11434' } } });
  assert.match(text(), /no model: see above/);
  assert.doesNotMatch(text(), /% of/, 'no context use for a request that never happened');
  store.applyUpdate({ sessionUpdate: 'usage_update', used: 1000, size: 32768 });
  assert.doesNotMatch(text(), /no model/);
  assert.match(text(), /model qwen3:8b/);
});
