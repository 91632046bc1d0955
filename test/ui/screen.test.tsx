import './env.ts';
// Whole-screen states at 60, 100 and 140 columns: history (<Static>) and the live region.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { App, type Controller } from '../../src/ui/App.tsx';
import { CLEAR_SCREEN, REFLOW_DELAY_MS } from '../../src/ui/reprint.ts';
import { matchSnapshot } from '../helpers/snapshot.ts';
import { renderAt, tick, KEY, NO_ARMING } from './harness.ts';
import * as states from './states.ts';
import type { ClientStore } from '../../src/client/state.ts';

const WIDTHS = [60, 100, 140];
const ROWS = 30;
const noop: Controller = { send() {}, cancel() {}, quit() {} };

async function frame(store: ClientStore, columns: number, keys: string[] = []): Promise<string> {
  const r = renderAt(<App store={store} controller={noop} animate={false} size={{ columns, rows: ROWS }} arming={NO_ARMING} />, columns, ROWS);
  await tick();
  await r.press(...keys);
  const f = r.lastFrame();
  r.unmount();
  return f;
}

function liveHeight(f: string, history: number): number {
  return f.split('\n').length - history;
}

const CASES: [string, () => ClientStore, string[]][] = [
  ['idle', states.idle, []],
  ['streaming', states.streaming, []],
  ['tool running', states.toolRunning, []],
  ['approval with diff', () => states.approvalWithDiff(1).store, []],
  ['queue of two approvals', () => states.approvalWithDiff(2).store, []],
  ['collapsed diffs', states.finishedTurn, []],
  ['approved changes, collapsed', states.approvedTurn, []],
  ['expanded diffs', states.finishedTurn, [KEY.tab, 'e']],
  ['failed call', states.failedCall, []],
  ['agent crashed', states.crashed, []],
  ['command list', states.daily, ['/']],
  ['mode argument list', states.daily, [...'/mode ']],
  ['file mention list', states.daily, [...'look at @tl']],
  ['long paste in the composer', states.daily, ['see ', `${KEY.pasteStart}${Array.from({ length: 120 }, (_, i) => `row ${i}`).join('\r')}${KEY.pasteEnd}`]],
  ['status with context use and sandbox', states.daily, []],
  ['hint above the composer', states.daily, [...'/mode nope', KEY.esc, KEY.enter]],
  ['help in history', states.daily, [...'/help', KEY.enter]],
  ['transcript', states.twoTurns, [KEY.ctrlT]],
  ['transcript with an open diff', states.twoTurns, [KEY.ctrlT, KEY.up, KEY.up, KEY.enter]],
  ['session picker', states.picker, [KEY.down]],
  ['rewind picker', states.rewindPick, [KEY.down]],
  ['rewind preview', states.rewindPreview, []],
  ['resumed session', states.resumed, []],
];

for (const [name, make, keys] of CASES) {
  for (const w of WIDTHS) {
    test(`screen: ${name} at ${w} columns`, async () => {
      const store = make();
      const f = await frame(store, w, keys);
      for (const line of f.split('\n')) assert.ok([...line].length <= w, `a line is wider than ${w}: ${line}`);
      matchSnapshot(import.meta.url, `${name} @${w}`, f);
    });
  }
}

test('the live region stays shorter than the terminal, whatever is streaming', async () => {
  const store = states.baseStore();
  store.beginTurn('long');
  store.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'long output', kind: 'execute', status: 'in_progress', content: [{ type: 'terminal', terminalId: 'x' }] });
  store.updateTerminal({ id: 'x', command: 'yes', output: 'y\n'.repeat(5000), truncated: false, done: false });
  store.applyUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: Array.from({ length: 300 }, (_, i) => `line ${i}`).join('\n') } });
  // history holds only the user's line: everything else is live
  assert.equal(store.getState().history.length, 1);
  for (const rows of [12, 24, 40]) {
    const r = renderAt(<App store={store} controller={noop} animate={false} size={{ columns: 60, rows }} />, 60, rows);
    await tick();
    const f = r.lastFrame();
    r.unmount();
    const live = liveHeight(f, 1);
    assert.ok(live < rows, `live region of ${live} rows in a ${rows}-row terminal`);
    assert.match(f, /lines hidden/);
    assert.match(f, /line 299/, 'the newest streamed line is on screen');
  }
});

