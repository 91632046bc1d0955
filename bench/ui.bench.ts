// Render cost of a long session: 2,000 finished tool calls in history plus a streaming message,
// against the same screen with 20 calls, through the real App and Ink (non-debug rendering, as
// in a terminal). History is printed once through <Static>, so per-frame time and memory must
// not grow with it. Also: keystroke-to-frame latency for toggling a diff in the tool list.
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { ClientStore as Store } from '../src/client/state.ts';
import { renderFake } from './ink_harness.ts';
import { median, report } from './report.ts';

// As `cxl` runs it: React's production build (set before React loads), no colour.
process.env.NODE_ENV ??= 'production';
process.env.FORCE_COLOR = '0';
const { createElement } = await import('react');
const { ClientStore } = await import('../src/client/state.ts');
const { App } = await import('../src/ui/App.tsx');

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const COLUMNS = 120;
const ROWS = 40;


const OLD = Array.from({ length: 40 }, (_, i) => `const v${i} = ${i};`).join('\n') + '\n';
const NEW = OLD.replace('const v7 = 7;', 'const v7 = 700;');

function session(calls: number): Store {
  const s = new ClientStore({ label: 'bench', cwd: '/srv/proj', settleMs: 1_000_000 });
  s.agentReady({ name: 'bench' });
  s.sessionStarted('bench-session');
  // Earlier turns: finished calls, every one printed into history.
  for (let t = 0; t < calls / 20; t++) {
    s.beginTurn(`turn ${t}`);
    for (let i = 0; i < 20; i++) {
      const id = `t${t}-c${i}`;
      s.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: id, title: `Edit src/file${i}.ts`, kind: 'edit', status: 'completed', content: [{ type: 'diff', path: `/srv/proj/src/file${i}.ts`, oldText: OLD, newText: NEW }] });
    }
    s.endTurn('end_turn');
    s.settle();
  }
  // The current turn: one call with a diff (to toggle) and a message being streamed.
  s.beginTurn('now');
  s.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: 'live', title: 'Edit src/app.ts', kind: 'edit', status: 'completed', content: [{ type: 'diff', path: '/srv/proj/src/app.ts', oldText: OLD, newText: NEW }] });
  s.applyUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Streaming: ' } });
  return s;
}

interface Measure {
  frameMs: number;
  heapGrowthKbPerFrame: number;
  heapMb: number;
  toggleMs: number;
}

async function measure(calls: number, frames: number): Promise<Measure> {
  const store = session(calls);
  const { stdout, stdin, inst } = await renderFake(createElement(App, { store, controller: { send() {}, cancel() {}, quit() {} }, animate: false }));
  const chunk = () => store.applyUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'word ' } });
  // Warm-up, then timed frames: store update to the frame written.
  for (let i = 0; i < 50; i++) {
    const w = stdout.nextWrite();
    chunk();
    await w;
  }
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const times: number[] = [];
  for (let i = 0; i < frames; i++) {
    await new Promise((r) => setTimeout(r, 2)); // past the 1 ms throttle window
    const w = stdout.nextWrite();
    const t0 = performance.now();
    chunk();
    await w;
    times.push(performance.now() - t0);
  }
  gc();
  const heap1 = process.memoryUsage().heapUsed;
  // Toggle the live call's diff: Tab to the tool list, then Enter / Space, timed to the frame.
  stdin.write('\t');
  await new Promise((r) => setTimeout(r, 30));
  const toggles: number[] = [];
  for (let i = 0; i < 40; i++) {
    await new Promise((r) => setTimeout(r, 3));
    stdout.last = '';
    const w = stdout.nextWrite();
    const t0 = performance.now();
    stdin.write(i % 2 === 0 ? '\r' : ' ');
    await w;
    toggles.push(performance.now() - t0);
    // The frame is written in one synchronous burst; check it once the burst is over.
    if (i === 0) await new Promise((r) => setImmediate(r));
    if (i === 0 && !stdout.last.includes('const v7 = 700;')) throw new Error('the toggle did not expand the diff');
  }
  inst.unmount();
  store.dispose();
  return { frameMs: median(times), heapGrowthKbPerFrame: (heap1 - heap0) / 1024 / frames, heapMb: heap1 / 1024 / 1024, toggleMs: median(toggles) };
}

const FRAMES = Number(process.env.UI_BENCH_FRAMES ?? 300);
// This machine is shared and has two cores: alternate the two sizes and keep each one's best
// median, so a burst of load elsewhere does not land on one side only.
const runs: { small: Measure[]; large: Measure[] } = { small: [], large: [] };
for (let round = 0; round < 3; round++) {
  runs.small.push(await measure(20, FRAMES));
  runs.large.push(await measure(2000, FRAMES));
}
const best = (ms: Measure[]): Measure => ({
  frameMs: Math.min(...ms.map((m) => m.frameMs)),
  toggleMs: Math.min(...ms.map((m) => m.toggleMs)),
  heapGrowthKbPerFrame: Math.min(...ms.map((m) => m.heapGrowthKbPerFrame)),
  heapMb: Math.min(...ms.map((m) => m.heapMb)),
});
const large = best(runs.large);
const small = best(runs.small);
const ref = small;

report({ name: 'ui frame update, streaming, 2000-call history', ours: large.frameMs, reference: ref.frameMs, unit: 'ms', against: 'same with 20 calls', target: '<= 1.5x' });
report({ name: 'ui heap growth per frame, 2000-call history', ours: large.heapGrowthKbPerFrame, reference: small.heapGrowthKbPerFrame, unit: 'KiB/frame', against: 'same with 20 calls' });
report({ name: 'ui heap after streaming, 2000-call history', ours: large.heapMb, reference: small.heapMb, unit: 'MB', against: 'same with 20 calls' });
report({ name: 'ui keystroke to frame, toggle a diff, 2000-call history', ours: large.toggleMs, reference: ref.toggleMs, unit: 'ms', against: 'same with 20 calls', target: '<= 1.5x' });
