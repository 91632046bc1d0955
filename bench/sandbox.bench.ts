// What the OS sandbox costs a command: `true` through local_shell in bubblewrap against the same
// call unsandboxed (alternating, one run), the milliseconds added per call (commands a model turn
// apart, as an agent runs them, then back to back and with no sandbox started ahead), and how building the
// view grows with the workspace (the scan re-reads only changed directories; a warm scan is one
// lstat per directory). Then what the later changes add: a workspace-write command (the wall for
// names that do not exist yet is a warm scan before and after it), the check-after on its own as
// the workspace grows, and an unasked `npm test` of a small real project (read-only profile: the
// home seen through its toolchain allowlist, no unix sockets, the limits) against the same run
// unsandboxed.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { createLocalShell } from '../src/core/shell/local_shell.ts';
import { probeSandbox } from '../src/core/shell/sandbox/probe.ts';
import { sandboxesAheadCounts, stopSandboxesAhead } from '../src/core/shell/local_terminal.ts';
import { WorkspaceScanner } from '../src/core/protect/scan.ts';
import { protectedNow } from '../src/core/shell/sandbox/left_behind.ts';
import { findOnPath, pathDirectories } from '../src/core/platform/program_path.ts';
import { prlimitArgs, UNASKED_LIMITS } from '../src/core/shell/sandbox/limits.ts';
import { buildView } from '../src/core/shell/sandbox/view.ts';
import { median, report } from './report.ts';

const probe = probeSandbox();
if (probe.state !== 'bubblewrap') {
  process.stderr.write(`sandbox bench: no working bubblewrap (${probe.reason}); nothing measured\n`);
  process.exit(0);
}


function workspace(dirs: number, filesPerDir = 3): string {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'cxl-bench-sandbox-')));
  for (let i = 0; i < dirs; i++) {
    const d = path.join(root, `d${Math.floor(i / 100)}`, `e${i % 100}`);
    mkdirSync(d, { recursive: true });
    for (let f = 0; f < filesPerDir; f++) writeFileSync(path.join(d, `f${f}.ts`), 'x');
  }
  mkdirSync(path.join(root, '.git', 'hooks'), { recursive: true });
  writeFileSync(path.join(root, '.git', 'config'), '');
  writeFileSync(path.join(root, '.env'), 'X=1\n');
  return root;
}

