// Sandboxes started ahead of their command (sandbox/ahead.ts), tried as an attacker would: the
// next command must see exactly what a sandbox started for it now would show. A `.env` swapped
// by a rename after the sandbox was made (its hiding mount then sits on the old file), a
// protected name created meanwhile, another environment or directory: each must not be served
// by the sandbox held. Commands are run the way a cloned repository's test suite would run them,
// a program opening the file itself, not through the argument rules.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LocalTerminalHost, sandboxesAheadCounts, stopSandboxesAhead } from '../../../src/core/shell/local_terminal.ts';
import { AheadPool, mountMarks } from '../../../src/core/shell/sandbox/ahead.ts';
import { commandLine } from '../../../src/core/shell/sandbox/launcher.ts';
import { hasBwrap } from '../../helpers/system_tools.ts';
import { eventually, processesWith, tempRoot } from './helpers.ts';

const haveBwrap = hasBwrap('the tests of sandboxes started ahead (test/core/shell/sandbox_ahead.test.ts)');
const { root: ws, cleanup } = tempRoot('cxl-ahead-');
after(() => {
  stopSandboxesAhead();
  cleanup();
});
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: ws, LANG: 'C' };
const host = new LocalTerminalHost();
const readOnly = { profile: 'read-only' as const, network: true, roots: [ws] };

/** Runs argv sandboxed (read-only), after a pause as long as a short model turn, so the sandbox started after the previous one is ready. */
async function run(argv: string[], opts: { env?: Record<string, string>; cwd?: string; pause?: number } = {}) {
  await new Promise((r) => setTimeout(r, opts.pause ?? 150));
  const before = sandboxesAheadCounts();
  const t = host.createSync({ command: argv[0], args: argv.slice(1), cwd: opts.cwd ?? ws, env: opts.env ?? env, outputByteLimit: 1 << 16, sandbox: readOnly });
  const exit = await t.waitForExit();
  const out = await t.output();
  const now = sandboxesAheadCounts();
  return { ...out, exit, taken: now.taken - before.taken, refused: now.refused - before.refused };
}

test('a command takes the sandbox started after the previous one, and its words arrive as they were', async () => {
  if (!haveBwrap) return;
  await run(['true']);
  const words = ['%s|', 'two words', "it's", 'line\nbreak', '$HOME `id` $(id)', '\\n', '"', ''];
  const r = await run(['printf', ...words]);
  assert.equal(r.taken, 1, 'the second command ran in the sandbox started ahead');
  assert.equal(r.exit.exitCode, 0, r.stderr);
  assert.equal(r.stdout, "two words|it's|line\nbreak|$HOME `id` $(id)|\\n|\"||");
  // the exit status is the command's own
  assert.equal((await run(['sh', '-c', 'exit 7'])).exit.exitCode, 7);
});

test('a .env replaced by a rename after the sandbox was started is not shown to the next command', async () => {
  if (!haveBwrap) return;
  writeFileSync(path.join(ws, '.env'), 'OLD=first-secret\n');
  await run(['true']);
  // the sandbox for the next command is up and hides this .env (a mount on that very file)
  assert.ok(await eventually(() => sandboxesAheadCounts().held > 0));
  await new Promise((r) => setTimeout(r, 300));
  writeFileSync(path.join(ws, '.env.tmp'), 'NEW=swapped-marker\n');
  renameSync(path.join(ws, '.env.tmp'), path.join(ws, '.env')); // as an editor saves
  assert.match(readFileSync(path.join(ws, '.env'), 'utf8'), /swapped-marker/, 'the file is really there');
  const r = await run(['sh', '-c', 'cat .env 2>&1; echo done'], { pause: 0 });
  assert.doesNotMatch(r.stdout, /swapped-marker|first-secret/);
  assert.match(r.stdout, /done/);
  assert.equal(r.taken, 0);
  assert.equal(r.refused, 1, 'the held sandbox was seen and refused');
});

test('a protected name created after the sandbox was started is hidden from the next command', async () => {
  if (!haveBwrap) return;
  await run(['true']);
  mkdirSync(path.join(ws, 'deploy'), { recursive: true });
  writeFileSync(path.join(ws, 'deploy', 'id_ed25519'), 'late-key-marker\n');
  const r = await run(['sh', '-c', 'cat deploy/id_ed25519 2>&1; echo done']);
  assert.doesNotMatch(r.stdout, /late-key-marker/);
  assert.match(r.stdout, /done/);
  assert.equal(r.taken, 0, 'the view changed: the held sandbox does not fit');
});

