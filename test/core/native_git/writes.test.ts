// native-git's four writes on real repositories, checked with the git binary afterwards: add then
// commit, the empty-index and missing-identity refusals, one string as one path, branch creation
// and switching with both teaching errors, restore (discard and unstage) with the whole-repository
// refusal, and a switch that would overwrite uncommitted work.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { test } from 'node:test';
import { commitIdentity } from '../../../src/core/native_git/identity.ts';
import { git, refusal, repo, tempDir, text, toolset, write } from './fixture.ts';

const base = () => repo([{ files: { 'a.txt': 'one\n', 'b.txt': 'bee\n' }, message: 'first' }]);

test('git_add then git_commit: git sees the commit, its message, author and content', async () => {
  const dir = base();
  const ts = toolset(dir);
  write(dir, { 'a.txt': 'one\ntwo\n', 'c.txt': 'sea\n' });
  assert.equal(await text(ts, 'git_add', { paths: ['a.txt', 'c.txt'] }), 'staged a.txt, c.txt\n');
  assert.equal(git(dir, 'diff', '--cached', '--name-only'), 'a.txt\nc.txt\n');
  const r = (await ts.call('git_commit', { message: '  add two and c\n\nbody line  ' })) as { hash: string; text: string };
  assert.match(r.text, /^committed [0-9a-f]{8} on main: add two and c \(2 file\(s\)\)\n$/);
  assert.equal(git(dir, 'rev-parse', '--short=8', 'HEAD').trim(), r.hash);
  assert.equal(git(dir, 'log', '-1', '--format=%an <%ae>%n%B'), 'Test Author <test@example.com>\nadd two and c\n\nbody line\n\n');
  assert.equal(git(dir, 'status', '--porcelain'), '');
  const show = await text(ts, 'git_show', { ref: 'HEAD' });
  assert.match(show, /\+two\n/);
  assert.match(show, /diff --git a\/c\.txt b\/c\.txt\nnew file\n/);
  assert.doesNotMatch(show, /root commit/);
});

test('git_add: "." stages every change, deletions included; nothing to stage is said', async () => {
  const dir = base();
  const ts = toolset(dir);
  fs.rmSync(path.join(dir, 'b.txt'));
  write(dir, { 'n/new.txt': 'x\n' });
  assert.equal(await text(ts, 'git_add', { paths: '.' }), 'staged b.txt, n/new.txt\n');
  assert.equal(git(dir, 'status', '--porcelain'), 'D  b.txt\nA  n/new.txt\n');
  assert.match(await refusal(ts.call('git_add', { paths: '.' }), 'not_found'), /nothing to stage under everything/);
});

test('one string is one path: "a.txt my notes.txt" is not split on spaces', async () => {
  const dir = base();
  write(dir, { 'a.txt my notes.txt': 'spaced\n', 'a.txt': 'changed\n' });
  const ts = toolset(dir);
  assert.equal(await text(ts, 'git_add', { paths: 'a.txt my notes.txt' }), 'staged a.txt my notes.txt\n');
  assert.equal(git(dir, 'diff', '--cached', '--name-only'), 'a.txt my notes.txt\n');
  assert.match(await refusal(ts.call('git_add', { paths: 'b.txt c.txt' }), 'not_found'), /nothing to stage under b\.txt c\.txt/);
});

test('git_commit refuses an empty index, naming git_add', async () => {
  const ts = toolset(base());
  assert.match(await refusal(ts.call('git_commit', { message: 'x' }), 'not_found'), /nothing is staged: call git_add with the paths to include, then commit/);
  assert.match(await refusal(ts.call('git_commit', { message: '   ' }), 'bad_args'), /message is required/);
});