test('a resize re-lays the live region at the new width', async () => {
  const store = states.finishedTurn();
  const r = renderAt(<App store={store} controller={noop} animate={false} />, 100, 30);
  await tick();
  const wide = r.lastFrame().split('\n');
  assert.match(wide.at(-1)!, /^Tab tool list · Shift\+Tab next mode · Ctrl\+T transcript · Ctrl\+C cancel \(twice quits\) · Ctrl\+D quit$/);
  assert.match(wide.at(-2)!, /^Enter send · .* · Ctrl\+R search history · \? keys$/, 'two footer rows at 100 columns');
  assert.match(wide.at(-3)!, /^cxl · .* · \/srv\/proj · session a1b2c3d4e5f6$/, 'the whole status line at 100 columns');
  await r.resize(60, 20);
  const narrow = r.lastFrame().split('\n');
  r.unmount();
  // below 80 columns the footer is one row, ending with `?`, which opens every key
  assert.match(narrow.at(-1)!, /^Enter send · .* · \? keys$/, 'one footer row at 60 columns');
  assert.match(narrow.at(-2)!, /^cxl · .* · session a1b2c3d4e5f6$/, 'the status line keeps the session id whole');
  for (const line of narrow.slice(-6)) assert.ok([...line].length <= 60, `after resize, a live line is wider than 60: ${line}`);
});

test('a width change re-flows history: the screen is cleared once and history printed again at the new width', async () => {
  const store = states.baseStore();
  const long = 'please rename every helper in the utilities module so that the names say what each one returns';
  store.beginTurn(long);
  store.applyUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Done.' } });
  store.endTurn('end_turn');
  store.settle();
  const r = renderAt(<App store={store} controller={noop} animate={false} />, 120, 30);
  await tick();
  assert.match(r.lastFrame(), new RegExp(`› ${long}\n`), 'one line at 120 columns');
  await r.resize(100, 30);
  await r.resize(60, 30);
  await tick(REFLOW_DELAY_MS + 50);
  const clears = r.stdout.frames.filter((f) => f.startsWith(CLEAR_SCREEN)).length;
  assert.equal(clears, 1, 'two quick resizes clear the screen once, after they settle');
  const after = r.lastFrame();
  r.unmount();
  // Debug rendering repeats all static output: the reprint is the part after the first copy.
  const reprinted = after.slice(after.indexOf('› please', after.indexOf('› please') + 1));
  const rows = reprinted.split('\n');
  assert.match(rows[0], /^› please rename every helper in the utilities module so that$/);
  assert.match(rows[1], /^ {2}the names say what each one returns$/);
  assert.equal(rows[2], 'Done.');
  await tick();
});

test('a replaced conversation (/clear, a resumed session) clears the screen once, but not at startup', async () => {
  const fresh = states.baseStore();
  const r0 = renderAt(<App store={fresh} controller={noop} animate={false} size={{ columns: 80, rows: 30 }} />, 80, 30);
  await tick();
  fresh.resetConversation('a1b2c3d4e5f6');
  await tick();
  assert.equal(r0.stdout.frames.filter((f) => f.startsWith(CLEAR_SCREEN)).length, 0, 'nothing of ours was printed: the shell above keeps its scrollback');
  r0.unmount();

  const store = states.finishedTurn();
  const r = renderAt(<App store={store} controller={noop} animate={false} size={{ columns: 80, rows: 30 }} />, 80, 30);
  await tick();
  store.resetConversation();
  await tick();
  assert.equal(r.stdout.frames.filter((f) => f.startsWith(CLEAR_SCREEN)).length, 1);
  store.beginTurn('a new start');
  await tick();
  const last = r.lastFrame();
  r.unmount();
  // (debug rendering keeps every static line it ever printed, so only the new one is checked)
  assert.match(last, /› a new start/);
});

