// native-git's read tools on real repositories: the exact texts a model reads (status layout,
// diff headers, log and branch lines, a root commit's file list, blame), revisions isomorphic-git
// does not know (HEAD~n, ^2), the structured results, and the errors with what to do next.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { GIT_TOOLS } from '../../../src/core/native_git/tools.ts';
import { git, refusal, repo, tempDir, text, toolset, write } from './fixture.ts';

function twoCommits(): string {
  return repo([
    { files: { 'a.txt': 'one\ntwo\n', 'docs/guide.md': 'guide\n' }, message: 'first' },
    { files: { 'a.txt': 'one\ntwo\nthree\n' }, message: 'second: add three' },
  ]);
}

test('the ten tools, all git_*, with closed schemas; paths is a string or a list of strings', () => {
  const specs = toolset(repo([{ files: { f: 'x' }, message: 'm' }])).list();
  assert.deepEqual(specs.map((s) => s.name), ['git_status', 'git_diff', 'git_log', 'git_show', 'git_branch_list', 'git_blame', 'git_add', 'git_commit', 'git_checkout_branch', 'git_restore']);
  for (const s of specs) {
    assert.equal(s.toolset, 'native-git');
    assert.equal(s.inputSchema.additionalProperties, false);
    assert.ok(s.description.length > 20);
  }
  const add = GIT_TOOLS.find((t) => t.name === 'git_add')!;
  assert.deepEqual((add.inputSchema.properties.paths as { type: string[] }).type, ['string', 'array']);
});

test('git_status: the exact layout, staged / changed / untracked, and a clean tree', async () => {
  const dir = twoCommits();
  const ts = toolset(dir);
  const head = git(dir, 'rev-parse', '--short=8', 'HEAD').trim();
  assert.equal(await text(ts, 'git_status'), `branch main\nHEAD ${head} second: add three\nworking tree clean\n`);
  write(dir, { 'a.txt': 'changed\n', 'new.txt': 'n\n', 'staged.txt': 's\n' });
  git(dir, 'add', 'staged.txt');
  fs.rmSync(path.join(dir, 'docs/guide.md'));
  const r = (await ts.call('git_status', {})) as { staged: unknown[]; unstaged: unknown[]; untracked: string[]; clean: boolean; text: string };
  assert.equal(r.text, `branch main\nHEAD ${head} second: add three\nstaged for commit:\n  A staged.txt\nchanged but not staged:\n  M a.txt\n  D docs/guide.md\nuntracked:\n  new.txt\n`);
  assert.deepEqual(r.staged, [{ path: 'staged.txt', code: 'A' }]);
  assert.deepEqual(r.untracked, ['new.txt']);
  assert.equal(r.clean, false);
});

test('git_status before the first commit and on a detached HEAD', async () => {
  const empty = repo();
  assert.equal(await text(toolset(empty), 'git_status'), 'branch main (no commits yet)\nworking tree clean\n');
  const dir = twoCommits();
  const first = git(dir, 'rev-parse', 'HEAD~1').trim();
  git(dir, 'checkout', '-q', first);
  assert.match(await text(toolset(dir), 'git_status'), new RegExp(`^branch \\(detached at ${first.slice(0, 8)}\\)\\n`));
});

test('git_diff: headers per file, untracked listed not diffed, scoped to a path, nothing to say said', async () => {
  const dir = twoCommits();
  const ts = toolset(dir);
  assert.equal(await text(ts, 'git_diff'), 'no changes against HEAD\n');
  write(dir, { 'a.txt': 'one\nTWO\nthree\n', 'fresh.txt': 'x\n' });
  const d = await text(ts, 'git_diff');
  assert.equal(d, 'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\nuntracked (no diff: not in the repository yet): fresh.txt\n');
  assert.equal(await text(ts, 'git_diff', { path: 'docs' }), 'no changes against HEAD under docs\n');
  assert.match(await text(ts, 'git_diff', { path: 'a.txt' }), /^diff --git a\/a\.txt b\/a\.txt\n/);
  // staged and unstaged together, against HEAD
  git(dir, 'add', 'a.txt');
  write(dir, { 'a.txt': 'one\nTWO\nthree\nfour\n' });
  assert.match(await text(ts, 'git_diff', { path: 'a.txt' }), /-two\n\+TWO\n three\n\+four\n$/);
});

test('git_diff: binary files and a deleted file', async () => {
  const dir = repo([{ files: { 'bin.dat': 'a\u0000b', 'gone.txt': 'bye\n' }, message: 'm' }]);
  write(dir, { 'bin.dat': 'c\u0000d' });
  fs.rmSync(path.join(dir, 'gone.txt'));
  const d = await text(toolset(dir), 'git_diff');
  assert.match(d, /diff --git a\/bin\.dat b\/bin\.dat\nBinary files differ\n/);
  assert.match(d, /diff --git a\/gone\.txt b\/gone\.txt\ndeleted file\n--- a\/gone\.txt\n\+\+\+ \/dev\/null\n@@ -1 \+0,0 @@\n-bye\n/);
});

