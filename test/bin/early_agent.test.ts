// bin/early_agent.js spawns the built-in agent before the UI loads: it must read a command line
// as src/cli/ui.ts does (the agent's flags in the same order, the same directory), and spawn
// nothing for a command line it does not know (the UI then spawns, or refuses, as before).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { test } from 'node:test';
import { adoptEarlyAgent, builtinAgentArgv } from '../../src/cli/ui.ts';

const { plan } = createRequire(import.meta.url)('../../bin/early_agent.js') as { plan: (argv: string[]) => { argv: string[]; cwd: string } | undefined };
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
    // under Deno (src/cli.ts spawns it there) no loader flags differ: the whole command line is the UI's
    if (typeof (globalThis as { Deno?: unknown }).Deno !== 'undefined') assert.deepEqual(p.argv, builtinAgentArgv(opts), JSON.stringify(argv));
  }
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