const roots: string[] = [];
try {
  // 1. `true` through the tool, sandboxed (read-only, as the prefix allowlist runs it) vs not.
  // An agent's commands come a model turn apart, so each call here follows a pause (both sides
  // alike, only the call is timed): the sandbox started once the previous command ended
  // (sandbox/ahead.ts) is ready. Then the same back to back, where it is still starting, and
  // with none held (a first command, or one the workspace changed under: bwrap started for it).
  const small = workspace(50);
  roots.push(small);
  const shell = createLocalShell({ root: small, policy: { _allowed_commands: 'true', _allowed_dir: '.' } });
  const on = { mode: 'auto' as const, network: true, profile: 'read-only' as const };
  const off = { mode: 'off' as const, network: true, profile: 'read-only' as const };
  const write = { mode: 'auto' as const, network: true, profile: 'workspace-write' as const };
  const TURN_MS = 100;
  const pause = () => new Promise((r) => setTimeout(r, TURN_MS));
  const timed = async (sandbox: typeof on | typeof off | typeof write, before?: () => unknown) => {
    await before?.();
    const t0 = performance.now();
    await shell.call('local_shell', { command: 'true' }, { sandbox });
    return performance.now() - t0;
  };
  for (let i = 0; i < 5; i++) {
    await timed(on);
    await timed(off);
  }
  const apart = { on: [] as number[], off: [] as number[], write: [] as number[], writeOff: [] as number[] };
  for (let i = 0; i < 30; i++) {
    apart.on.push(await timed(on, pause));
    apart.off.push(await timed(off, pause));
  }
  for (let i = 0; i < 30; i++) {
    apart.write.push(await timed(write, pause));
    apart.writeOff.push(await timed(off, pause));
  }
  const p = median(apart.off);
  report({ name: `run \`true\` through local_shell in bubblewrap (read-only), commands ${TURN_MS} ms apart`, ours: median(apart.on), reference: p, unit: 'ms', against: 'the same call unsandboxed' });
  report({ name: 'ms added per command by the sandbox (read-only, a model turn apart: its sandbox started ahead)', ours: median(apart.on) - p, reference: p, unit: 'ms', against: 'the unsandboxed call', target: 'ours < 10 ms' });
  report({ name: 'ms added per command by the sandbox (workspace-write, a model turn apart, with the check for new protected names)', ours: median(apart.write) - median(apart.writeOff), reference: median(apart.writeOff), unit: 'ms', against: 'the unsandboxed call', target: 'ours < 10 ms' });
  const held = sandboxesAheadCounts();
  report({ name: `commands that took a sandbox started ahead (of ${held.taken + held.refused} that found one)`, ours: held.taken, reference: held.taken + held.refused, unit: 'commands', against: 'all that found one held' });

  const b2b = { on: [] as number[], off: [] as number[], cold: [] as number[], coldOff: [] as number[] };
  for (let i = 0; i < 30; i++) {
    b2b.on.push(await timed(on));
    b2b.off.push(await timed(off));
  }
  for (let i = 0; i < 30; i++) {
    b2b.cold.push(await timed(on, stopSandboxesAhead));
    b2b.coldOff.push(await timed(off));
  }
  report({ name: 'ms added per command by the sandbox (read-only, back to back: the one started ahead still starting)', ours: median(b2b.on) - median(b2b.off), reference: median(b2b.off), unit: 'ms', against: 'the unsandboxed call' });
  report({ name: 'ms added per command by the sandbox (read-only, none started ahead: bwrap started for the command)', ours: median(b2b.cold) - median(b2b.coldOff), reference: median(b2b.coldOff), unit: 'ms', against: 'the unsandboxed call' });

  // 2. bubblewrap itself, spawned directly with the same mounts, against spawning `true`
  const spawnMs = (cmd: string, args: string[]) =>
    new Promise<number>((resolve, reject) => {
      const t0 = performance.now();
      const c = spawn(cmd, args, { stdio: 'ignore' });
      c.on('error', reject);
      c.on('close', () => resolve(performance.now() - t0));
    });
  const bw: number[] = [];
  const tr: number[] = [];
  const args = ['--ro-bind', '/', '/', '--tmpfs', '/tmp', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--cap-drop', 'ALL', '--die-with-parent', '--new-session', '--', '/bin/true'];
  for (let i = 0; i < 30; i++) {
    bw.push(await spawnMs(probe.program!, args));
    tr.push(await spawnMs('/bin/true', []));
  }
  report({ name: 'spawn bwrap … /bin/true directly (the kernel and bwrap)', ours: median(bw), reference: median(tr), unit: 'ms', against: 'spawn /bin/true' });

  // 2b. what the limits add to it: prlimit in front of the command (and, as root, the shell that enters the pids cgroup)
  if (probe.prlimit) {
    const limited: number[] = [];
    const unlimited: number[] = [];
    const lim = prlimitArgs(probe.prlimit, UNASKED_LIMITS);
    const inner = args.slice(0, -1);
    for (let i = 0; i < 30; i++) {
      limited.push(await spawnMs(probe.program!, [...inner, ...lim, '/bin/true']));
      unlimited.push(await spawnMs(probe.program!, args));
    }
    report({ name: 'spawn bwrap … prlimit … /bin/true (the limits of an unasked command)', ours: median(limited), reference: median(unlimited), unit: 'ms', against: 'bwrap … /bin/true' });
  }

  // 3. the view as the workspace grows: first (cold) scan and warm re-scan, 100 vs 10 000 directories
  const perDir: Record<number, { cold: number; warm: number; view: number }> = {};
  for (const n of [100, 10_000]) {
    const ws = workspace(n);
    roots.push(ws);
    const sc = new WorkspaceScanner(ws);
    let t0 = performance.now();
    const first = sc.scan();
    const cold = performance.now() - t0;
    const warms: number[] = [];
    for (let i = 0; i < 9; i++) {
      t0 = performance.now();
      sc.scan();
      warms.push(performance.now() - t0);
    }
    const views: number[] = [];
    buildView({ profile: 'workspace-write', network: true, roots: [ws], homes: [os.homedir()] });
    for (let i = 0; i < 9; i++) {
      t0 = performance.now();
      buildView({ profile: 'workspace-write', network: true, roots: [ws], homes: [os.homedir()] });
      views.push(performance.now() - t0);
    }
    perDir[n] = { cold: cold / first.dirs, warm: median(warms) / first.dirs, view: median(views) };
    const checks: number[] = [];
    for (let i = 0; i < 9; i++) {
      t0 = performance.now();
      protectedNow([ws]);
      protectedNow([ws]);
      checks.push(performance.now() - t0);
    }
    report({ name: `check for new protected names (before and after), ${n} directories`, ours: median(checks), reference: median(views), unit: 'ms', against: 'building the view, warm' });
    report({ name: `build the view, workspace of ${n} directories (${3 * n} files), warm`, ours: median(views), reference: p, unit: 'ms', against: 'an unsandboxed `true` call' });
    report({ name: `first scan of ${n} directories (once per process)`, ours: cold, reference: median(warms), unit: 'ms', against: 'a warm re-scan' });
  }
  report({ name: 'warm scan per directory, 10 000 vs 100 directories', ours: perDir[10_000].warm * 1000, reference: perDir[100].warm * 1000, unit: 'us/dir', against: 'the same at 100 directories', target: 'ratio <= 2 (linear)' });

  // 4. an unasked `npm test` of a small real project: node's test runner over 4 files
  if (findOnPath('npm', pathDirectories(process.env.PATH))) {
    const proj = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'cxl-bench-npm-')));
    roots.push(proj);
    writeFileSync(path.join(proj, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', private: true, scripts: { test: 'node --test test/' } }));
    mkdirSync(path.join(proj, 'test'));
    for (let i = 0; i < 4; i++) writeFileSync(path.join(proj, 'test', `t${i}.test.js`), `require('node:test').test('t${i}', () => { require('node:assert').equal(require('node:os').homedir().length > 0, true); });\n`);
    const npmShell = createLocalShell({ root: proj });
    const unasked = { mode: 'auto' as const, network: true, profile: 'read-only' as const };
    const ran: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < 7; i++) {
      let t0 = performance.now();
      const r = await npmShell.call('local_shell', { command: 'npm test' }, { sandbox: unasked, readOnly: true });
      if (r.exit_code !== 0) throw new Error(`npm test failed in the sandbox: ${r.stderr}`);
      ran.push(performance.now() - t0);
      t0 = performance.now();
      await npmShell.call('local_shell', { command: 'npm test' }, { sandbox: off, readOnly: true });
      bare.push(performance.now() - t0);
    }
    report({ name: 'unasked `npm test` (4 test files) in bubblewrap: home allowlist, no sockets, limits', ours: median(ran), reference: median(bare), unit: 'ms', against: 'the same run unsandboxed' });
  }
} finally {
  stopSandboxesAhead();
  for (const r of roots) rmSync(r, { recursive: true, force: true });
}
