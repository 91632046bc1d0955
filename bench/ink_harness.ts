// The real App rendered by Ink into a fake terminal, for the UI benchmarks: a stdout that keeps
// the last writes and says when the next one comes, the shared fake stdin, and the time from an
// act to the frame it causes. Ink is imported on first render, so a benchmark can set
// NODE_ENV=production (React's build, as `cxl` runs it) before React loads.
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { ReactElement } from 'react';
import { FakeStdin } from '../test/ui/fake_stdin.ts';

export class FakeStdout extends EventEmitter {
  columns = 120;
  rows = 40;
  isTTY = true;
  last = '';
  waiters: (() => void)[] = [];
  write = (s: string) => {
    this.last += s;
    if (this.last.length > 1e6) this.last = this.last.slice(-1e5);
    for (const w of this.waiters.splice(0)) w();
    return true;
  };
  nextWrite(): Promise<void> {
    return new Promise((r) => this.waiters.push(r));
  }
}

/** Renders `element` into a fake terminal and waits for its first frames; `maxFps` as `cxl` passes none is Ink's 30. */
export async function renderFake(element: ReactElement, opts: { maxFps?: number } = {}) {
  const { render } = await import('ink');
  // as in `cxl` a moment after its first frame: answers are laid out as markdown
  await (await import('../src/ui/markdown.ts')).loadMarkdown();
  const stdout = new FakeStdout();
  const stdin = new FakeStdin();
  const inst = render(element, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    stderr: new FakeStdout() as unknown as NodeJS.WriteStream,
    exitOnCtrlC: false,
    patchConsole: false,
    maxFps: opts.maxFps ?? 1000,
  });
  await new Promise((r) => setTimeout(r, 50));
  return { stdout, stdin, inst };
}

/** Milliseconds from `act` to the next frame written (after the render throttle); fails after 5 s with the screen. */
export async function frameAfter(stdout: FakeStdout, what: string, act: () => void): Promise<number> {
  await new Promise((r) => setTimeout(r, 3)); // past the render throttle
  const w = stdout.nextWrite();
  const t0 = performance.now();
  act();
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([w, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no frame after ${what}; screen: ${stdout.last.slice(-600)}`)), 5000)))]);
  clearTimeout(timer);
  return performance.now() - t0;
}