test('git_log: newest first, one line of facts and the subject; n and path narrow it', async () => {
  const dir = twoCommits();
  const ts = toolset(dir);
  const out = await text(ts, 'git_log');
  const entries = out.split(/(?=^[0-9a-f]{8} )/m);
  assert.equal(entries.length, 2);
  assert.match(entries[0], /^[0-9a-f]{8} Test Author <test@example\.com> \S+\n {4}second: add three\n$/);
  assert.match(entries[1], /^[0-9a-f]{8} Test Author <test@example\.com> \S+\n {4}first\n$/);
  assert.equal((await text(ts, 'git_log', { n: 1 })).split('\n').length, 3);
  assert.match(await text(ts, 'git_log', { path: 'docs/guide.md' }), /^[0-9a-f]{8} .*\n {4}first\n$/);
  assert.match(await text(ts, 'git_log', { path: 'docs' }), /^[0-9a-f]{8} .*\n {4}first\n$/);
  assert.equal(await text(ts, 'git_log', { path: 'nothing-here' }), 'no commits match nothing-here\n');
  assert.equal(await text(toolset(repo()), 'git_log'), 'no commits yet\n');
  const r = (await ts.call('git_log', { n: '1' })) as { commits: { hash: string; subject: string }[] };
  assert.equal(r.commits[0].hash, git(dir, 'rev-parse', 'HEAD').trim());
});

test('git_show: header, message and patch; a root commit lists its files; HEAD~n and ^n resolve', async () => {
  const dir = twoCommits();
  const ts = toolset(dir);
  const head = git(dir, 'rev-parse', 'HEAD').trim();
  const s = await text(ts, 'git_show', { ref: 'HEAD' });
  assert.ok(s.startsWith(`commit ${head}\nAuthor: Test Author <test@example.com>\nDate:   `), s);
  assert.match(s, /\n\n {4}second: add three\n\ndiff --git a\/a\.txt b\/a\.txt\n--- a\/a\.txt\n\+\+\+ b\/a\.txt\n@@ -1,2 \+1,3 @@\n one\n two\n\+three\n$/);
  assert.doesNotMatch(s, /root commit/);
  const root = await text(ts, 'git_show', { ref: 'HEAD~1' });
  assert.match(root, /\(root commit\) files:\n {2}a\.txt\n {2}docs\/guide\.md\n$/);
  assert.equal(await text(ts, 'git_show', { ref: 'HEAD^' }), root);
  assert.equal(await text(ts, 'git_show', { ref: head.slice(0, 7) }), s);
  assert.equal(await text(ts, 'git_show', { ref: 'main~1' }), root);
  git(dir, 'tag', '-a', 'v1', '-m', 'release', 'HEAD~1');
  assert.equal(await text(ts, 'git_show', { ref: 'v1' }), root);
  assert.match(await refusal(ts.call('git_show', { ref: 'HEAD~5' }), 'not_found'), /goes past the history/);
  assert.match(await refusal(ts.call('git_show', { ref: 'nope' }), 'not_found'), /cannot resolve "nope" in this repository: pass a commit hash, branch, tag, or HEAD/);
  assert.match(await refusal(ts.call('git_show', {}), 'bad_args'), /`ref` is required/);
});

test('git_show HEAD^2 names the second parent of a merge', async () => {
  const dir = repo([{ files: { 'a.txt': 'a\n' }, message: 'base' }]);
  git(dir, 'checkout', '-q', '-b', 'side');
  write(dir, { 'side.txt': 's\n' });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'on side');
  git(dir, 'checkout', '-q', 'main');
  write(dir, { 'main.txt': 'm\n' });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'on main');
  git(dir, 'merge', '-q', '--no-edit', 'side');
  const second = git(dir, 'rev-parse', 'HEAD^2').trim();
  assert.ok((await text(toolset(dir), 'git_show', { ref: 'HEAD^2' })).startsWith(`commit ${second}\n`));
});

test('git_branch_list: sorted, the current one starred', async () => {
  const dir = twoCommits();
  git(dir, 'branch', 'zeta');
  git(dir, 'branch', 'alpha', 'HEAD~1');
  const lines = (await text(toolset(dir), 'git_branch_list')).split('\n').filter(Boolean);
  assert.equal(lines.length, 3);
  assert.match(lines[0], /^ {2}alpha [0-9a-f]{8}$/);
  assert.match(lines[1], /^\* main [0-9a-f]{8}$/);
  assert.match(lines[2], /^ {2}zeta [0-9a-f]{8}$/);
  assert.equal(await text(toolset(repo()), 'git_branch_list'), 'no branches yet (the repository has no commits)\n');
});

