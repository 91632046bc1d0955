// `cxl tool local_shell`: the same pipeline as local_fs, with --policy setting the local_shell keys.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { runCxl } from '../helpers/cxl.ts';
import { tempRoot } from '../core/shell/helpers.ts';

const { root: ROOT, cleanup } = tempRoot('cxl-tool-shell-');
after(cleanup);
mkdirSync(path.join(ROOT, 'sub'));

// --yes: the session envelope may ask about a command; nobody can answer here, and what is
// tested is the command policy behind it.
const tool = (json: Record<string, unknown>, ...flags: string[]) =>
  runCxl(['tool', 'local_shell', JSON.stringify(json), '--root', ROOT, '--yes', ...flags], { env: { PATH: process.env.PATH } });

test('runs a checked line under the shipped policy, confined to the root', async () => {
  const r = await tool({ command: 'echo hi && cd sub && pwd' });
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.ok, true);
  assert.equal(out.result.stdout, `hi\n${path.join(ROOT, 'sub')}\n`);
  assert.deepEqual(
    out.result.steps.map((s: { exit_code: number }) => s.exit_code),
    [0, 0, 0],
  );
  const esc = JSON.parse((await tool({ command: 'cd .. && ls' })).stdout);
  assert.equal(esc.code, 'policy_refused');
});

test('--policy sets _allowed_commands, _denied_commands and _allowed_dir', async () => {
  const denied = await tool({ command: 'echo x' }, '--policy', '_allowed_commands=pwd');
  assert.equal(denied.code, 1);
  assert.match(JSON.parse(denied.stdout).error, /not on _allowed_commands/);
  const deny = JSON.parse((await tool({ command: 'pwd' }, '--policy', '_denied_commands=pwd')).stdout);
  assert.equal(deny.code, 'policy_refused');
  const dir = JSON.parse((await tool({ command: 'pwd' }, '--policy', '_allowed_dir=sub')).stdout);
  assert.equal(dir.result.stdout, `${path.join(ROOT, 'sub')}\n`);
  assert.equal(JSON.parse((await tool({ command: 'cd .. && pwd' }, '--policy', '_allowed_dir=sub')).stdout).code, 'policy_refused');
});

test('a non-zero exit is a result, not an error', async () => {
  const r = await tool({ command: 'ls', args: ['does-not-exist'] });
  assert.equal(r.code, 0);
  const out = JSON.parse(r.stdout);
  assert.equal(out.result.success, false);
  assert.notEqual(out.result.exit_code, 0);
});

test('killing cxl while a command runs leaves none of its processes behind (in the sandbox too)', async () => {
  const { spawn } = await import('node:child_process');
  const { existsSync } = await import('node:fs');
  const { cxlCommand } = await import('../helpers/cxl.ts');
  const { eventually, processesWith, uniqueSleep } = await import('../core/shell/helpers.ts');
  const started = path.join(ROOT, 'started');
  const [cmd, ...pre] = cxlCommand();
  // Inside the sandbox's PID namespace the pids the command sees are not the host's: find the
  // processes by a marker in their command line instead.
  const marker = uniqueSleep();
  const line = `sh -c 'sleep ${marker} & sleep ${marker} & touch started; wait'`;
  const child = spawn(cmd, [...pre, 'tool', 'local_shell', JSON.stringify({ command: line }), '--root', ROOT, '--yes', '--policy', '_allowed_commands=sh'], { stdio: 'ignore' });
  const closed = new Promise((r) => child.on('close', r));
  assert.ok(await eventually(() => existsSync(started) && processesWith(`sleep ${marker}`).length >= 2, 15000), 'the command started');
  child.kill('SIGTERM');
  await closed;
  assert.ok(await eventually(() => processesWith(`sleep ${marker}`).length === 0), `left running: ${processesWith(`sleep ${marker}`).join(' ')}`);
});
