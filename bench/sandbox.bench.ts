// What the OS sandbox costs a command: `true` through local_shell in bubblewrap against the same
// call unsandboxed (alternating, one run), the milliseconds added per call, and how building the
// view grows with the workspace (the scan re-reads only changed directories; a warm scan is one
// lstat per directory).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { createLocalShell } from '../src/core/shell/local_shell.ts';
import { probeSandbox } from '../src/core/shell/sandbox/probe.ts';
import { WorkspaceScanner } from '../src/core/protect/scan.ts';
import { buildView } from '../src/core/shell/sandbox/view.ts';
import { report } from './report.ts';

const probe = probeSandbox();
if (probe.state !== 'bubblewrap') {
  process.stderr.write(`sandbox bench: no working bubblewrap (${probe.reason}); nothing measured\n`);
  process.exit(0);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

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
  // 1. `true` through the tool, sandboxed (read-only, as the prefix allowlist runs it) vs not
  const small = workspace(50);
  roots.push(small);
  const shell = createLocalShell({ root: small, policy: { _allowed_commands: 'true', _allowed_dir: '.' } });
  const on = { mode: 'auto' as const, network: true, profile: 'read-only' as const };
  const off = { mode: 'off' as const, network: true, profile: 'read-only' as const };
  const sandboxed: number[] = [];
  const plain: number[] = [];
  for (let i = 0; i < 5; i++) {
    await shell.call('local_shell', { command: 'true' }, { sandbox: on });
    await shell.call('local_shell', { command: 'true' }, { sandbox: off });
  }
  for (let i = 0; i < 40; i++) {
    let t0 = performance.now();
    await shell.call('local_shell', { command: 'true' }, { sandbox: on });
    sandboxed.push(performance.now() - t0);
    t0 = performance.now();
    await shell.call('local_shell', { command: 'true' }, { sandbox: off });
    plain.push(performance.now() - t0);
  }
  const s = median(sandboxed);
  const p = median(plain);
  report({ name: 'run `true` through local_shell in bubblewrap (read-only)', ours: s, reference: p, unit: 'ms', against: 'the same call unsandboxed' });
  report({ name: 'ms added per command by the sandbox', ours: s - p, reference: p, unit: 'ms', against: 'the unsandboxed call', target: 'ours < 10 ms' });

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
    report({ name: `build the view, workspace of ${n} directories (${3 * n} files), warm`, ours: median(views), reference: p, unit: 'ms', against: 'an unsandboxed `true` call' });
    report({ name: `first scan of ${n} directories (once per process)`, ours: cold, reference: median(warms), unit: 'ms', against: 'a warm re-scan' });
  }
  report({ name: 'warm scan per directory, 10 000 vs 100 directories', ours: perDir[10_000].warm * 1000, reference: perDir[100].warm * 1000, unit: 'us/dir', against: 'the same at 100 directories', target: 'ratio <= 2 (linear)' });
} finally {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
}
