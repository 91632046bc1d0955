// local_shell: the cost of checking a line (typical, and at the 16 KiB limit) against
// shell-quote's parse() of the same line, whether checking grows linearly from 1 KiB to 16 KiB,
// what the argument rules add to a check (against the checker without them, same run), the
// recursive reader's scan for protected files against a bare directory walk, and running
// `true` through the tool against spawning it directly.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { parse } from 'shell-quote';
import { checkLine, type ShellPolicy } from '../src/core/shell/checker.ts';
import { lex } from '../src/core/shell/lexer.ts';
import { createLocalShell } from '../src/core/shell/local_shell.ts';
import { scanProtected } from '../src/core/shell/path_words.ts';
import { report, timeMs } from './report.ts';

const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-bench-shell-')));
try {
  const bin = path.join(root, 'bin');
  mkdirSync(bin);
  for (const n of ['git', 'go', 'ls', 'true', 'grep', 'cat', 'sed']) {
    writeFileSync(path.join(bin, n), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(bin, n), 0o755);
  }
  mkdirSync(path.join(root, 'src'));
  // a workspace root is usually a repository: git finds its .git at once
  mkdirSync(path.join(root, '.git'));
  const policy: ShellPolicy = { allowedCommands: ['git', 'go', 'ls', 'true', 'grep', 'cat', 'sed'], deniedCommands: ['rm', 'curl'], allowedDir: root };
  const opts = { cwd: root, pathEnv: bin };
  const without = { ...opts, argRules: 'skip' as const };

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

  // What the argument rules add: the same lines checked without them (the checker before them).
  const argLine = "git log --oneline -n 5 -- src && grep -rn TODO src && cat README.md && sed -n '1,5p' README.md";
  writeFileSync(path.join(root, 'README.md'), 'x\n');
  for (let i = 0; i < 20; i++) writeFileSync(path.join(root, 'src', `f${i}.ts`), 'x\n');
  mustAllow(argLine);
  for (const [name, line, iters] of [['`git status && go test ./...`', typical, 2000], ['a 4-step reading line (git log, grep -rn over 20 files, cat, sed -n)', argLine, 500]] as const) {
    report({ name: `check ${name} with the argument rules`, ours: usPer(() => checkLine(line, policy, opts), iters), reference: usPer(() => checkLine(line, policy, without), iters), unit: 'us', against: 'the same check without them' });
  }

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
  report({ name: 'check the 16 KiB line with the argument rules', ours: usPer(() => checkLine(big, policy, opts), 20), reference: usPer(() => checkLine(big, policy, without), 20), unit: 'us', against: 'the same check without them' });

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

  // The scan a recursive reader's directory gets (grep -r, ls -R, du, find): 2,000 files in 100 dirs.
  const tree = path.join(root, 'tree');
  for (let d = 0; d < 100; d++) {
    mkdirSync(path.join(tree, `d${d}`, 'sub'), { recursive: true });
    for (let f = 0; f < 20; f++) writeFileSync(path.join(tree, `d${d}`, f % 2 ? 'sub' : '', `f${f}.txt`), 'x');
  }
  const walk = (dir: string): number => {
    let n = 0;
    for (const e of readdirSync(dir, { withFileTypes: true })) n += 1 + (e.isDirectory() ? walk(path.join(dir, e.name)) : 0);
    return n;
  };
  if (scanProtected(tree, false) !== null) throw new Error('the bench tree holds no protected file');
  report({ name: 'scan 2,000 files for protected ones (a recursive reader\'s directory)', ours: usPer(() => scanProtected(tree, false), 20) / 1000, reference: usPer(() => walk(tree), 20) / 1000, unit: 'ms', against: 'a bare readdir walk' });

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
