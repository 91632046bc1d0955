// The early agent (src/cli/early_agent.ts) is spawned before the UI loads: it must read a command
// line as src/cli/ui.ts does (the agent's flags in the same order, the same directory), and spawn
// nothing for a command line it does not know (the UI then spawns, or refuses, as before). Under
// Deno it is spawned with Deno's own API, before Deno's Node layer loads.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { cxlCommand } from '../helpers/cxl.ts';
import { exitCode, Tmux } from '../helpers/tmux.ts';
import { runtimeBinary, runtimeName } from '../../src/core/platform/runtime.ts';
import { adoptEarlyAgent, builtinAgentArgv } from '../../src/cli/ui.ts';
import { spawnEarlyAgentDeno, type DenoHost } from '../../src/cli/early_agent.ts';
import { nodeEarlyAgentPlan as plan } from '../../src/cli/early_agent_node.ts';
/** From `acp` on: the part of the command line that does not depend on the runtime's loader flags. */
const fromAcp = (argv: string[]) => argv.slice(argv.indexOf('acp'));

test('the agent command line is the one the UI builds, flags in its order', () => {
  const cases: [string[], Parameters<typeof builtinAgentArgv>[0]][] = [
    [[], {}],
    [['fix the bug'], {}],
    [['--model', 'm1', '--provider', 'openai'], { model: 'm1', provider: 'openai' }],
    [['--envelope=plan', '--trust-project', '--continue'], { envelope: 'plan', trustProject: true }],
    [['--resume', 'abc', '--model=x', 'do it now'], { model: 'x' }],
    [['--resume', '--envelope', 'e'], { envelope: 'e' }],
  ];
  for (const [argv, opts] of cases) {
    const p = plan(argv);
    assert.ok(p, JSON.stringify(argv));
    assert.deepEqual(fromAcp(p.argv), fromAcp(builtinAgentArgv(opts)), JSON.stringify(argv));
    assert.equal(p.argv[0], process.execPath);
    assert.equal(p.cwd, fs.realpathSync(process.cwd()));
    // what Deno's early spawn runs: under Deno (where src/cli.ts calls it) the whole command line is the UI's
    const spawned = denoSpawn(argv);
    assert.ok(spawned.command, JSON.stringify(argv));
    assert.deepEqual(fromAcp(spawned.command.argv), fromAcp(builtinAgentArgv(opts)), JSON.stringify(argv));
    if (runtimeName === 'deno') assert.deepEqual(spawned.command.argv, builtinAgentArgv(opts), JSON.stringify(argv));
    else assert.deepEqual(spawned.command.argv.slice(0, 5), [runtimeBinary(), 'run', '-A', '--no-check', path.resolve(process.argv[1])]);
  }
});

interface Recorded {
  argv: string[];
  opts: { cwd: string; env: Record<string, string>; clearEnv: boolean; detached: boolean; stdin: string; stdout: string; stderr: string };
}

/**
 * spawnEarlyAgentDeno with this process's real directory, entry and environment, a terminal on
 * both ends unless told otherwise, and a Command that records what it would run (nothing runs:
 * test/client/connection/agent_process_adopt.test.ts drives a real process through the same adoption).
 */
function denoSpawn(args: string[], o: { terminal?: boolean; mainModule?: string; fails?: boolean } = {}): { command?: Recorded; early?: Record<string, unknown>; unrefs: number } {
  let command: Recorded | undefined;
  let unrefs = 0;
  const host: DenoHost = {
    args,
    mainModule: o.mainModule ?? pathToFileURL(path.resolve(process.argv[1])).href,
    execPath: () => runtimeBinary(),
    realPathSync: (p) => fs.realpathSync(p),
    statSync: (p) => ({ isDirectory: fs.statSync(p).isDirectory() }),
    env: { toObject: () => ({ ...process.env }) as Record<string, string> },
    stdin: { isTerminal: () => o.terminal ?? true },
    stdout: { isTerminal: () => o.terminal ?? true },
    Command: class {
      constructor(cmd: string, opts: Recorded['opts'] & { args: string[] }) {
        if (o.fails) throw Object.assign(new Error(`Failed to spawn '${cmd}': No such file or directory`), { code: 'ENOENT' });
        const { args: rest, ...kept } = opts;
        command = { argv: [cmd, ...rest], opts: kept };
      }
      spawn() {
        return { pid: 0, stdin: new WritableStream(), stdout: new ReadableStream(), stderr: new ReadableStream(), status: new Promise<{ code: number; signal: string | null }>(() => {}), kill() {}, ref() {}, unref: () => void unrefs++ };
      }
    },
  };
  const key = Symbol.for('cxl.earlyAgent');
  const g = globalThis as Record<symbol, Record<string, unknown> | undefined>;
  spawnEarlyAgentDeno(host);
  const early = g[key];
  delete g[key];
  return { command, early, unrefs };
}