test('NO_COLOR: a real render has no colour codes (and has them without NO_COLOR)', async () => {
  const { execFileSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const { moduleCommand } = await import('../../src/core/platform/runtime.ts');
  const [cmd, ...args] = moduleCommand(fileURLToPath(new URL('../fixtures/render_diff.tsx', import.meta.url)));
  const run = (env: Record<string, string>) => {
    const base = { ...process.env, FORCE_COLOR: '1' } as Record<string, string>;
    delete base.NO_COLOR;
    return execFileSync(cmd, args, { env: { ...base, ...env }, encoding: 'utf8', timeout: 30_000 });
  };
  const colour = /\u001B\[(?:3[0-9]|9[0-7]|38;)/;
  const coloured = run({});
  const plain = run({ NO_COLOR: '1' });
  assert.match(coloured, colour, 'colour is on when forced and NO_COLOR is unset');
  assert.doesNotMatch(plain, colour);
  const strip = (t: string) => t.replace(/\u001B\[[0-9;]*m/g, '');
  assert.equal(strip(plain), strip(coloured), 'the same text either way');
  assert.match(strip(plain), /✗ edit Edit a\.ts {2}\+1 -1\n/);
  assert.match(strip(plain), /2 - b\n2 \+ c/);
  // the changed word inside a changed line stands out without colour: inverse video
  const inverse = (word: string) => new RegExp(`\u001B\\[7m(?:\u001B\\[[0-9;]*m)*${word}`);
  for (const out of [plain, coloured]) {
    assert.match(out, inverse('total'));
    assert.match(out, inverse('count'));
    assert.doesNotMatch(out, inverse('const'), 'the words that did not change are not highlighted');
  }
});

test('NO_COLOR: no colour codes, glyphs and signs still tell the states apart', async () => {
  const { statusGlyph } = await import('../../src/ui/tool_call_rows.ts');
  const { colorEnabled, themeColor } = await import('../../src/ui/theme.ts');
  process.env.NO_COLOR = '1';
  try {
    assert.equal(colorEnabled(), false);
    assert.equal(themeColor('added'), undefined);
    const call = { id: 'x', title: 't', kind: 'read' as const, content: [], locations: [] };
    const glyphs = (['pending', 'in_progress', 'completed', 'failed', 'cancelled'] as const).map((status) => statusGlyph({ ...call, status }, false).text);
    assert.equal(new Set(glyphs).size, 5);
  } finally {
    delete process.env.NO_COLOR;
  }
});

test('escape sequences in anything the agent names (titles, paths, options, commands, plan) never reach the terminal', async () => {
  const evil = 'x\u001B]52;c;ZXZpbA==\u0007\u001B[2J\u009B31m\u0007y';
  const store = states.baseStore();
  store.beginTurn('go');
  store.applyUpdate({ sessionUpdate: 'plan', entries: [{ content: evil, priority: 'high', status: 'pending' }] });
  store.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: 'a', title: evil, kind: 'execute', status: 'in_progress', locations: [{ path: `/srv/proj/${evil}` }], content: [{ type: 'terminal', terminalId: 't' }] });
  store.updateTerminal({ id: 't', command: evil, output: `${evil}\n`, truncated: false, done: false });
  void states.permissionAnswers(store).ask('a1b2c3d4e5f6', { toolCallId: 'b', title: evil, rawInput: { command: evil }, content: [{ type: 'diff', path: `/srv/proj/${evil}`, oldText: evil, newText: `${evil}2` }] }, [
    { optionId: 'o', name: evil, kind: 'allow_once' },
  ]);
  store.notice('error', evil, [evil]);
  for (const w of WIDTHS) {
    const f = await frame(store, w);
    assert.doesNotMatch(f, /[\u001B\u0007\u009B]/, `no escape or control character at ${w} columns`);
    assert.match(f, /xy/);
  }
});
