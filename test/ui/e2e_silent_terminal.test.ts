// A terminal that never answers the colour and device queries (a pty of `script`, which passes
// bytes and answers nothing), under the runtime running this test: the first frame is not held by
// the unanswered query beyond its timeout, and a key typed while the query waits reaches the
// composer with one typed after the session shows.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { moduleCommand, runtimeName } from '../../src/core/platform/runtime.ts';
import { cxlCommand } from '../helpers/cxl.ts';

const fixture = fileURLToPath(new URL('../fixtures/scripted_agent.ts', import.meta.url));
const QUERY = '\u001B]11;?';
const SESSION = /session sess-\d/;

/** Milliseconds from spawning cxl on a silent terminal to its session's frame (`color`: the UI asks for the background). */
function start(dir: string, color: boolean): Promise<number> {
  const env: Record<string, string | undefined> = { ...process.env, TERM: 'xterm-256color', XDG_DATA_HOME: `${dir}/.data`, XDG_CONFIG_HOME: `${dir}/.config` };
  if (color) delete env.NO_COLOR;
  else env.NO_COLOR = '1';
  const cmd = `stty cols 100 rows 30; exec ${quote([...cxlCommand(), '--agent', quote(moduleCommand(fixture))])}`;
  const t0 = Date.now();
  const child = spawn('script', ['-qfec', cmd, '/dev/null'], { cwd: dir, env, stdio: ['pipe', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let asked = false;
    let ms = 0;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no session and keys within 20 s; the output was:\n${out}`));
    }, 20_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      // a key typed while the query waits for an answer that never comes (with no query: at once)
      if (!asked && (out.includes(QUERY) || !color)) {
        asked = true;
        child.stdin.write('k');
      }
      const text = out.replace(/\u001B\[[0-9;?]*[A-Za-z]/g, '');
      if (ms === 0 && SESSION.test(text)) {
        ms = Date.now() - t0;
        child.stdin.write('m');
      }
      if (ms !== 0 && /› km/.test(text)) {
        clearTimeout(timer);
        // the terminal closed: the UI takes its hang-up and ends with its agent
        child.once('exit', () => resolve(ms));
        child.kill('SIGKILL');
      }
    });
    child.once('error', reject);
  });
}

test(`silent terminal (${runtimeName}): the unanswered colour query holds the first frame no longer than its timeout, and a key typed meanwhile is kept`, { timeout: 120_000 }, async (t) => {
  if (spawnSync('script', ['--version']).status !== 0) {
    t.diagnostic('`script` (util-linux) is not installed: apt-get install util-linux');
    assert.fail('this test needs `script` (util-linux) for a terminal that never answers');
  }
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-e2e-silent-')));
  try {
    // alternated with starts under NO_COLOR (no query at all), the best of two each: the machine's load slows each alike
    const silent: number[] = [];
    const none: number[] = [];
    for (let i = 0; i < 2; i++) {
      silent.push(await start(dir, true));
      none.push(await start(dir, false));
    }
    // the query gives up after 300 ms, sent before the screen's modules load; a query that held the
    // frame for an answer (or a long timeout) would be seconds behind
    const extra = Math.min(...silent) - Math.min(...none);
    t.diagnostic(`session frame: silent terminal ${silent.join(', ')} ms; no query ${none.join(', ')} ms`);
    assert.ok(extra < 1_000, `the silent terminal's session frame came ${extra} ms after the one with no query (${silent.join(', ')} against ${none.join(', ')} ms)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
