import './env.ts';
// A streamed answer is drawn as the same answer sent whole: thousands of small updates, arriving
// over many turns of the event loop and drawn at most once a frame, leave the screen (and the
// rows behind it, colours and links included) that one update with the same text leaves.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate } from 'node:timers';
import { ClientStore } from '../../src/client/state.ts';
import { App, type Controller } from '../../src/ui/App.tsx';
import { framed } from '../../src/ui/frame_budget.ts';
import { markdownRows, markdownTail } from '../../src/ui/markdown.ts';
import { liveRows } from '../../src/ui/screen_rows.ts';
import { TailScan } from '../../src/ui/stream_tail.ts';
import { initialUi } from '../../src/ui/ui_state.ts';
import { renderAt, tick } from './harness.ts';

const noop: Controller = { send() {}, cancel() {}, quit() {} };
const COLUMNS = 80;
const ROWS = 30;

/** An answer with what markdown can hold: headings, a list, a table, links, fences (one left open mid-way). */
function answer(): string {
  const part = (i: number) =>
    [
      `## Step ${i}: \`src/part${i}.ts\``,
      '',
      `The function **parse${i}** reads the *whole* input first; see [the notes](https://example.com/notes/${i}).`,
      '- read the header first',
      '  - and say which line was bad',
      '',
      '| file | lines |',
      '|---|---:|',
      `| src/part${i}.ts | ${100 + i} |`,
      '',
      '```ts',
      `export function parse${i}(input: string): string {`,
      `  return input.slice(0, input.indexOf('\\n')); // ${'x'.repeat(i % 7)}`,
      '}',
      '```',
      '',
    ].join('\n');
  return Array.from({ length: 40 }, (_, i) => part(i)).join('\n') + 'The end.';
}

function session(): ClientStore {
  const s = new ClientStore({ label: 'cxl acp', builtin: true, cwd: '/srv/proj', model: 'qwen3:8b', settleMs: 1_000_000 });
  s.agentReady({ name: 'cxl acp' });
  s.sessionStarted('s-1', { model: 'qwen3:8b' });
  s.beginTurn('explain');
  return s;
}

const chunk = (text: string) => ({ sessionUpdate: 'agent_message_chunk' as const, content: { type: 'text' as const, text } });

