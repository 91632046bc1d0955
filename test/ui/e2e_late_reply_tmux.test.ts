// A terminal (or an ssh link) that answers the start-up queries after the UI stopped waiting:
// its answers reach the screen's input once the session shows, whole or cut across reads, with
// BEL or ST at their end. End to end in tmux, under the runtime running this test, colours on:
// the composer stays empty (no `]11;rgb:…`, no Alt+], no Ctrl+G from the BEL opening the
// editor), and keys typed after them land as typed.
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
const ESC = '\u001B';
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The late answers, each as pieces the terminal's link delivers apart. */
const LATE: { what: string; pieces: string[] }[] = [
  { what: 'OSC 11 with BEL and DA1, in one read', pieces: [`${ESC}]11;rgb:ffff/ffff/ffff\u0007${ESC}[?64;1;2;6;22c`] },
  { what: 'OSC 11 with ST and DA1, cut in three', pieces: [`${ESC}]11;rgb:0000/`, `0000/0000${ESC}\\${ESC}[?6`, '4;1c'] },
  // (cut right after the ESC, the rest must come within the Esc bound: the unit tests time that)
  { what: 'OSC 11 cut after its first digit', pieces: [`${ESC}]1`, `1;rgb:1e1e/1e1e/1e1e\u0007`] },
  { what: 'DCS (XTVERSION), focus out and in, a cursor position report', pieces: [`${ESC}P>|xterm(390)${ESC}\\${ESC}[O${ESC}[I${ESC}[12;40R`] },
];

test(`late terminal answers in tmux (${runtimeName}): never typed into the composer, keys after them intact`, { timeout: 120_000 }, async () => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-e2e-late-reply-')));
  const tmux = new Tmux();
  try {
    // colours on, as a person's setup; an editor that does nothing, should a BEL read as Ctrl+G
    const env = ['-u', 'NO_COLOR', 'COLORTERM=truecolor', 'EDITOR=true', 'VISUAL=true', `XDG_DATA_HOME=${dir}/.data`, `XDG_CONFIG_HOME=${dir}/.config`];
    tmux.start(dir, [...cxlCommand(), '--agent', quote(moduleCommand(fixture))], env, path.join(dir, '.rc'), 100, 30);
    await tmux.waitFor(SESSION, 'the session');
    let typed = '';
    for (const [i, { what, pieces }] of LATE.entries()) {
      for (const [k, piece] of pieces.entries()) {
        if (k > 0) await pause(40);
        tmux.write(piece);
      }
      // time for a wrong key to show (and a held sequence to be decided)
      await pause(700);
      const screen = tmux.screen();
      assert.doesNotMatch(screen, /rgb:|\]11|64;1|xterm\(|12;40R|>\|/, `${what}: no part of the answer on screen:\n${screen}`);
      const word = `w${i}`;
      tmux.type(word);
      typed += word;
      await tmux.waitFor(new RegExp(`› ${typed}\\s*$`, 'm'), `${what}: the keys typed after it (${typed}), and nothing else, in the composer`, 10_000);
    }
  } finally {
    tmux.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
