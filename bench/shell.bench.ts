// local_shell: the cost of checking a line (typical, and at the 16 KiB limit) against
// shell-quote's parse() of the same line, whether checking grows linearly from 1 KiB to 16 KiB,
// and running `true` through the tool against spawning it directly.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { parse } from 'shell-quote';
import { checkLine, type ShellPolicy } from '../src/core/shell/checker.ts';
import { lex } from '../src/core/shell/lexer.ts';
import { createLocalShell } from '../src/core/shell/local_shell.ts';
import { report, timeMs } from './report.ts';

const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-bench-shell-')));
try {
  const bin = path.join(root, 'bin');
  mkdirSync(bin);
  for (const n of ['git', 'go', 'ls', 'true']) {
    writeFileSync(path.join(bin, n), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(bin, n), 0o755);
  }
  mkdirSync(path.join(root, 'src'));
  const policy: ShellPolicy = { allowedCommands: ['git', 'go', 'ls', 'true'], deniedCommands: ['rm', 'curl'], allowedDir: root };
  const opts = { cwd: root, pathEnv: bin };

  /** Fastest round's microseconds per call of fn, over `rounds` rounds of `iters` calls (least disturbed by other load). */
  const usPer = (fn: () => unknown, iters: number, rounds = 7): number => {
    for (let i = 0; i < iters; i++) fn();
    const t: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const t0 = performance.now();
      for (let i = 0; i < iters; i++) fn();
      t.push(((performance.now() - t0) * 1000) / iters);
    }
    return Math.min(...t);
  };
  /** One row: `fn` on `line` against shell-quote's parse() of the same line. */
  const againstParse = (name: string, line: string, fn: () => unknown, iters: number) =>
    report({ name, ours: usPer(fn, iters), reference: usPer(() => parse(line), iters), unit: 'us', against: 'shell-quote parse()' });
  const mustAllow = (line: string) => {
    const v = checkLine(line, policy, opts);
    if (v.verdict !== 'allow') throw new Error(`bench line refused: ${v.reason}`);
  };

  const typical = 'git status && go test ./...';
  mustAllow(typical);
  againstParse('check `git status && go test ./...`', typical, () => checkLine(typical, policy, opts), 2000);
  againstParse('lex `git status && go test ./...` (grammar only, no PATH or cd)', typical, () => lex(typical), 5000);

  // A line of realistic steps (quoted arguments, cd, flags) cut to n bytes at a step boundary.
  const stepsText = ["git log --oneline -n 5 'src/a b.ts'", 'cd src', 'ls -la "x y"', 'cd ..', 'go test ./... -run TestX'];
  const lineOf = (bytes: number): string => {
    let line = '';
    for (let i = 0; ; i++) {
      const next = `${line}${line ? ' && ' : ''}${stepsText[i % stepsText.length]}`;
      if (Buffer.byteLength(next) > bytes) return line;
      line = next;
    }
  };
  const big = lineOf(16 * 1024);
  mustAllow(big);
  againstParse(`check a 16 KiB line (${checkLine(big, policy, opts).steps.length} steps)`, big, () => checkLine(big, policy, opts), 20);
  againstParse('lex the 16 KiB line (grammar only)', big, () => lex(big), 50);

  const perKiB: Record<number, number> = {};
  for (const kib of [1, 2, 4, 8, 16]) {
    const line = lineOf(kib * 1024);
    mustAllow(line);
    perKiB[kib] = usPer(() => checkLine(line, policy, opts), Math.max(10, 320 / kib)) / (Buffer.byteLength(line) / 1024);
  }
  process.stderr.write(
    `per-KiB check time: ${Object.entries(perKiB)
      .map(([k, v]) => `${k} KiB ${v.toFixed(1)} us/KiB (x${(v / perKiB[1]).toFixed(2)})`)
      .join(', ')}\n`,
  );
  report({
    name: 'check growth: per-KiB time at 16 KiB vs at 1 KiB',
    ours: perKiB[16],
    reference: perKiB[1],
    unit: 'us/KiB',
    against: 'the same at 1 KiB',
    target: 'ratio <= 2 (linear)',
  });

  // unsandboxed: the sandbox's own cost is bench/sandbox.bench.ts
  const shell = createLocalShell({ root, policy: { _allowed_commands: 'true', _allowed_dir: '.' }, sandbox: { mode: 'off' } });
  const truePath = '/bin/true';
  const direct = () =>
    new Promise<void>((resolve, reject) => {
      const c = spawn(truePath, [], { stdio: ['ignore', 'pipe', 'pipe'] });
      c.on('error', reject);
      c.on('close', () => resolve());
    });
  report({
    name: 'run `true` through local_shell (checked, own process group)',
    ours: await timeMs(() => shell.call('local_shell', { command: 'true' }), 30),
    reference: await timeMs(direct, 30),
    unit: 'ms',
    against: 'spawn true directly',
  });
} finally {
  rmSync(root, { recursive: true, force: true });
}
