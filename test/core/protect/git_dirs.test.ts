// One answer to "is this a git dir, and which repository does git use here?": the file tools'
// write protection (the wall inside any git dir) and the shell's path rules (the repository a
// `git` step would use) must conclude the same on every layout git makes, made here by real git:
// a linked worktree (`git worktree add`), a gitfile (`git init --separate-git-dir`), a bare
// repository (`git init --bare`) and a submodule (its git dir in `.git/modules/<name>`).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, describe, test } from 'node:test';
import { discoverRepo, gitDirOf, gitWallFact, hooksDirs } from '../../../src/core/protect/git_dirs.ts';
import { stepArgs, type StepArgs } from '../../../src/core/shell/step_args.ts';

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-gitdirs-')));
after(() => fs.rmSync(base, { recursive: true, force: true }));
const root = path.join(base, 'ws');
fs.mkdirSync(root);
const haveGit = spawnSync('git', ['--version']).status === 0;

const git = (cwd: string, ...args: string[]) => {
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: base, GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };
  const r = spawnSync('git', ['-c', 'init.defaultBranch=main', '-c', 'protocol.file.allow=always', ...args], { cwd, encoding: 'utf8', env });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
};
const at = (rel: string) => path.join(root, rel);

if (haveGit) {
  git(root, 'init', '-q', 'main');
  fs.writeFileSync(at('main/a.txt'), 'a\n');
  git(at('main'), 'add', 'a.txt');
  git(at('main'), 'commit', '-q', '-m', 'one');
  git(at('main'), 'worktree', 'add', '-q', at('wt'));
  git(root, 'init', '-q', '--bare', 'bare.git');
  fs.mkdirSync(at('store'));
  git(root, 'init', '-q', `--separate-git-dir=${at('store/sep.git')}`, 'proj');
  git(root, 'init', '-q', 'lib');
  fs.writeFileSync(at('lib/l.txt'), 'l\n');
  git(at('lib'), 'add', 'l.txt');
  git(at('lib'), 'commit', '-q', '-m', 'lib');
  git(at('main'), 'submodule', '-q', 'add', at('lib'), 'sub');
}

/** The file tools: writing inside `dir` hits the wall of the git dir `dir` itself. */
function walledAsGitDir(dir: string): boolean {
  const fact = gitWallFact(path.join(dir, 'new-file'), root);
  return fact !== null && fact.why.includes(`\`${path.relative(root, dir)}\``);
}

/** The shell: the repository a `git status` run in `dir` would use. */
function shellRepo(dir: string): string | null {
  const a = stepArgs(['git', 'status'], [dir]) as StepArgs;
  assert.ok(a.git, 'the step is read as git');
  return a.git.repos[0];
}

const skip = (t: { diagnostic: (s: string) => void }) => {
  if (haveGit) return false;
  t.diagnostic('git is not installed here: no repositories to make');
  return true;
};

describe('the file tools and the shell agree on git dirs', () => {
  const gitDirs = ['main/.git', 'main/.git/worktrees/wt', 'bare.git', 'store/sep.git', 'main/.git/modules/sub'];
  const workTrees = ['main', 'wt', 'proj', 'main/sub'];

  test('a git dir of every kind: walled for the file tools, and the repository git uses when run in it', (t) => {
    if (skip(t)) return;
    for (const rel of gitDirs) {
      const dir = at(rel);
      assert.equal(walledAsGitDir(dir), true, `${rel}: the file tools wall it`);
      assert.equal(shellRepo(dir), dir, `${rel}: the shell says git uses it`);
    }
  });

  test("a work tree: not walled; git there uses its `.git`, whose git dir the file tools wall", (t) => {
    if (skip(t)) return;
    const expected: Record<string, string> = { main: 'main/.git', wt: 'main/.git/worktrees/wt', proj: 'store/sep.git', 'main/sub': 'main/.git/modules/sub' };
    for (const rel of workTrees) {
      const dir = at(rel);
      assert.equal(gitWallFact(path.join(dir, 'x.txt'), root), null, `${rel}: a work tree file is ordinary`);
      const found = shellRepo(dir);
      assert.equal(found, path.join(dir, '.git'), rel);
      assert.equal(gitDirOf(found!), at(expected[rel]), `${rel}: its .git leads to the git dir`);
      assert.equal(walledAsGitDir(at(expected[rel])), true, rel);
    }
  });

  test('discovery names the common dir and the work tree top; the hooks lookup reads the common config', (t) => {
    if (skip(t)) return;
    assert.deepEqual(discoverRepo(at('wt/sub-dir-that-does-not-matter/..')), { found: at('wt/.git'), gitDir: at('main/.git/worktrees/wt'), commonDir: at('main/.git'), top: at('wt') });
    assert.deepEqual(discoverRepo(at('main/.git/worktrees/wt')), { found: at('main/.git/worktrees/wt'), gitDir: at('main/.git/worktrees/wt'), commonDir: at('main/.git'), top: null });
    assert.deepEqual(discoverRepo(at('bare.git/refs')), { found: at('bare.git'), gitDir: at('bare.git'), commonDir: at('bare.git'), top: null });
    git(at('main'), 'config', 'core.hooksPath', 'team-hooks');
    const home = path.join(base, 'home');
    fs.mkdirSync(home, { recursive: true });
    assert.deepEqual(
      hooksDirs(at('wt'), home).map((h) => h.dir),
      [at('wt/team-hooks')],
      'the worktree runs the hooks the common config names, from its own top',
    );
  });
});
