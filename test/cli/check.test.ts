// `cxl check` as a user runs it: words and --json for one line, --batch JSON lines, exit codes.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { runCxl } from '../helpers/cxl.ts';
import { stubBin, tempRoot } from '../core/shell/helpers.ts';

const { root: base, cleanup } = tempRoot('cxl-check-cli-');
after(cleanup);
const ROOT = path.join(base, 'root');
mkdirSync(path.join(ROOT, 'src'), { recursive: true });
const BIN = stubBin(path.join(base, 'bin'), ['git', 'go', 'ls', 'rm']);
const env = { PATH: BIN };

test('an allowed line: exit 0, each step with its resolved path and rule', async () => {
  const r = await runCxl(['check', 'git status && go test ./...', '--allow', 'git,go'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^allow: 2 steps checked/);
  assert.ok(r.stdout.includes(`1. git status\n       ${path.join(BIN, 'git')}  [allowlisted: git]`), r.stdout);
  assert.ok(r.stdout.includes(`2. && go test ./...\n       ${path.join(BIN, 'go')}  [allowlisted: go]`), r.stdout);
});

test('a refused line: exit 1, the rule, the construct, the step and a caret under the offset', async () => {
  const r = await runCxl(['check', 'git status; rm -rf /', '--allow', 'git,rm', '--deny', 'rm'], { env });
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^refuse: `rm` at offset 12 is on _denied_commands/);
  assert.match(r.stdout, /rule: denied; construct: rm; step 2; offset 12/);
  assert.ok(r.stdout.includes('  git status; rm -rf /\n              ^'), r.stdout);
});

test('--json gives the verdict as JSON; --dir confines cd', async () => {
  const r = await runCxl(['check', 'cd src && cd ../.. && ls', '--json', '--dir', ROOT, '--allow', 'ls'], { env });
  assert.equal(r.code, 1);
  const v = JSON.parse(r.stdout);
  assert.equal(v.verdict, 'refuse');
  assert.equal(v.rule, 'cd-escape');
  assert.equal(v.step, 1);
  assert.deepEqual(v.steps[0], { kind: 'cd', index: 0, op: null, argv: ['cd', 'src'], rule: `cd inside _allowed_dir: ${path.join(ROOT, 'src')}`, target: path.join(ROOT, 'src') });
  const ok = JSON.parse((await runCxl(['check', 'cd src && ls', '--json', '--dir', ROOT, '--allow', 'ls'], { env })).stdout);
  assert.equal(ok.verdict, 'allow');
  assert.equal(ok.steps[1].cwd, path.join(ROOT, 'src'));
  assert.equal(ok.steps[1].resolved, path.join(BIN, 'ls'));
});

test('control characters are shown escaped, never raw', async () => {
  const r = await runCxl(['check', 'ls\u001b[2J\nrm'], { env });
  assert.equal(r.code, 1);
  assert.ok(!r.stdout.includes('\u001b'));
  assert.match(r.stdout, /line \(escaped\): "ls\\u001b\[2J\\nrm"/);
});

test('--batch answers one JSON line per input line, failing closed on bad input', async () => {
  const input = [
    JSON.stringify({ cmd: 'git status', allowed_commands: ['git'], denied_commands: [] }),
    'not json',
    JSON.stringify({ cmd: 'cd src && ls', allowed_commands: ['ls'], allowed_dir: ROOT }),
    JSON.stringify({ cmd: 'ls', allowed_commands: ['ls'], allowed_dir: ROOT, cwd: path.join(ROOT, 'src') }),
    JSON.stringify({ cmd: 'ls', allowed_commands: ['ls'], allowed_dir: path.join(base, 'missing') }),
    JSON.stringify({ cmd: 42 }),
    '',
  ].join('\n');
  const r = await runCxl(['check', '--batch'], { env, input });
  assert.equal(r.code, 0, r.stderr);
  const out = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(out.length, 6);
  assert.deepEqual(
    out.map((o) => o.verdict),
    ['allow', 'refuse', 'allow', 'allow', 'refuse', 'refuse'],
  );
  assert.equal(out[1].rule, 'bad-input');
  assert.equal(out[3].steps[0].cwd, path.join(ROOT, 'src'), 'cd starts at the given cwd');
  assert.equal(out[2].start_dir, ROOT, 'else at the allowed dir');
  assert.equal(out[4].rule, 'policy');
  for (const o of out) assert.deepEqual(Object.keys(o).slice(0, 2), ['verdict', 'reason']);
});

