// git run unasked is run with repository-driven execution off, against a real repository whose
// configuration names programs (core.fsmonitor, diff.external, a textconv driver): each would
// leave a marker file in a temp dir when it runs (the only thing they do). Read-only runs leave
// none; the same line approved by a human runs them (so the test shows the settings are live).
// A directory shaped like a git directory inside the workspace is not the root's own .git: git
// there asks.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { buildEnvelope } from '../../../src/core/envelope/index.ts';
import { DEFAULT_PREFIX_ALLOWLIST, FLOOR_RULES, GIT_READ_PREFIXES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { isToolError } from '../../../src/core/errors.ts';
import { Gate } from '../../../src/core/gate/gate.ts';
import { GIT_READ_ONLY_CONFIG, GIT_READ_ONLY_ENV, hardenGitArgv, hardenGitEnv } from '../../../src/core/shell/git_harden.ts';
import { LocalShell } from '../../../src/core/shell/local_shell.ts';
import type { ShellResult } from '../../../src/core/shell/runner.ts';
import { DEFAULT_SHELL_POLICY } from '../../../src/core/shell/shell_policy.ts';
import { tempRoot } from './helpers.ts';

const { root: base, cleanup } = tempRoot('cxl-git-ro-');
after(cleanup);
const root = path.join(base, 'ws');
fs.mkdirSync(root);
const haveGit = spawnSync('git', ['--version']).status === 0;

const git = (...args: string[]) => {
  const r = spawnSync('git', args, { cwd: root, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: base } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
};
/** A program that only leaves a marker (outside the workspace) when it runs. */
function marker(name: string): { cmd: string; ran: () => boolean; reset: () => void } {
  const mark = path.join(base, `ran-${name}`);
  const script = path.join(base, `${name}.sh`);
  fs.writeFileSync(script, `#!/bin/sh\ntouch '${mark}'\nexit 1\n`);
  fs.chmodSync(script, 0o755);
  return { cmd: script, ran: () => fs.existsSync(mark), reset: () => fs.rmSync(mark, { force: true }) };
}

const fsmonitor = marker('fsmonitor');
const external = marker('external');
const textconv = marker('textconv');
if (haveGit) {
  git('init', '-q');
  git('-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '--allow-empty', '-m', 'one');
  fs.writeFileSync(path.join(root, 'f.txt'), 'one\n');
  fs.writeFileSync(path.join(root, '.gitattributes'), 'f.txt diff=conv\n');
  git('add', 'f.txt', '.gitattributes');
  git('-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '-m', 'two');
  fs.writeFileSync(path.join(root, 'f.txt'), 'two\n');
  git('config', 'core.fsmonitor', fsmonitor.cmd);
  git('config', 'diff.external', external.cmd);
  git('config', 'diff.conv.textconv', textconv.cmd);
  // a directory shaped like a git directory, with its own configuration
  fs.mkdirSync(path.join(root, 'vendor'));
  spawnSync('git', ['init', '-q', '--bare', path.join(root, 'vendor', 'evil')]);
  spawnSync('git', ['-C', path.join(root, 'vendor', 'evil'), 'config', 'core.fsmonitor', fsmonitor.cmd]);
}

// The OS sandbox is off here: it would stop the markers itself (the machine is read-only inside
// it), and what is under test is that git does not run the programs at all. `default` gets git's
// reads on its prefix allowlist, as docs/config.md shows a person adding them (shipped, they ask).
const UNSANDBOXED = Object.fromEntries(
  Object.entries(SHIPPED_ENVELOPES).map(([n, e]) => [
    n,
    { ...e, shell: { ...e.shell, sandbox: 'off' as const, ...(n === 'default' ? { prefix_allowlist: [...DEFAULT_PREFIX_ALLOWLIST, ...GIT_READ_PREFIXES] } : {}) } },
  ]),
);

function gate(o: { envelope?: string; yes?: boolean; policy?: boolean } = {}) {
  const g = new Gate({ envelope: buildEnvelope(o.envelope ?? 'default', UNSANDBOXED, FLOOR_RULES), autoApprove: o.yes });
  // the user's HOME and the system configuration stay out of it
  g.add(new LocalShell({ root, policy: o.policy === false ? undefined : { ...DEFAULT_SHELL_POLICY, _allowed_dir: '.' }, env: { ...process.env, HOME: base } }));
  return g;
}

const skip = (t: { diagnostic: (s: string) => void }) => {
  if (haveGit) return false;
  t.diagnostic('git is not installed here: nothing to run');
  return true;
};

describe('a repository whose configuration runs programs', () => {
  for (const policy of [true, false]) {
    const label = policy ? 'under the command policy' : 'without a command policy';
    test(`read-only runs (prefix_allowlist, nobody asked) run none of them, ${label}`, async (t) => {
      if (skip(t)) return;
      for (const m of [fsmonitor, external, textconv]) m.reset();
      const g = gate({ policy });
      const status = await g.call('local_shell', { command: 'git status --short' });
      assert.equal(status.decision.rule, 'shell.prefix_allowlist');
      assert.match((status.result as ShellResult).stdout, /M f\.txt/);
      const diff = await g.call('local_shell', { command: 'git diff' });
      assert.match((diff.result as ShellResult).stdout, /-one\n\+two/, 'the built-in diff ran');
      const log = await g.call('local_shell', { command: 'git log -p -1' });
      assert.equal((log.result as ShellResult).success, true);
      assert.deepEqual([fsmonitor.ran(), external.ran(), textconv.ran()], [false, false, false]);
    });
  }
  test('the same lines approved by a human run with the repository as configured', async (t) => {
    if (skip(t)) return;
    for (const m of [fsmonitor, external]) m.reset();
    const g = gate({ envelope: 'ask_always', yes: true });
    const r = await g.call('local_shell', { command: 'git status --short' });
    assert.equal(r.approvedBy, 'yes');
    await g.call('local_shell', { command: 'git diff' });
    assert.deepEqual([fsmonitor.ran(), external.ran()], [true, true], 'the settings are live: only read-only runs switch them off');
  });
  test('in a directory shaped like a git directory, git asks (and nothing runs while nobody answers)', async (t) => {
    if (skip(t)) return;
    fsmonitor.reset();
    const g = gate();
    const ev = await g.evaluate('local_shell', { command: 'git status', cwd: 'vendor/evil' });
    assert.equal(ev.decision.action, 'approve');
    assert.equal(ev.decision.argRule?.rule, 'git repository');
    const err = await g.call('local_shell', { command: 'cd vendor/evil && git log' }).catch((e) => e);
    assert.ok(isToolError(err) && err.code === 'approval_required', String(err));
    assert.equal(fsmonitor.ran(), false);
  });
});

test('the hardening: -c settings after git, --no-ext-diff/--no-textconv after a diffing subcommand, GIT_* dropped, the repository pinned', () => {
  const argv = hardenGitArgv(['timeout', '5', 'git', '--no-pager', 'log', '-p'], { at: 2, sub: { name: 'log', index: 4 }, repos: ['/w/.git'] });
  assert.deepEqual(argv, ['timeout', '5', 'git', ...GIT_READ_ONLY_CONFIG.flatMap((c) => ['-c', c]), '--no-pager', '--no-pager', 'log', '--no-ext-diff', '--no-textconv', '-p']);
  assert.deepEqual(hardenGitArgv(['git', 'status'], { at: 0, sub: { name: 'status', index: 1 }, repos: ['/w/.git'] }).slice(-2), ['--no-pager', 'status']);
  const env = hardenGitEnv({ PATH: '/bin', GIT_DIR: '/elsewhere', GIT_EXTERNAL_DIFF: 'x', GIT_CONFIG_PARAMETERS: "'core.pager=x'", GIT_SSH_COMMAND: 'x' }, '/w/.git');
  assert.deepEqual(env, {
    PATH: '/bin',
    GIT_CONFIG_PARAMETERS: '',
    GIT_CONFIG_COUNT: '0',
    GIT_DIR: '/w/.git',
    GIT_WORK_TREE: '/w',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_NO_LAZY_FETCH: '1',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
  });
  for (const k of Object.keys(env)) if (k.startsWith('GIT_')) assert.ok(GIT_READ_ONLY_ENV.includes(k), `${k} reaches a client's terminal too`);
});

describe('a repository that tracks a protected file: what prints tracked content needs a human', () => {
  const repo = path.join(base, 'tracks');
  const run = (...args: string[]) => spawnSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: base } });
  if (haveGit) {
    fs.mkdirSync(repo);
    run('init', '-q');
    fs.writeFileSync(path.join(repo, '.env'), 'TOKEN=1\n');
    fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n');
    run('add', '.env', 'a.txt');
    run('-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '-m', 'oops');
  }
  const shellIn = (dir: string) => {
    const g = new Gate({ envelope: buildEnvelope('default', UNSANDBOXED, FLOOR_RULES) });
    g.add(new LocalShell({ root: dir, policy: { ...DEFAULT_SHELL_POLICY, _allowed_dir: '.' }, env: { ...process.env, HOME: base } }));
    return g;
  };
  test('git show, git diff, git log -p ask; git status and git log do not', async (t) => {
    if (skip(t)) return;
    const g = new Gate({ envelope: buildEnvelope('default', UNSANDBOXED, FLOOR_RULES), autoApprove: true });
    g.add(new LocalShell({ root: repo, policy: { ...DEFAULT_SHELL_POLICY, _allowed_dir: '.' }, env: { ...process.env, HOME: base } }));
    for (const command of ['git show', 'git diff HEAD~0', 'git log -p', 'git log --patch -1', 'git log --pat']) {
      const ev = await g.evaluate('local_shell', { command });
      assert.equal(ev.decision.action, 'approve', command);
      assert.equal(ev.decision.argRule?.rule, 'git tracked protected files', command);
      assert.match(ev.decision.sentence, /tracks \.env/);
    }
    for (const command of ['git status', 'git log --oneline', 'git log --stat']) assert.equal((await g.evaluate('local_shell', { command })).decision.action, 'allow', command);
  });
  test('with nobody to ask, the command policy refuses them', async (t) => {
    if (skip(t)) return;
    const err = await shellIn(repo).call('local_shell', { command: 'git show' }).catch((e) => e);
    assert.ok(isToolError(err) && err.code === 'approval_required' && err.details?.rule === 'needs-approval', String(err));
  });
  test('the index is read in every version git writes (2, 3, 4)', async (t) => {
    if (skip(t)) return;
    const { indexPaths } = await import('../../../src/core/shell/git_index.ts');
    for (const v of ['2', '3', '4']) {
      run('update-index', '--index-version', v);
      assert.deepEqual(indexPaths(fs.readFileSync(path.join(repo, '.git', 'index'))), ['.env', 'a.txt'], `version ${v}`);
    }
  });
});
