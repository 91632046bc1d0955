// Renders an Ink tree into fake streams of a chosen size, on Node and Deno alike (the same
// design as ink-testing-library, with the width and height as parameters).
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { render } from 'ink';
import type { ReactElement } from 'react';
import type { ClientState } from '../../src/client/state.ts';
import { FakeStdin } from './fake_stdin.ts';

class FakeStdout extends EventEmitter {
  frames: string[] = [];
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }
  isTTY = true;
  write = (frame: string) => {
    this.frames.push(frame);
    return true;
  };
}

export interface Rendered {
  lastFrame(): string;
  press(...keys: string[]): Promise<void>;
  resize(columns: number, rows: number): Promise<void>;
  unmount(): void;
  stdout: FakeStdout;
}

// long enough for a frame: store changes are drawn at most once per FRAME_MS (src/ui/frame_budget.ts)
export const tick = (ms = 50) => new Promise((r) => setTimeout(r, ms));

/**
 * For tests about which key does what (not about when an approval takes answers, which the
 * arming tests cover with the real delays): an approval takes keys as soon as it is drawn.
 */
export const NO_ARMING = { armMs: 0, quietMs: 0 };

export function renderAt(tree: ReactElement, columns: number, rows = 40): Rendered {
  const stdout = new FakeStdout(columns, rows);
  const stdin = new FakeStdin();
  const inst = render(tree, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: new FakeStdout(columns, rows) as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  return {
    stdout,
    lastFrame: () => stdout.frames[stdout.frames.length - 1] ?? '',
    async press(...keys: string[]) {
      // Each key: wait for the frame it causes (or a short while, for keys that change nothing),
      // so a loaded machine does not turn into a flaky test.
      for (const k of keys) {
        const before = stdout.frames.length;
        stdin.write(k);
        const deadline = Date.now() + 150;
        while (stdout.frames.length === before && Date.now() < deadline) await tick(3);
        await tick(3);
      }
    },
    async resize(c: number, r: number) {
      stdout.columns = c;
      stdout.rows = r;
      stdout.emit('resize');
      await tick();
    },
    unmount: () => inst.unmount(),
  };
}

export const KEY = {
  enter: '\r',
  esc: '\u001B',
  tab: '\t',
  up: '\u001B[A',
  down: '\u001B[B',
  ctrlC: '\u0003',
  ctrlD: '\u0004',
  ctrlO: '\u000F',
  ctrlL: '\u000C',
  ctrlT: '\u0014',
  shiftTab: '\u001B[Z',
  pageUp: '\u001B[5~',
  pageDown: '\u001B[6~',
  altEnter: '\u001B\r',
  backspace: '\u007F',
  space: ' ',
  pasteStart: '\u001B[200~',
  pasteEnd: '\u001B[201~',
};

/** Waits until an agent's client state satisfies `pred` (then a little more for the frame), failing after `ms`. */
export async function until(c: { store: { getState(): ClientState } }, pred: (s: ClientState) => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred(c.store.getState())) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await tick(10);
  }
  await tick(30);
}

/** Waits for a frame matching `re` and returns it; on a timeout the failure shows the last frame. */
export async function frameMatching(r: Rendered, re: RegExp, what: string, ms = 10_000): Promise<string> {
  const end = Date.now() + ms;
  while (!re.test(r.lastFrame())) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what} (${re}); the frame was:\n${r.lastFrame()}`);
    await tick(10);
  }
  return r.lastFrame();
}
