// The UI's CPU per streamed chunk: one answer (markdown with a list, a table and code fences,
// ~40,000 characters) sent by an agent process in 2,000 and 20,000 chunks (UI_STREAM_SIZES),
// against the same text as one chunk in the same run. The UI is this process: the real client
// (the SDK reading the agent's pipe), store, App and Ink into a fake terminal, as a person runs
// `cxl`: React's production build, Ink's 30 frames a second, colours on (FORCE_COLOR,
// hyperlinks), the spinner turning, a model named on the status line. CPU is this process's
// (user + system) from sending the prompt to the frame that shows the answer's last word.
// `UI_STREAM_PROFILE=DIR` writes a .cpuprofile of each size's first run there.
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { moduleCommand } from '../src/core/platform/runtime.ts';
import { renderFake } from './ink_harness.ts';
import { median, report } from './report.ts';

process.env.NODE_ENV ??= 'production';
process.env.FORCE_COLOR = '3';
delete process.env.NO_COLOR;
const { createElement } = await import('react');
const { AcpClient } = await import('../src/client/acp_client.ts');
const { App } = await import('../src/ui/App.tsx');
await (await import('../src/ui/highlight.ts')).loadHighlighter();

const END = 'the-last-word-of-the-answer';
const agent = fileURLToPath(new URL('./acp_echo_agent.ts', import.meta.url));
let frames = 0;

/** ~40,000 characters of the markdown a coding agent writes; ends with END. */
function answer(): string {
  const part = (i: number) =>
    [
      `## Step ${i}: what changes in \`src/part${i}.ts\``,
      '',
      `The function **parse${i}** reads the *whole* input before it checks the header, so a large file costs memory it does not need. See [the notes](https://example.com/notes/${i}) for why.`,
      '',
      `- read the header first (\`readHeader\`)`,
      `- stop at the first bad line`,
      `  - and say which line it was`,
      '',
      '| file | lines | change |',
      '|---|---:|---|',
      `| src/part${i}.ts | ${100 + i} | header first |`,
      `| test/part${i}.test.ts | ${40 + i} | new case |`,
      '',
      '```ts',
      `export function parse${i}(input: string): Header {`,
      `  const end = input.indexOf('\\n');`,
      `  if (end < 0) throw new Error('no header in ' + JSON.stringify(input.slice(0, 40)));`,
      `  return { name: input.slice(0, end).trim(), size: ${i} * 1024 };`,
      '}',
      '```',
      '',
    ].join('\n');
  let text = '';
  for (let i = 0; text.length < 39_900; i++) text += part(i);
  return `${text}That is all: ${END}`;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * CPU ms of this process (the UI: client, store, App, Ink) from sending the prompt to the frame
 * that shows the answer's last word, the agent sending it in `n` chunks.
 */
async function run(n: number, profile?: string): Promise<number> {
  const client = new AcpClient({ argv: moduleCommand(agent), label: 'cxl acp', builtin: true, model: 'qwen3:8b', cwd: dir, settleMs: 1_000_000 });
  await client.start();
  while (client.sessionId === undefined) await new Promise((r) => setTimeout(r, 5));
  // Ink's frame rate as `cxl` renders (it passes no maxFps: 30)
  const { stdout, inst } = await renderFake(createElement(App, { store: client.store, controller: client }), { maxFps: 30 });
  let seen = false;
  const write = stdout.write;
  stdout.write = (s: string) => {
    frames++;
    if (s.includes(END)) seen = true;
    return write(s);
  };
  await new Promise((r) => setTimeout(r, 50));
  let session: import('node:inspector').Session | undefined;
  if (profile) {
    const inspector = await import('node:inspector');
    session = new inspector.Session();
    session.connect();
    await new Promise<void>((r) => session!.post('Profiler.enable', () => session!.post('Profiler.start', () => r())));
  }
  const shown = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${n} chunks not shown within 300 s`)), 300_000);
    const check = () => {
      if (seen) {
        clearTimeout(timer);
        resolve();
      } else stdout.nextWrite().then(check);
    };
    stdout.nextWrite().then(check);
  });
  frames = 0;
  const t0 = performance.now();
  const c0 = cpuMs();
  client.send(`stream ${n} ${textFile}`);
  await shown;
  const used = cpuMs() - c0;
  if (process.env.UI_STREAM_VERBOSE) process.stderr.write(`  ${n} chunks: ${used.toFixed(0)} ms CPU in ${(performance.now() - t0).toFixed(0)} ms, ${frames} writes\n`);
  if (session && profile) {
    const s = session;
    await new Promise<void>((r) =>
      s.post('Profiler.stop', (err, res) => {
        if (!err) fs.writeFileSync(profile, JSON.stringify(res.profile));
        r();
      }),
    );
    s.disconnect();
  }
  inst.unmount();
  await client.close();
  return used;
}

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-bench-stream-')));
const textFile = path.join(dir, 'answer.md');
fs.writeFileSync(textFile, answer());
const profileDir = process.env.UI_STREAM_PROFILE;
const ROUNDS = Number(process.env.UI_STREAM_ROUNDS ?? 3);
const SIZES = (process.env.UI_STREAM_SIZES ?? '2000,20000').split(',').map(Number);
try {
  await run(1); // warm-up
  for (const n of SIZES) {
    // alternated with the one-chunk reference, medians (a loaded machine)
    const ours: number[] = [];
    const ref: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      ours.push(await run(n, profileDir && r === 0 ? path.join(profileDir, `ui_stream_${n}.cpuprofile`) : undefined));
      ref.push(await run(1));
    }
    const o = median(ours);
    const f = median(ref);
    const per = (o / n) * 1000;
    process.stderr.write(`${n} chunks: ${o.toFixed(0)} ms CPU, ${per.toFixed(0)} µs per chunk; the same text as one chunk: ${f.toFixed(0)} ms (${(o / f).toFixed(2)}x)\n`);
    report({ name: `ui CPU to show an answer streamed in ${n.toLocaleString('en-US')} chunks (${per.toFixed(0)} µs/chunk)`, ours: o, reference: f, unit: 'ms', against: 'same text as one chunk', target: '<= 3x' });
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