test('git_commit without an identity says how to set one; the global config and the environment count', async () => {
  const dir = tempDir();
  git(dir, 'init', '-q', '-b', 'main');
  write(dir, { 'f.txt': 'x\n' });
  const home = tempDir();
  const saved = { HOME: process.env.HOME, XDG: process.env.XDG_CONFIG_HOME, N: process.env.GIT_AUTHOR_NAME, E: process.env.GIT_AUTHOR_EMAIL };
  process.env.HOME = home;
  delete process.env.XDG_CONFIG_HOME;
  delete process.env.GIT_AUTHOR_NAME;
  delete process.env.GIT_AUTHOR_EMAIL;
  try {
    const ts = toolset(dir);
    await ts.call('git_add', { paths: 'f.txt' });
    assert.match(await refusal(ts.call('git_commit', { message: 'm' }), 'bad_args'), /no commit identity\. Set one, e\.g\. `git config user\.name "Your Name"` and `git config user\.email you@example\.com`/);
    fs.writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = "Global Person" # comment\n\temail = global@example.com\n');
    assert.deepEqual(commitIdentity(path.join(dir, '.git'), {}, home), { name: 'Global Person', email: 'global@example.com' });
    assert.deepEqual(commitIdentity(path.join(dir, '.git'), { GIT_AUTHOR_NAME: 'Env', GIT_AUTHOR_EMAIL: 'env@x' }, home), { name: 'Env', email: 'env@x' });
    await ts.call('git_commit', { message: 'm' });
    assert.equal(git(dir, 'log', '-1', '--format=%an <%ae>'), 'Global Person <global@example.com>\n');
  } finally {
    for (const [k, v] of [['HOME', saved.HOME], ['XDG_CONFIG_HOME', saved.XDG], ['GIT_AUTHOR_NAME', saved.N], ['GIT_AUTHOR_EMAIL', saved.E]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
});

test('git_checkout_branch: create, switch, and the two errors that say what to pass', async () => {
  const dir = base();
  const ts = toolset(dir);
  assert.equal(await text(ts, 'git_checkout_branch', { branch: 'feature', create: true }), 'created and switched to branch feature\n');
  assert.equal(git(dir, 'branch', '--show-current'), 'feature\n');
  write(dir, { 'feat.txt': 'f\n' });
  await ts.call('git_add', { paths: 'feat.txt' });
  await ts.call('git_commit', { message: 'feat' });
  assert.match(await refusal(ts.call('git_checkout_branch', { branch: 'feature', create: true }), 'bad_args'), /branch feature already exists: call it again with create=false to switch to it/);
  assert.match(await refusal(ts.call('git_checkout_branch', { branch: 'nope' }), 'not_found'), /branch nope does not exist: call it again with create=true to create it/);
  assert.match(await refusal(ts.call('git_checkout_branch', { branch: '-x', create: true }), 'bad_args'), /not a branch name/);
  assert.equal(await text(ts, 'git_checkout_branch', { branch: 'main' }), 'switched to branch main\n');
  assert.equal(git(dir, 'branch', '--show-current'), 'main\n');
  assert.equal(fs.existsSync(path.join(dir, 'feat.txt')), false);
  assert.equal(git(dir, 'status', '--porcelain'), '');
});

test('git_checkout_branch will not overwrite uncommitted changes', async () => {
  const dir = base();
  git(dir, 'checkout', '-q', '-b', 'other');
  write(dir, { 'a.txt': 'other\n' });
  git(dir, 'commit', '-q', '-am', 'other');
  git(dir, 'checkout', '-q', 'main');
  write(dir, { 'a.txt': 'my work\n' });
  assert.match(await refusal(toolset(dir).call('git_checkout_branch', { branch: 'other' }), 'bad_args'), /uncommitted changes to a\.txt would be overwritten/);
  assert.equal(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'my work\n');
});

test('git_restore: discards a change, or only unstages it; never the whole repository; not a file HEAD lacks', async () => {
  const dir = base();
  const ts = toolset(dir);
  write(dir, { 'a.txt': 'edited\n', 'b.txt': 'staged edit\n', 'new.txt': 'n\n' });
  git(dir, 'add', 'b.txt', 'new.txt');
  assert.equal(await text(ts, 'git_restore', { paths: 'b.txt', staged: true }), 'unstaged b.txt (file contents left alone)\n');
  assert.equal(fs.readFileSync(path.join(dir, 'b.txt'), 'utf8'), 'staged edit\n');
  assert.equal(git(dir, 'diff', '--cached', '--name-only'), 'new.txt\n');
  assert.equal(await text(ts, 'git_restore', { paths: ['a.txt', 'b.txt'] }), 'restored a.txt, b.txt to HEAD (uncommitted changes discarded)\n');
  assert.equal(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'one\n');
  assert.equal(fs.readFileSync(path.join(dir, 'b.txt'), 'utf8'), 'bee\n');
  for (const p of ['.', '', ['a.txt', '.']]) {
    assert.match(await refusal(ts.call('git_restore', { paths: p }), p === '' ? 'bad_args' : 'bad_args'), /name the files to restore: restoring the whole repository at once is refused|paths is required/);
  }
  assert.match(await refusal(ts.call('git_restore', { paths: 'new.txt' }), 'bad_args'), /new\.txt is not in HEAD, so there is nothing to restore it to\. To unstage, call git_restore with staged=true/);
  assert.equal(await text(ts, 'git_restore', { paths: 'new.txt', staged: true }), 'unstaged new.txt (file contents left alone)\n');
  assert.equal(fs.readFileSync(path.join(dir, 'new.txt'), 'utf8'), 'n\n');
  fs.rmSync(path.join(dir, 'a.txt'));
  assert.equal(await text(ts, 'git_restore', { paths: 'a.txt' }), 'restored a.txt to HEAD (uncommitted changes discarded)\n');
  assert.equal(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'one\n');
  assert.match(await refusal(ts.call('git_restore', { paths: 'a.txt' }), 'not_found'), /nothing to restore under a\.txt/);
});
