// The terminal UI's start, whole process, in a real terminal (tmux), under Node and under Deno:
// from launching `cxl` to a screen that shows its session (the agent spawned, initialized, session/new answered) and
// echoes what is typed then, against
// the built-in agent alone reaching the same point over stdio (spawn `cxl acp`, initialize,
// session/new). The difference is what the UI adds: its modules and the first frames.
// As a person runs it: colours on (so the UI asks the terminal for its background; tmux answers)
// and a model configured: an Ollama-like server on 127.0.0.1 that lists it, so the agent's
// model check finds it (and fetches its details) while the session opens.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { median, report } from './report.ts';

const deno = fileURLToPath(new URL('../node_modules/.bin/deno', import.meta.url));
/** How each runtime starts the cxl built in `root`: Node through bin/ (as `cxl` does), Deno on the bundle. */
const runtimes = (root: string): Record<string, string[]> => ({ node: [process.execPath, path.join(root, 'bin/cxl.js')], deno: [deno, 'run', '-A', path.join(root, 'dist/cli.js')] });
const RUNTIMES = runtimes(fileURLToPath(new URL('..', import.meta.url)));
// UI_START_BEFORE=DIR: another build (a checkout of an earlier commit, built) measured in the same
// run, its runs alternated with these, as a before/after row
const BEFORE = process.env.UI_START_BEFORE ? runtimes(path.resolve(process.env.UI_START_BEFORE)) : undefined;

if (spawnSync('tmux', ['-V']).status !== 0) {
  process.stderr.write('bench/ui_start: tmux is not installed (apt-get install tmux); no rows\n');
  process.exit(0);
}

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-bench-ui-')));
// the model's server: what `ollama serve` answers about a pulled model
const models = http.createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  if (req.url === '/api/tags') res.end(JSON.stringify({ models: [{ name: 'qwen3:8b', model: 'qwen3:8b' }] }));
  else if (req.url === '/api/show') res.end(JSON.stringify({ model_info: { 'qwen3.context_length': 40960 }, capabilities: ['completion', 'tools'] }));
  else res.end('{}');
});
await new Promise<void>((r) => models.listen(0, '127.0.0.1', r));
const vars: Record<string, string> = { HOME: base, XDG_DATA_HOME: path.join(base, 'data'), XDG_CONFIG_HOME: path.join(base, 'config'), OLLAMA_HOST: `127.0.0.1:${(models.address() as AddressInfo).port}`, OLLAMA_MODEL: 'qwen3:8b', COLORTERM: 'truecolor' };
const socket = `cxl-bench-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** tmux's control-mode `%output` payload: octal escapes for bytes below space and for `\\`. */
function unescapeOutput(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/** What the bench types once the session is shown: the UI is usable when it is echoed. */
const KEYS = 'zqxj';

/**
 * Milliseconds from exec'ing the UI to its status line naming a session and a key typed then
 * echoed. The pane's shell is
 * started first and waits on `read`; a control-mode client (one process, attached before the
 * clock starts) sends the Enter that execs cxl and reads what the pane prints as it is printed.
 * Polling `capture-pane` instead spawned a tmux client every few ms, a process that took one of
 * the two cores from the UI and its agent while they loaded, and counted tmux's server start too.
 */
async function uiStart(cxl: string[]): Promise<number> {
  const env = Object.entries(vars).map(([k, v]) => `${k}=${v}`);
  tmux('new-session', '-d', '-s', 'b', '-x', '100', '-y', '30', 'env', '-u', 'NO_COLOR', ...env, 'sh', '-c', `cd ${quote([base])} && read go && exec ${quote(cxl)}`);
  const ctl = spawn('tmux', ['-L', socket, '-C', 'attach', '-f', 'ignore-size', '-t', 'b'], { stdio: ['pipe', 'pipe', 'ignore'] });
  try {
    return await new Promise<number>((resolve, reject) => {
      let t0 = 0;
      let typed = false;
      let screen = '';
      let buf = '';
      const timer = setTimeout(() => reject(new Error(`the UI showed no session within 20 s:\n${tmux('capture-pane', '-p', '-t', 'b')}`)), 20_000);
      ctl.once('exit', (code) => reject(new Error(`tmux's control client exited ${code}`)));
      ctl.stdout.setEncoding('latin1').on('data', (d: string) => {
        buf += d;
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          // attached (the reply to the attach ends with %end): start the clock and press Enter
          if (t0 === 0 && line.startsWith('%end')) {
            t0 = performance.now();
            ctl.stdin.write('send-keys -t b Enter\n');
            continue;
          }
          const m = /^%output %\d+ (.*)$/.exec(line);
          if (!m || t0 === 0) continue;
          // the status line, its colour and cursor codes removed (Ink writes it whole)
          screen = (screen + unescapeOutput(m[1]).replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')).slice(-4000);
          // usable: the session is named, and then a key typed is echoed in the composer
          if (!typed && /session [0-9a-f]{8}/.test(screen)) {
            typed = true;
            screen = '';
            ctl.stdin.write(`send-keys -t b -l ${KEYS}\n`);
          } else if (typed && screen.includes(KEYS)) {
            clearTimeout(timer);
            resolve(performance.now() - t0);
          }
        }
      });
    });
  } finally {
    ctl.kill();
    tmux('kill-server');
  }
}

