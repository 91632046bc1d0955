// The composer and the transcript under load: keystroke to frame in the real App with 20,000
// earlier prompts and the Ctrl+R search open (typing narrows it, Backspace widens it), against
// plain typing with the same history (the absolute target is one 60 Hz frame, 16 ms); and laying
// out a 2,000-line answer of highlighted code against the same lines as plain text, both as
// history prints it (once, whole) and as the live region redraws it per streamed chunk (its tail).
import process from 'node:process';
import { frameAfter, renderFake } from './ink_harness.ts';
import { median, p95, report, timeMs } from './report.ts';

// As `cxl` runs it: React's production build (set before React loads), no colour.
process.env.NODE_ENV ??= 'production';
process.env.FORCE_COLOR = '0';
const { createElement } = await import('react');
const { ClientStore } = await import('../src/client/state.ts');
const { App } = await import('../src/ui/App.tsx');
const { adoptSaved } = await import('../src/ui/composer.ts');
const { loadHighlighter } = await import('../src/ui/highlight.ts');
const { loadMarkdown, markdownRows, markdownTail } = await import('../src/ui/markdown.ts');

const PROMPTS = 20_000;



/** 20,000 prompts as a project's history holds them: varied words, some over several lines, accents. */
function prompts(): { text: string }[] {
  const words = ['fix', 'the', 'parser', 'módulo', 'tests', 'refactor', 'lexer', 'src/app.ts', 'why', 'does', 'build', 'fail', 'rename', 'helper', 'docs', 'cache'];
  return Array.from({ length: PROMPTS }, (_, i) => {
    const n = 4 + (i % 9);
    const line = Array.from({ length: n }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' ');
    return { text: i % 5 === 0 ? `${line}\n${line} again\nand a third line ${i}` : `${line} ${i}` };
  });
}

async function keystrokes(search: boolean, initial: ReturnType<typeof adoptSaved>): Promise<number[]> {
  const store = new ClientStore({ label: 'bench', cwd: '/bench', settleMs: 1_000_000 });
  store.agentReady({ name: 'bench' });
  store.sessionStarted('bench-session');
  const { stdout, stdin, inst } = await renderFake(createElement(App, { store, controller: { send() {}, cancel() {}, quit() {} }, animate: false, initial }));
  const press = (k: string) => frameAfter(stdout, JSON.stringify(k), () => stdin.write(k));
  if (search) await press('\u0012'); // Ctrl+R
  // no space at the end: a trailing space changes no frame without colour
  const word = search ? 'módulo' : 'plainw';
  const times: number[] = [];
  for (let round = 0; round < 6; round++) {
    for (const ch of word) times.push(await press(ch));
    if (round === 0 && search && !stdout.last.includes('search prompts: módulo')) throw new Error('the search is not on screen');
    for (let i = 0; i < word.length; i++) times.push(await press('\u007F'));
  }
  inst.unmount();
  store.dispose();
  return times.slice(4);
}

// 1. Keystroke to frame, Ctrl+R open over 20,000 prompts, against typing with the same history.
const initial = adoptSaved(prompts());
const open: number[][] = [];
const plain: number[][] = [];
for (let i = 0; i < 3; i++) {
  open.push(await keystrokes(true, initial));
  plain.push(await keystrokes(false, initial));
}
const best = (runs: number[][], f: (a: number[]) => number) => Math.min(...runs.map(f));
report({ name: 'keystroke to frame, Ctrl+R open over 20,000 prompts (median)', ours: best(open, median), reference: best(plain, median), unit: 'ms', against: 'typing, same history', target: '< 16 ms' });
report({ name: 'keystroke to frame, Ctrl+R open over 20,000 prompts (p95)', ours: best(open, p95), reference: best(plain, p95), unit: 'ms', against: 'typing, same history', target: '< 16 ms' });

// 2. A 2,000-line answer: highlighted TypeScript fences against the same lines as plain text.
await Promise.all([loadHighlighter(), loadMarkdown()]);
const code = Array.from({ length: 2000 }, (_, i) => (i % 40 === 0 ? '```' : i % 40 === 1 ? '```ts' : `  const value${i} = compute("item ${i}", ${i}) + offset; // step ${i}`));
const fenced = ['Here is the change:', '', '```ts', ...code.slice(2), '```'].join('\n');
const plainText = fenced.replace(/^```.*$/gm, '');
report({ name: '2,000-line highlighted answer, laid out whole for history', ours: await timeMs(() => markdownRows(fenced, 120, {}, { soft: true }), 5), reference: await timeMs(() => markdownRows(plainText, 120, {}, { soft: true }), 5), unit: 'ms', against: 'the same lines as plain text' });
report({ name: '2,000-line highlighted answer, one streamed frame (the tail)', ours: await timeMs(() => markdownTail(fenced, 120, 30), 20), reference: await timeMs(() => markdownTail(plainText, 120, 30), 20), unit: 'ms', against: 'the same lines as plain text', target: '< 16 ms' });
