// The probe proves what the sandbox relies on instead of assuming it: a bubblewrap that starts
// but leaves /proc/sys writable (gVisor ignores the read-only cover; bubblewrap as root skips
// it), runs without the unix-socket filter or leaves capabilities is reported unavailable, with
// what failed. Each broken sandbox is the real bwrap behind a wrapper that drops one option. A
// writable kernel setting is found by opening it for appending and writing nothing: no test
// here changes a setting.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, describe, test } from 'node:test';
import { LocalShell } from '../../../src/core/shell/local_shell.ts';
import { LocalTerminalHost } from '../../../src/core/shell/local_terminal.ts';
import type { ShellResult } from '../../../src/core/shell/runner.ts';
import { findOnPath, hasBwrap } from '../../helpers/system_tools.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'cxl-probe-')));
  dirs.push(d);
  return d;
}

/** A PATH whose `bwrap` is the real one with `drop` (an option and its `n` values) taken out of every call. */
function hostWithout(drop: string, n: number, also?: string): LocalTerminalHost {
  const real = findOnPath('bwrap', process.env.PATH)!;
  const bin = tempDir();
  const match = also === undefined ? `[ "$a" = ${drop} ]` : `[ "$a" = ${drop} ] && [ "$1" = ${also} ]`;
  writeFileSync(
    path.join(bin, 'bwrap'),
    `#!/bin/sh\nskip=0\nfor a in "$@"; do\n  shift\n  if [ $skip -gt 0 ]; then skip=$((skip - 1)); continue; fi\n  if ${match}; then skip=${n}; continue; fi\n  set -- "$@" "$a"\ndone\nexec ${real} "$@"\n`,
  );
  chmodSync(path.join(bin, 'bwrap'), 0o755);
  return new LocalTerminalHost({ probe: { pathEnv: `${bin}:${process.env.PATH}`, platform: 'linux' } });
}

const haveBwrap = hasBwrap('the sandbox probe tests (test/core/shell/sandbox_probe.test.ts)');

describe('the probe proves what the sandbox relies on', () => {
  test('a bubblewrap whose /proc/sys stays writable inside is unavailable, saying so', () => {
    if (!haveBwrap) return;
    const s = hostWithout('--ro-bind', 2, '/proc/sys').sandboxState();
    if (process.getuid?.() !== 0 && s.state === 'bubblewrap') return; // unprivileged, the kernel's own rules keep /proc/sys read-only without the bind
    assert.equal(s.state, 'unavailable');
    assert.match(s.reason ?? '', /starts, but the sandbox does not hold here: \/proc\/sys is writable inside/);
  });

  test('a bubblewrap that ignores the unix-socket filter is unavailable', () => {
    if (!haveBwrap) return;
    const s = hostWithout('--seccomp', 1).sandboxState();
    assert.equal(s.state, 'unavailable');
    assert.match(s.reason ?? '', /the unix-socket filter is not in force inside \(Seccomp: 0\)/);
  });

  test('a bubblewrap that keeps capabilities (run as root without --cap-drop) is unavailable', () => {
    if (!haveBwrap || process.getuid?.() !== 0) return; // unprivileged bwrap keeps none anyway
    const s = hostWithout('--cap-drop', 1).sandboxState();
    assert.equal(s.state, 'unavailable');
    assert.match(s.reason ?? '', /capabilities are left inside/);
  });

  test('the real one holds, and an approved command cannot open a kernel setting for writing', async () => {
    if (!haveBwrap) return;
    assert.equal(new LocalTerminalHost().sandboxState().state, 'bubblewrap');
    const ws = tempDir();
    // opens for appending and writes nothing: even where it succeeded, no setting would change
    const line = "sh -c 'printf \"\" >> /proc/sys/kernel/hostname && echo OPENED || echo REFUSED'";
    const r = (await new LocalShell({ root: ws }).call('local_shell', { command: line }, { sandbox: { mode: 'auto', network: true, profile: 'workspace-write' } })) as ShellResult;
    assert.equal(r.sandbox?.state, 'bubblewrap');
    assert.match(r.stdout, /REFUSED/);
    assert.match(r.stderr, /Read-only file system|Permission denied/);
  });
});

// The UI probes without blocking its thread (it loads the screen meanwhile): the same answers.
describe('the probe run without blocking', () => {
  test('answers as the blocking one: a broken bubblewrap unavailable with the reason, the real one working, with the network on and off', async () => {
    if (!haveBwrap) return;
    const s = await hostWithout('--seccomp', 1).sandboxStateAsync();
    assert.equal(s.state, 'unavailable');
    assert.match(s.reason ?? '', /the unix-socket filter is not in force inside \(Seccomp: 0\)/);
    const off = await hostWithout('--seccomp', 1).sandboxStateAsync(false);
    assert.equal(off.state, 'unavailable');
    const real = new LocalTerminalHost({ probe: { pathEnv: process.env.PATH, platform: 'linux' } });
    assert.deepEqual(await real.sandboxStateAsync(), real.sandboxState());
    assert.deepEqual(await real.sandboxStateAsync(false), real.sandboxState(false));
  });

  test('no bwrap on PATH is said, not thrown', async () => {
    const s = await new LocalTerminalHost({ probe: { pathEnv: tempDir(), platform: 'linux' } }).sandboxStateAsync();
    assert.deepEqual(s, { state: 'unavailable', reason: 'bwrap (bubblewrap) is not on PATH' });
  });
});