test('git_blame: each line of HEAD with the commit that added it, agreeing with git blame', async () => {
  const dir = repo([
    { files: { 'f.txt': 'alpha\nbeta\ngamma\n' }, message: 'one' },
    { files: { 'f.txt': 'alpha\nBETA\ngamma\ndelta\n' }, message: 'two' },
    { files: { 'f.txt': 'zero\nalpha\nBETA\ngamma\ndelta\n' }, message: 'three' },
  ]);
  const r = (await toolset(dir).call('git_blame', { path: 'f.txt' })) as { lines: { hash: string; text: string }[]; text: string };
  const porcelain = git(dir, 'blame', '--porcelain', 'f.txt');
  const truth = [...porcelain.matchAll(/^([0-9a-f]{40}) \d+ (\d+)/gm)].map((m) => [Number(m[2]), m[1].slice(0, 8)] as const).sort((a, b) => a[0] - b[0]).map((x) => x[1]);
  assert.deepEqual(r.lines.map((l) => l.hash), truth);
  assert.deepEqual(r.lines.map((l) => l.text), ['zero', 'alpha', 'BETA', 'gamma', 'delta']);
  assert.match(r.text.split('\n')[0], /^[0-9a-f]{8} Test Author {10} {3}1\) zero$/);
  const ts = toolset(dir);
  assert.match(await refusal(ts.call('git_blame', { path: 'missing.txt' }), 'not_found'), /is it a file tracked in this repository/);
  assert.match(await refusal(ts.call('git_blame', { path: '.' }), 'bad_args'), /path must name a file, not the repository root/);
  assert.match(await refusal(toolset(repo()).call('git_blame', { path: 'f' }), 'not_found'), /no commits yet, so f has no history/);
});

test('no repository is an honest error; a repository above the root is outside unless _allowed_dir says so', async () => {
  const plain = tempDir();
  assert.match(await refusal(toolset(plain).call('git_status', {}), 'not_found'), /not under version control/);
  const dir = twoCommits();
  fs.mkdirSync(path.join(dir, 'sub'));
  for (const t of ['git_status', 'git_log', 'git_branch_list']) {
    assert.match(await refusal(toolset(path.join(dir, 'sub')).call(t, {}), 'escape'), /lies outside the allowed directory .*_allowed_dir = "\.\."/);
  }
  assert.match(await text(toolset(path.join(dir, 'sub'), { _allowed_dir: '..' }), 'git_status'), /^branch main\n/);
});

test('paths stay inside the repository, out of .git, and never through a link', async () => {
  const dir = twoCommits();
  fs.symlinkSync(path.join(dir, 'docs'), path.join(dir, 'linked'));
  const ts = toolset(dir);
  for (const [tool, args] of [['git_diff', { path: '../x' }], ['git_blame', { path: '/etc/passwd' }], ['git_add', { paths: ['a.txt', '../../etc'] }], ['git_restore', { paths: '../a' }]] as const) {
    assert.match(await refusal(ts.call(tool, args), 'escape'), /outside the repository/);
  }
  assert.match(await refusal(ts.call('git_diff', { path: '.git/config' }), 'escape'), /inside the git dir/);
  assert.match(await refusal(ts.call('git_blame', { path: 'linked/guide.md' }), 'escape'), /beyond a symbolic link \(linked\)/);
});

test('arguments are checked: unknown ones, missing ones, and tools native-git does not have', async () => {
  const ts = toolset(twoCommits());
  assert.match(await refusal(ts.call('git_status', { verbose: true }), 'bad_args'), /unknown argument `verbose`/);
  assert.match(await refusal(ts.call('git_commit', {}), 'bad_args'), /`message` is required/);
  assert.match(await refusal(ts.call('git_add', {}), 'bad_args'), /`paths` is required/);
  assert.match(await refusal(ts.call('git_add', { paths: ['  '] }), 'bad_args'), /paths is required \(a path, or an array of paths/);
  for (const t of ['git_push', 'git_pull', 'git_fetch', 'git_reset', 'git_merge', 'git_config']) {
    assert.match(await refusal(ts.call(t, {}), 'unknown_tool'), /network verbs, config writes, merge, rebase and reset are not offered/);
  }
});

test('results are capped at 32 KiB with a hint to narrow; the policy may only tighten the cap', async () => {
  const big = Array.from({ length: 4000 }, (_, i) => `line ${i} ${'x'.repeat(20)}`).join('\n');
  const dir = repo([{ files: { 'big.txt': `${big}\n` }, message: 'big' }]);
  write(dir, { 'big.txt': `${big.replace(/x/g, 'y')}\n` });
  const r = (await toolset(dir).call('git_diff', {})) as { text: string; truncated: boolean };
  assert.equal(r.truncated, true);
  assert.ok(Buffer.byteLength(r.text) <= 32 * 1024 + 200);
  assert.match(r.text, /\.\.\. \(git_diff truncated at 32768 bytes: pass path to diff one file or directory\)\n$/);
  const small = (await toolset(dir, { _max_output_bytes: '1000' }).call('git_diff', {})) as { text: string };
  assert.match(small.text, /truncated at 1000 bytes/);
  const loose = (await toolset(dir, { _max_output_bytes: '999999' }).call('git_diff', {})) as { text: string };
  assert.match(loose.text, /truncated at 32768 bytes/);
});
