// Differential test against real shells: for generated lines the policy accepts, running them
// through local_shell (our lexer, our && || ; and cd, no shell) must execute exactly the argvs, in
// exactly the order, that /bin/sh and bash execute for the same line. A line the lexer refuses is
// safe by construction and skipped; the test asserts that enough lines were accepted.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { checkLine } from '../../../src/core/shell/checker.ts';
import { createLocalShell } from '../../../src/core/shell/local_shell.ts';
import type { ShellResult } from '../../../src/core/shell/runner.ts';
import { tempRoot } from './helpers.ts';

const { root: base, cleanup } = tempRoot('cxl-differential-');
after(cleanup);
const ROOT = path.join(base, 'root');
mkdirSync(path.join(ROOT, 'a', 'b'), { recursive: true });
mkdirSync(path.join(ROOT, 'c d'));
const BIN = path.join(base, 'bin');
mkdirSync(BIN);
// `dump` prints its cwd's name and each argument NUL-terminated; `fail` does the same and exits 1.
for (const [name, code] of [
  ['dump', 0],
  ['fail', 1],
] as const) {
  const p = path.join(BIN, name);
  writeFileSync(p, `#!/bin/sh\nprintf '[%s:%s]' "${name}" "$(basename "$PWD")"\nfor a in "$@"; do printf '%s\\0' "$a"; done\nprintf '\\n'\nexit ${code}\n`);
  chmodSync(p, 0o755);
}

// A small seeded PRNG so a failure reproduces.
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PLAIN = 'abcxyz0189._/=:@%+,-~';
const SINGLE_BODY = ['a', ' ', ';', '&&', '|', '$HOME', '`id`', '\\', '"', '*', '?', '#', '!', '\n', '\t', 'é', '~', '(', ')', '<', '>', '{', '}'];
const DOUBLE_BODY = ['a', ' ', ';', '&&', '|', "'", '*', '?', '#', '\n', '\t', 'é', '~', '(', ')', '<', '>', '{', '}', '%'];
// Sometimes a byte the lexer refuses, so refusals are exercised too (those lines are skipped).
const HOSTILE = ['$x', '*', '\\ ', '|', '>', '#', '!', '`', '&', '(', '\r', '\u00a0'];

function word(r: () => number): string {
  let w = '';
  const parts = 1 + Math.floor(r() * 3);
  for (let i = 0; i < parts; i++) {
    const k = r();
    if (k < 0.45) {
      const n = 1 + Math.floor(r() * 4);
      for (let j = 0; j < n; j++) w += PLAIN[Math.floor(r() * PLAIN.length)];
    } else if (k < 0.7) {
      let b = '';
      for (let j = Math.floor(r() * 4); j > 0; j--) b += SINGLE_BODY[Math.floor(r() * SINGLE_BODY.length)];
      w += `'${b}'`;
    } else if (k < 0.95) {
      let b = '';
      for (let j = Math.floor(r() * 4); j > 0; j--) b += DOUBLE_BODY[Math.floor(r() * DOUBLE_BODY.length)];
      w += `"${b}"`;
    } else w += HOSTILE[Math.floor(r() * HOSTILE.length)];
  }
  return w;
}

function step(r: () => number): string {
  const k = r();
  if (k < 0.12) return ['cd a', 'cd a/b', 'cd ..', "cd 'c d'", 'cd "a"', 'cd .'][Math.floor(r() * 6)];
  const prog = k < 0.35 ? 'fail' : 'dump';
  const args: string[] = [];
  for (let i = Math.floor(r() * 4); i > 0; i--) args.push(word(r));
  const sp = () => (r() < 0.15 ? '\t' : r() < 0.1 ? '  ' : ' ');
  return [prog, ...args].join(sp());
}

function line(r: () => number): string {
  const steps = 1 + Math.floor(r() * 4);
  let out = step(r);
  for (let i = 1; i < steps; i++) {
    const op = ['&&', '||', ';'][Math.floor(r() * 3)];
    out += `${r() < 0.3 ? '' : ' '}${op}${r() < 0.3 ? '' : ' '}${step(r)}`;
  }
  return out;
}

const shells = ['/bin/sh', '/bin/bash'].filter((s) => existsSync(s));

test('accepted lines execute the same argvs in the same order as sh and bash', async () => {
  const r = rng(20261202);
  // unsandboxed: the stub programs live under /tmp outside the workspace, which the sandbox's private /tmp hides
  const sh = createLocalShell({ root: ROOT, policy: { _allowed_commands: 'dump,fail', _allowed_dir: '.' }, pathEnv: BIN, env: { PATH: BIN }, sandbox: { mode: 'off' } });
  let accepted = 0;
  let refused = 0;
  for (let i = 0; i < 400; i++) {
    const l = line(r);
    const v = checkLine(l, { allowedCommands: ['dump', 'fail'], allowedDir: ROOT }, { cwd: ROOT, pathEnv: BIN });
    if (v.verdict === 'refuse') {
      refused++;
      continue;
    }
    accepted++;
    const ours = (await sh.call('local_shell', { command: l })) as ShellResult;
    for (const shell of shells) {
      const ref = spawnSync(shell, ['-c', l], { cwd: ROOT, env: { PATH: BIN }, encoding: 'utf8' });
      assert.equal(ours.stdout, ref.stdout, `${shell} disagrees on ${JSON.stringify(l)}`);
      assert.equal(ours.exit_code, ref.status, `${shell} exit status on ${JSON.stringify(l)}`);
    }
  }
  assert.ok(accepted >= 100, `only ${accepted} of 400 generated lines were accepted`);
  assert.ok(refused >= 40, `only ${refused} of 400 generated lines were refused`);
});