test('5,000 small updates leave the same screen as one update with the same text', async () => {
  const text = answer();
  const whole = session();
  const streamed = session();
  const a = renderAt(<App store={whole} controller={noop} animate={false} size={{ columns: COLUMNS, rows: ROWS }} />, COLUMNS, ROWS);
  const b = renderAt(<App store={streamed} controller={noop} animate={false} size={{ columns: COLUMNS, rows: ROWS }} />, COLUMNS, ROWS);
  await tick();
  whole.applyUpdate(chunk(text));
  // 5,000 chunks of uneven size (a fence's backticks and a line's end split across chunks), in
  // reads of a few dozen, each read a turn of the event loop: frames are drawn between them
  assert.ok(text.length > 10_000, `${text.length} characters`);
  for (let i = 0; i < 5000; i++) {
    streamed.applyUpdate(chunk(text.slice(Math.floor((i * text.length) / 5000), Math.floor(((i + 1) * text.length) / 5000))));
    if (i % 37 === 36) await new Promise((r) => setImmediate(r));
  }
  await tick(80);
  // the live region: the answer's tail, as rows with their colours and links, and as drawn
  const size0 = { columns: COLUMNS, rows: ROWS };
  assert.deepEqual(liveRows(streamed.getState(), initialUi, size0), liveRows(whole.getState(), initialUi, size0));
  assert.match(a.lastFrame(), /The end\./);
  assert.equal(b.lastFrame(), a.lastFrame());
  // finished: printed whole into history, the same again
  whole.endTurn('end_turn');
  streamed.endTurn('end_turn');
  whole.settle();
  streamed.settle();
  await tick(80);
  assert.match(a.lastFrame(), /## Step 0|Step 0/);
  assert.equal(b.lastFrame(), a.lastFrame());
  a.unmount();
  b.unmount();
});

test('a growing text scanned piece by piece finds the same tail as the whole text read at once', () => {
  const text = `\n  ${answer()}\n\n`;
  for (const step of [1, 3, 17, 250]) {
    const scan = new TailScan();
    for (let at = step; at < text.length + step; at += step) {
      const now = text.slice(0, Math.min(at, text.length));
      scan.update(now);
      if (at % (step * 7) !== 0 && at < text.length) continue;
      for (const lines of [1, 5, 29]) {
        const fresh = new TailScan();
        fresh.update(now);
        assert.deepEqual(scan.tail(lines), fresh.tail(lines), `step ${step}, at ${at}, ${lines} lines`);
        assert.deepEqual(markdownTail(now, 60, lines, {}, scan), markdownTail(now.trim(), 60, lines));
      }
    }
  }
  // a text that is not the last one grown (another message) is scanned afresh
  const scan = new TailScan();
  scan.update('```ts\nopen\n');
  scan.update('plain\nlines\nhere\n');
  assert.deepEqual(scan.tail(1), { source: 'here', omitted: 2 });
});

test('the tail of a short message is the whole message laid out', () => {
  const text = '# Title\n\nsome *text*\n```py\nx = 1\n```';
  assert.deepEqual(markdownTail(text, 40, 50), { rows: markdownRows(text, 40), omitted: 0 });
});

test('changes in one turn of the event loop reach the screen once; a burst at most once a frame', async () => {
  const listeners = new Set<() => void>();
  const change = () => {
    for (const l of listeners) l();
  };
  const calls: number[] = [];
  const t0 = performance.now();
  const off = framed(
    (fn) => {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    { frameMs: 40 },
  )(() => calls.push(performance.now() - t0));
  for (let i = 0; i < 1000; i++) change();
  await new Promise((r) => setImmediate(r));
  assert.equal(calls.length, 1, 'a thousand changes in one turn: one frame, at once');
  // changes over 200 ms: no two frames closer than the budget, and the last change is drawn
  const end = performance.now() + 200;
  while (performance.now() < end) {
    change();
    await new Promise((r) => setImmediate(r));
  }
  await tick(60);
  // (a timer may fire a millisecond or two early by this clock)
  for (let i = 1; i < calls.length; i++) assert.ok(calls[i] - calls[i - 1] >= 36, `frames ${calls[i - 1].toFixed(0)} and ${calls[i].toFixed(0)} ms`);
  const elapsed = performance.now() - t0;
  assert.ok(calls.length >= 2 && calls.length <= elapsed / 40 + 2, `${calls.length} frames in ${elapsed.toFixed(0)} ms: drawn while the burst goes on, no more than once a frame`);
  // quiet: no frame for longer than one (a loaded machine runs the last timer late)
  while (performance.now() - t0 - calls[calls.length - 1] < 60) await tick(20);
  const before = calls.length;
  change();
  await new Promise((r) => setImmediate(r));
  assert.equal(calls.length, before + 1, 'after a quiet spell a change is drawn at once');
  off();
});

test('a replay being read is drawn once it is all in', async () => {
  const listeners = new Set<() => void>();
  let holding = true;
  // the budget's own clock: a loaded machine's slow ticks never count as the hold running out
  let clock = 0;
  const change = () => {
    for (const l of listeners) l();
  };
  const until = async (done: () => boolean) => {
    for (const end = performance.now() + 2000; !done() && performance.now() < end; ) await tick(5);
  };
  let calls = 0;
  const off = framed(
    (fn) => {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    { frameMs: 10, holding: () => holding, now: () => clock },
  )(() => calls++);
  change(); // the screen is cleared for the replay: drawn
  await until(() => calls >= 1);
  assert.equal(calls, 1);
  for (let i = 0; i < 50; i++) {
    clock += 2;
    change();
    await tick(2);
  }
  assert.equal(calls, 1, 'nothing drawn while the replay is read');
  holding = false;
  clock += 20;
  change();
  // the held frame is tried again every 50 ms at most: drawn by then (later on a loaded machine)
  await until(() => calls >= 2);
  await tick(30);
  assert.equal(calls, 2, 'one frame once it is in');
  off();
});
