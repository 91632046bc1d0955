// Keys typed at start end to end in a real terminal (tmux, which answers the colour and device
// queries), under the runtime running this test, colours on: keys typed before the first frame,
// while the terminal's background is asked, and the moment the session shows all reach the
// composer, in order (issue 44: under Deno a start now and then never echoed keys typed as the
// session showed). Every other start types only as the session shows, as bench/ui_start does.
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { moduleCommand, runtimeName } from '../../src/core/platform/runtime.ts';
import { cxlCommand } from '../helpers/cxl.ts';
import { Tmux } from '../helpers/tmux.ts';

const fixture = fileURLToPath(new URL('../fixtures/scripted_agent.ts', import.meta.url));
const SESSION = /scripted-agent · .*mode Ask/;
/** Starts run; a lost key showed in about 1 start in 30, so one start proves little. */
const STARTS = 6;

test(`early keys in tmux (${runtimeName}): keys typed before the first frame and as the session shows are all echoed, colours on`, { timeout: 240_000 }, async () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-e2e-early-keys-')));
  try {
    for (let i = 0; i < STARTS; i++) {
      const tmux = new Tmux();
      try {
        // colours on: the UI asks the terminal for its background at start, the moment keys were lost
        const env = ['-u', 'NO_COLOR', 'COLORTERM=truecolor', `XDG_DATA_HOME=${dir}/.data`, `XDG_CONFIG_HOME=${dir}/.config`];
        tmux.start(dir, [...cxlCommand(), '--agent', quote(moduleCommand(fixture))], env, path.join(dir, '.rc'), 100, 30);
        let typed = '';
        let screen = '';
        // from the process's first moment (before the first frame, while the terminal's background
        // is asked) to the session, a letter every ~40 ms; or none until the session
        const early = i % 2 === 0;
        for (let k = 0; !SESSION.test(screen); k++) {
          assert.ok(k < 500, `no session within the start's keys; the screen was:\n${screen}`);
          if (early) {
            const key = String.fromCharCode(97 + (k % 26));
            tmux.type(key);
            typed += key;
          }
          await new Promise((r) => setTimeout(r, 40));
          screen = tmux.screen();
        }
        // the moment the session shows, then once more at once
        tmux.type('XY');
        tmux.type('Z');
        typed += 'XYZ';
        // the composer wraps at the width: compare its text with the line breaks taken out
        const composer = () => tmux.screen().replace(/\n {2}/g, '');
        await tmux.waitFor(new RegExp(`› ${typed}`), `every key typed (${typed}) in the composer, in order`, 10_000, composer);
      } finally {
        tmux.kill();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
