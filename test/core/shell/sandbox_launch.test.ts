// The sandbox's own launch, attacked from the workspace. What starts the sandbox runs outside
// it, so a program the repository planted where cxl looks for it runs with no sandbox at all:
// a `bwrap` in node_modules/.bin first on PATH (as `npx` runs cxl), reached as the entry itself,
// through a symlink or through `..`; a `prlimit` there (what bounds an unasked command); and the
// seccomp filter, which lived in a file under $TMPDIR, rewritten by one approved command when
// TMPDIR is inside the workspace. Each fake proves it ran by writing a marker outside the
// workspace, and each has its control: the same fake outside the workspace does run (the fake
// is real), and the real bwrap still runs the command.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { buildEnvelope } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { Gate } from '../../../src/core/gate/gate.ts';
import { LocalShell } from '../../../src/core/shell/local_shell.ts';
import { LocalTerminalHost, stopSandboxesAhead } from '../../../src/core/shell/local_terminal.ts';
import type { ShellResult } from '../../../src/core/shell/runner.ts';
import { probeSandbox } from '../../../src/core/shell/sandbox/probe.ts';
import { findOnPath, hasBwrap } from '../../helpers/system_tools.ts';
import { runCxl } from '../../helpers/cxl.ts';

const dirs: string[] = [];
after(() => {
  stopSandboxesAhead();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(prefix: string): string {
  const d = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  dirs.push(d);
  return d;
}

const haveBwrap = hasBwrap('the sandbox launch tests (test/core/shell/sandbox_launch.test.ts)');
const realBwrap = findOnPath('bwrap');
const realPrlimit = findOnPath('prlimit');

/** A fake `name` in `dir` that appends its arguments to `marker`, then does what the real one would (`then`). */
function fake(dir: string, name: string, marker: string, then: string): string {
  mkdirSync(dir, { recursive: true });
  const p = path.join(dir, name);
  writeFileSync(p, `#!/bin/sh\necho "${name} ran: $*" >> '${marker}'\n${then}\n`);
  chmodSync(p, 0o755);
  return p;
}

/** A workspace with a README and a fake bwrap in node_modules/.bin; the marker lives outside. */
function plantedWorkspace(): { ws: string; bin: string; marker: string } {
  const ws = tempDir('cxl-launch-ws-');
  writeFileSync(path.join(ws, 'README'), 'hello\n');
  const marker = path.join(tempDir('cxl-launch-marker-'), 'ran');
  const bin = path.join(ws, 'node_modules', '.bin');
  fake(bin, 'bwrap', marker, `exec ${realBwrap} "$@"`);
  return { ws, bin, marker };
}

/** `ls` through the gate unasked (the default envelope's prefix allowlist), with cxl's PATH `pathEnv`. */
async function unaskedLs(ws: string, pathEnv: string): Promise<{ rule: string; result: ShellResult }> {
  const host = new LocalTerminalHost({ probe: { pathEnv, platform: 'linux' } });
  const gate = new Gate({ envelope: buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES), root: ws });
  gate.add(new LocalShell({ root: ws, host }));
  const r = await gate.call('local_shell', { command: 'ls' });
  return { rule: r.decision.rule, result: r.result as ShellResult };
}

const ran = (marker: string) => (existsSync(marker) ? readFileSync(marker, 'utf8') : '');

describe('the program that starts the sandbox is never the workspace\'s', () => {
  test('a bwrap in the workspace\'s node_modules/.bin, first on PATH, does not run on an unasked ls; the real one does', async () => {
    if (!haveBwrap) return;
    const { ws, bin, marker } = plantedWorkspace();
    const { rule, result } = await unaskedLs(ws, `${bin}:${process.env.PATH}`);
    assert.equal(rule, 'shell.prefix_allowlist', 'it ran unasked');
    assert.deepEqual(result.sandbox, { state: 'bubblewrap', profile: 'read-only', network: true });
    assert.match(result.stdout, /README/, 'the real bwrap ran the command');
    assert.equal(ran(marker), '', 'the planted bwrap never ran');
  });

  test('…nor reached through a symlinked PATH entry or through `..`', async () => {
    if (!haveBwrap) return;
    const { ws, bin, marker } = plantedWorkspace();
    const link = path.join(tempDir('cxl-launch-link-'), 'bin');
    symlinkSync(bin, link);
    for (const entry of [link, path.join(bin, '..', '.bin'), path.join(ws, '..', path.basename(ws), 'node_modules', '.bin')]) {
      const { result } = await unaskedLs(ws, `${entry}:${process.env.PATH}`);
      assert.match(result.stdout, /README/, entry);
      assert.equal(ran(marker), '', `the planted bwrap ran through ${entry}`);
    }
  });

  test('control: the same fake outside the workspace is the one started (it is real), and the command runs through it', async () => {
    if (!haveBwrap) return;
    const { ws } = plantedWorkspace();
    const marker = path.join(tempDir('cxl-launch-marker-'), 'ran');
    const outside = tempDir('cxl-launch-bin-');
    fake(outside, 'bwrap', marker, `exec ${realBwrap} "$@"`);
    const { result } = await unaskedLs(ws, `${outside}:${process.env.PATH}`);
    assert.match(result.stdout, /README/);
    assert.match(ran(marker), /bwrap ran: .*--seccomp/);
  });

  test('a prlimit planted in the workspace is not what bounds an unasked command', () => {
    if (!haveBwrap || !realPrlimit) return;
    const { ws, bin, marker } = plantedWorkspace();
    fake(bin, 'prlimit', marker, 'shift $#');
    const probe = probeSandbox({ pathEnv: `${bin}:${process.env.PATH}`, platform: 'linux', roots: [ws] });
    assert.equal(probe.state, 'bubblewrap');
    assert.equal(probe.prlimit, realpathSync(realPrlimit));
    assert.ok(probe.program && !probe.program.startsWith(ws), probe.program);
    // control: outside the workspace it would have been taken
    const outside = tempDir('cxl-launch-bin-');
    fake(outside, 'prlimit', marker, 'shift $#');
    assert.equal(probeSandbox({ pathEnv: `${outside}:${process.env.PATH}`, platform: 'linux', roots: [ws] }).prlimit, path.join(outside, 'prlimit'));
  });

  test('with nothing outside the workspace, the sandbox is unavailable and says which entry it passed over', () => {
    const { ws, bin, marker } = plantedWorkspace();
    const s = new LocalTerminalHost({ probe: { pathEnv: bin, platform: 'linux', roots: [ws] } }).sandboxState();
    assert.equal(s.state, 'unavailable');
    assert.match(s.reason ?? '', new RegExp(`bwrap \\(bubblewrap\\) is not on PATH outside the workspace: ${bin}/bwrap skipped \\(inside ${ws}, where a command may write\\)`));
    assert.equal(ran(marker), '');
  });
});

describe('the seccomp filter cannot be changed by a command', () => {
  test('TMPDIR inside the workspace: an approved command that rewrites every file there does not weaken the next unasked command', () => {
    if (!haveBwrap) return;
    const python = findOnPath('python3');
    assert.ok(python, 'python3 is needed on PATH for this test');
    const ws = tempDir('cxl-launch-tmpdir-');
    mkdirSync(path.join(ws, 'tmp'));
    // a fresh process, so its filter is made with this TMPDIR (the module builds it once per process)
    const script = fileURLToPath(new URL('../../fixtures/shell/tmpdir_filter.ts', import.meta.url));
    const runtime = typeof (globalThis as { Deno?: unknown }).Deno !== 'undefined' ? [process.execPath, 'run', '-A', '--no-check', script, ws] : [process.execPath, '--import', 'tsx', script, ws];
    const r = spawnSync(runtime[0], runtime.slice(1), { encoding: 'utf8', timeout: 60_000, env: { ...process.env, TMPDIR: path.join(ws, 'tmp') } });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^before: UNIX Operation not permitted$/m, r.stdout);
    assert.match(r.stdout, /^rewrite: exit 0$/m, 'the approved command ran');
    assert.match(r.stdout, /^after: UNIX Operation not permitted$/m, r.stdout);
    // control: unsandboxed, the same program makes its unix socket (the check is real)
    assert.match(r.stdout, /^unsandboxed: UNIX ok$/m);
  });
});

describe('cxl config names the programs it starts', () => {
  test('the choice, and the workspace entry passed over', async () => {
    if (!haveBwrap) return;
    const { ws, bin, marker } = plantedWorkspace();
    const r = await runCxl(['config'], { cwd: ws, env: { PATH: `${bin}:${process.env.PATH}`, HOME: ws } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`# programs cxl starts .*: sh /bin/sh, bwrap ${realpathSync(realBwrap!)}`));
    assert.match(r.stdout, new RegExp(`#   bwrap: ${bin}/bwrap passed over \\(inside ${ws}, where a command may write\\)`));
    assert.match(r.stdout, /# sandbox for commands .*: bubblewrap/);
    assert.equal(ran(marker), '');
  });
});