test('another environment or working directory starts its own sandbox', async () => {
  if (!haveBwrap) return;
  await run(['true']);
  const r = await run(['sh', '-c', 'echo "$EXTRA"'], { env: { ...env, EXTRA: 'own-env' } });
  assert.equal(r.stdout, 'own-env\n');
  assert.equal(r.taken, 0);
  const sub = path.join(ws, 'sub');
  mkdirSync(sub, { recursive: true });
  await run(['true']);
  const d = await run(['pwd'], { cwd: sub });
  assert.equal(d.stdout, `${sub}\n`);
  assert.equal(d.taken, 0);
});

test('a program that cannot run is reported in the usual words, whether the sandbox was started ahead or not', async () => {
  if (!haveBwrap) return;
  const missing = await run(['cxl-no-such-program']);
  assert.deepEqual([missing.exit.exitCode, missing.stderr], [127, 'cannot run cxl-no-such-program: not found\n']);
  const file = path.join(ws, 'not-executable');
  writeFileSync(file, 'echo hi\n');
  chmodSync(file, 0o644);
  const denied = await run([file]);
  assert.deepEqual([denied.exit.exitCode, denied.stderr], [126, `cannot run ${file}: Permission denied\n`]);
  // straight after another command (nothing started ahead yet): the same
  const cold = await run(['cxl-no-such-program'], { pause: 0 });
  assert.equal(cold.exit.exitCode, 127);
});

test('commandLine quotes every word for the sandbox shell (the shell reads back the same words)', () => {
  const words = ['a b', "'", "x'y", 'l1\nl2\n', '$(touch /tmp/x)', '`x`', '\\', ''];
  // read as the sandbox's shell reads it (launcher.ts, TRAMPOLINE)
  const script = `NL='\n'\nIFS= read -r l\neval "set -- $l"\nshift\nprintf '%s\\0' "$@"`;
  const out = spawnSync('/bin/sh', ['-c', script], { encoding: 'utf8', input: commandLine('printf', ['%s\\0', ...words]) });
  assert.equal(out.status, 0, out.stderr);
  assert.deepEqual(out.stdout.split('\0').slice(0, -1), ['%s\\0', ...words]);
  assert.equal(commandLine('a', ['b\nc']).split('\n').length, 2, 'one line, then its newline');
});

test('a sandbox held for the next command neither keeps the process running nor outlives it', async () => {
  if (!haveBwrap) return;
  const script = fileURLToPath(new URL('../../fixtures/shell/ahead_then_exit.ts', import.meta.url));
  const marker = path.join(ws, 'exit-check');
  mkdirSync(marker, { recursive: true });
  const runtime = typeof (globalThis as { Deno?: unknown }).Deno !== 'undefined' ? [process.execPath, 'run', '-A', '--no-check', script, marker] : [process.execPath, '--import', 'tsx', script, marker];
  const t0 = Date.now();
  const r = spawnSync(runtime[0], runtime.slice(1), { encoding: 'utf8', timeout: 20_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /held 1/, 'the run left one sandbox started ahead');
  assert.ok(Date.now() - t0 < 15_000, 'the process ended on its own');
  assert.ok(await eventually(() => processesWith(marker).length === 0), `left running: ${processesWith(marker).join(' ')}`);
});

test('the pool: one held per key, the oldest stopped past its size, an idle one stopped, a gone one refused', async () => {
  const file = path.join(ws, 'pool-mark');
  writeFileSync(file, 'x');
  const view = { profile: 'read-only' as const, network: true, roots: [], readOnly: [], hideDirs: [], hideFiles: [file], privateTmp: true, maskedHomes: [], homeKeep: [], notes: [] };
  const stopped: string[] = [];
  const fake = (name: string, gone = false) => ({ launch: { command: 'bwrap', args: [], view, kind: 'bubblewrap' as const, key: name }, marks: mountMarks(view), gone: () => gone, stop: () => stopped.push(name) });
  const pool = new AheadPool({ max: 2, idleMs: 60 });
  pool.hold('a', () => fake('a'));
  pool.hold('b', () => fake('b'));
  pool.hold('c', () => fake('c')); // past its size: the oldest goes
  assert.deepEqual(stopped, ['a']);
  pool.hold('c', () => fake('c2')); // in place of the one held for the same key
  assert.deepEqual(stopped, ['a', 'c']);
  assert.equal(pool.take({ ...fake('x').launch, key: 'b' })?.launch.key, 'b');
  pool.hold('d', () => fake('d', true));
  assert.equal(pool.take({ ...fake('x').launch, key: 'd' }), undefined, 'one that ended is not taken');
  assert.deepEqual(stopped, ['a', 'c', 'd']);
  await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(stopped, ['a', 'c', 'd', 'c2'], 'the idle one was stopped');
  assert.equal(pool.size, 0);
});