/** Milliseconds from spawning `cxl acp` to its session/new answer. */
function agentStart(cxl: string[]): Promise<number> {
  const t0 = performance.now();
  const env: Record<string, string | undefined> = { ...process.env, ...vars };
  delete env.NO_COLOR;
  const child = spawn(cxl[0], [...cxl.slice(1), 'acp'], { cwd: base, env, stdio: ['pipe', 'pipe', 'ignore'] });
  const send = (id: number, method: string, params: unknown) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  send(1, 'initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true } });
  return new Promise((resolve, reject) => {
    let out = '';
    let asked = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      // session/new only once initialize has answered, as a client must
      if (!asked && /"id":1,"result"/.test(out)) {
        asked = true;
        send(2, 'session/new', { cwd: base, mcpServers: [] });
      }
      if (/"id":2,"result"/.test(out)) {
        const ms = performance.now() - t0;
        child.kill('SIGKILL');
        resolve(ms);
      } else if (/"id":2,"error"/.test(out)) reject(new Error(`session/new failed: ${out}`));
    });
    child.once('exit', (code) => reject(new Error(`cxl acp exited ${code} before session/new answered: ${out}`)));
  });
}

try {
  for (const [runtime, cxl] of Object.entries(RUNTIMES).filter(([r]) => (process.env.UI_START_RUNTIMES ?? 'node,deno').split(',').includes(r))) {
    const builds: [string, string[]][] = [['', cxl], ...(BEFORE ? [[' before', BEFORE[runtime]] as [string, string[]]] : [])];
    // a warm-up of each (code cache, page cache), then all alternated so a busy machine slows
    // each alike (the UI's clock starts at the Enter that execs it, the agent's at its spawn)
    for (const [, c] of builds) {
      await uiStart(c);
      await agentStart(c);
    }
    const ui = builds.map((): number[] => []);
    const agent = builds.map((): number[] => []);
    for (let i = 0; i < Number(process.env.UI_START_RUNS ?? 9); i++) {
      // each build first in turn: the first of a round is not always the same one
      for (let j = 0; j < builds.length; j++) {
        const k = (i + j) % builds.length;
        ui[k].push(await uiStart(builds[k][1]));
        agent[k].push(await agentStart(builds[k][1]));
      }
    }
    for (const [k, [label]] of builds.entries()) {
      if (process.env.UI_START_ALL) process.stderr.write(`${runtime}${label}: UI ${ui[k].map((x) => x.toFixed(0)).join(' ')}; agent ${agent[k].map((x) => x.toFixed(0)).join(' ')}\n`);
      report({ name: `cxl UI start to a session and a key echoed (tmux, ${runtime})${label}`, ours: median(ui[k]), reference: median(agent[k]), unit: 'ms', against: 'cxl acp to its session/new answer', target: '< 1.5x' });
    }
  }
} finally {
  try {
    tmux('kill-server');
  } catch {
    /* none left */
  }
  fs.rmSync(base, { recursive: true, force: true });
  models.close();
}