test("Deno's early spawn: the agent in its own process group, with exactly this environment, unref'd until adopted", () => {
  const { command, early, unrefs } = denoSpawn(['--envelope', 'plan', 'fix the bug']);
  assert.ok(command && early);
  assert.equal(command.opts.cwd, fs.realpathSync(process.cwd()));
  assert.deepEqual(command.opts.env, { ...process.env });
  assert.equal(command.opts.clearEnv, true, 'the environment the UI compares, not that merged with Deno\'s');
  assert.equal(command.opts.detached, true);
  assert.deepEqual([command.opts.stdin, command.opts.stdout, command.opts.stderr], ['piped', 'piped', 'piped']);
  assert.deepEqual(early.argv, command.argv);
  assert.equal(early.cwd, command.opts.cwd);
  assert.equal(unrefs, 1, 'a UI that ends before adopting it is not held open');
});

test("Deno's early spawn spawns nothing without a terminal, for another command line, a remote entry, or a binary that cannot start", () => {
  assert.equal(denoSpawn([], { terminal: false }).command, undefined);
  assert.equal(denoSpawn(['acp']).command, undefined);
  assert.equal(denoSpawn(['--agent', 'x']).command, undefined);
  assert.equal(denoSpawn([], { mainModule: 'https://example.com/cli.js' }).command, undefined);
  const failed = denoSpawn([], { fails: true });
  assert.equal(failed.early, undefined, 'the UI spawns it again and reports why');
});

test('--cwd is resolved as the UI resolves it; a missing one spawns nothing', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-early-'));
  try {
    assert.equal(plan(['--cwd', dir])?.cwd, fs.realpathSync(dir));
    assert.equal(plan([`--cwd=${dir}`])?.cwd, fs.realpathSync(dir));
    assert.equal(plan(['--cwd', path.join(dir, 'nope')]), undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('anything but the built-in agent UI with flags it knows spawns nothing', () => {
  for (const argv of [['--agent', 'x'], ['--help'], ['-h'], ['-v'], ['--version'], ['-p', 'x'], ['acp'], ['fix'], ['--frobnicate'], ['--model'], ['--model', '--continue'], ['--continue=1']]) {
    assert.equal(plan(argv), undefined, JSON.stringify(argv));
  }
});

test('the UI adopts only the agent it would have spawned, and kills another', async () => {
  const key = Symbol.for('cxl.earlyAgent');
  const env = { A: '1' };
  const spawned = () => {
    const { spawn } = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
    return spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  };
  const g = globalThis as Record<symbol, unknown>;
  const child = spawned();
  g[key] = { argv: ['a', 'acp'], cwd: '/x', env, child };
  assert.equal(adoptEarlyAgent(['a', 'acp'], '/x', { A: '1' })?.child, child);
  assert.equal(g[key], undefined, 'taken once');
  child.kill('SIGKILL');
  const other = spawned();
  const gone = new Promise((r) => other.once('exit', r));
  g[key] = { argv: ['a', 'acp'], cwd: '/x', env, child: other };
  assert.equal(adoptEarlyAgent(['a', 'acp', '--model', 'm'], '/x', env), undefined);
  await gone;
  assert.equal(adoptEarlyAgent(['a', 'acp'], '/x', env), undefined, 'nothing left to adopt');
});

test(`a UI that refuses its command line after the early agent was spawned exits at once (${runtimeName}, tmux), and the agent with it`, { timeout: 30_000 }, async () => {
  // --continue with --resume: both read by the early spawn, refused by the UI before it adopts
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-early-')));
  const rcFile = path.join(dir, '.rc');
  const tmux = new Tmux();
  try {
    tmux.start(dir, [...cxlCommand(), '--continue', '--resume', 'abc'], ['NO_COLOR=1', `XDG_DATA_HOME=${dir}/.data`, `XDG_CONFIG_HOME=${dir}/.config`], rcFile);
    assert.equal(await exitCode(rcFile, 10_000), '2', 'the usage error exits; the early agent\'s pipes no longer hold it open');
    assert.match(tmux.screen(), /--continue and --resume both pick the session/);
    // the agent read its stdin's end and left: no `acp` process has this directory as its own
    const agentsHere = () =>
      fs.readdirSync('/proc').filter((pid) => {
        try {
          return /^\d+$/.test(pid) && fs.readlinkSync(`/proc/${pid}/cwd`) === dir && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('acp');
        } catch {
          return false; // gone meanwhile
        }
      });
    const deadline = Date.now() + 5_000;
    while (agentsHere().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(agentsHere(), []);
  } finally {
    tmux.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the early agent reads exactly the flags the table marks `read`, and passes on those it marks `toAgent`', async () => {
  const { UI_FLAGS } = await import('../../src/cli/ui_flags.ts');
  for (const f of UI_FLAGS) {
    const argv = f.type === 'string' ? [`--${f.name}`, f.name === 'cwd' ? '.' : 'v'] : [`--${f.name}`];
    const p = plan(argv);
    assert.equal(p !== undefined, f.early === 'read', `${f.name}: ${JSON.stringify(p)}`);
    if (p) assert.deepEqual(fromAcp(p.argv).slice(1), f.toAgent ? argv : [], f.name);
  }
});