test('--batch over the policy cases agrees with the table, the argument-rule cases included', async () => {
  const data = JSON.parse(readFileSync(new URL('../core/shell/policy_cases.json', import.meta.url), 'utf8'));
  const bin = stubBin(path.join(base, 'casebin'), [...data.default_allowed_commands, ...data.default_denied_commands]);
  const cases = data.cases as Record<string, unknown>[];
  assert.equal(cases.filter((c) => c.requires).length, 8);
  const lines = cases.map((c) => {
    const dir = path.join(base, 'cases', String(c.id));
    mkdirSync(dir, { recursive: true });
    for (const s of (c.setup as string[] | undefined) ?? []) {
      const m = /^mkdir ROOT\/(.+)$/.exec(s);
      const l = /^symlink ROOT\/(\S+) -> (\S+)$/.exec(s);
      if (m) mkdirSync(path.join(dir, m[1]), { recursive: true });
      else if (l) symlinkSync(l[2], path.join(dir, l[1]));
    }
    return JSON.stringify({
      cmd: c.cmd,
      allowed_commands: c.allowed_commands === 'DEFAULT' ? data.default_allowed_commands : c.allowed_commands,
      denied_commands: c.denied_commands === 'DEFAULT' ? data.default_denied_commands : c.denied_commands,
      ...(c.allowed_dir ? { allowed_dir: dir } : {}),
      cwd: dir,
    });
  });
  const r = await runCxl(['check', '--batch'], { env: { PATH: bin }, input: `${lines.join('\n')}\n` });
  assert.equal(r.code, 0, r.stderr);
  const out = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(out.length, cases.length);
  cases.forEach((c, i) => assert.equal(out[i].verdict, c.expect, `${c.id}: ${out[i].reason}`));
});

test('usage errors exit 2', async () => {
  assert.equal((await runCxl(['check'])).code, 2);
  assert.equal((await runCxl(['check', 'a', 'b'])).code, 2);
  assert.equal((await runCxl(['check', '--batch', 'ls'])).code, 2);
  const h = await runCxl(['check', '--help']);
  assert.equal(h.code, 0);
  assert.match(h.stdout, /--batch/);
});

test('the sandbox profile a line would run under: read-only for the prefix allowlist, workspace-write once approved', async () => {
  const { hasBwrap } = await import('../helpers/system_tools.ts');
  if (!hasBwrap('cxl check sandbox profile test')) return;
  const withBwrap = { PATH: `${BIN}:${process.env.PATH}` };
  const ro = await runCxl(['check', 'go test ./...', '--allow', 'go'], { env: withBwrap });
  assert.match(ro.stdout, /\nsandbox: bubblewrap, read-only \(the workspace cannot be written\); network on\n/);
  const rw = await runCxl(['check', 'rm x', '--allow', 'rm', '--deny', '', '--json'], { env: withBwrap });
  const j = JSON.parse(rw.stdout);
  assert.equal(j.envelope.action, 'approve');
  assert.deepEqual(j.sandbox, { state: 'bubblewrap', profile: 'workspace-write', when: 'once approved', network: true });
});

test('with a bwrap that cannot start, the prefix allowlist asks and check says why', async () => {
  const { chmodSync, writeFileSync } = await import('node:fs');
  const broken = path.join(base, 'broken-bin');
  mkdirSync(broken, { recursive: true });
  writeFileSync(path.join(broken, 'bwrap'), '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n');
  chmodSync(path.join(broken, 'bwrap'), 0o755);
  const r = await runCxl(['check', 'go test ./...', '--allow', 'go'], { env: { PATH: `${broken}:${BIN}:/usr/bin:/bin` } });
  assert.equal(r.code, 0, 'an ask is not a refusal');
  assert.match(r.stdout, /envelope default: approve: `go test \.\/\.\.\.` starts with `go test` of prefix_allowlist of envelope default, but no sandbox is working \(bwrap cannot start a sandbox here: setting up uid map: Permission denied/);
  assert.match(r.stdout, /\nsandbox: unavailable \(.*uid map.*\): the line would run unsandboxed\n/);
});

test("a trusted project's own envelope is named as such: `acme (project)`", async () => {
  const { writeFileSync } = await import('node:fs');
  const project = path.join(base, 'project');
  mkdirSync(path.join(project, '.contenox'), { recursive: true });
  writeFileSync(path.join(project, '.contenox', 'agents.toml'), 'default_envelope = "acme"\n[envelopes.acme]\nextends = "default"\n');
  const home = path.join(base, 'home');
  mkdirSync(home, { recursive: true });
  const vars = { ...env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local', 'share') };
  const trusted = await runCxl(['check', 'ls', '--allow', 'ls', '--trust-project'], { env: vars, cwd: project });
  assert.match(trusted.stdout, /\nenvelope acme \(project\): /, trusted.stdout + trusted.stderr);
  // untrusted, the project's config does not apply: the shipped default decides, named plainly
  const untrusted = await runCxl(['check', 'ls', '--allow', 'ls'], { env: vars, cwd: project });
  assert.match(untrusted.stdout, /\nenvelope default: /, untrusted.stdout + untrusted.stderr);
});
