// git_status and git_diff read the index, HEAD's tree and the working tree in one pass each
// (matrix.ts). Their answers are checked here on real repositories in every state a file can be
// in, against the git binary's own status and diff, and row for row against isomorphic-git's
// statusMatrix (the walk they replace), so a fast answer is never a different answer.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { gitContext } from '../../../src/core/native_git/engine.ts';
import { statusRows } from '../../../src/core/native_git/matrix.ts';
import { openRepo } from '../../../src/core/native_git/repo.ts';
import { git, patchIndex, refusal, repo, toolset, write } from './fixture.ts';

type Status = { staged: { path: string; code: string }[]; unstaged: { path: string; code: string }[]; untracked: string[] };

/** Every state at once: staged, unstaged, both, deleted (each way), renamed, untracked, ignored, excluded, links, a submodule. */
function everyState(): string {
  const dir = repo([
    {
      message: 'base',
      files: {
        '.gitignore': '*.log\nbuild/\n!keep.log\n',
        'staged.txt': 'one\n',
        'unstaged.txt': 'one\n',
        'both.txt': 'one\n',
        'gone.txt': 'one\n',
        'removed.txt': 'one\n',
        'old-name.txt': 'moved\n',
        'mode.sh': 'echo hi\n',
        'a/b/deep.txt': 'deep\n',
        'a/b-c.txt': 'sibling\n',
        'a-b.txt': 'order\n',
        'docs/.gitignore': '*.tmp\n!notes.log\n',
        'docs/readme.md': 'read me\n',
        'tracked.log': 'tracked though ignored\n',
      },
    },
  ]);
  fs.symlinkSync('staged.txt', path.join(dir, 'link'));
  fs.symlinkSync('a', path.join(dir, 'dirlink'));
  fs.symlinkSync('a-b.txt', path.join(dir, 'samelink'));
  git(dir, 'add', 'link', 'dirlink', 'samelink');
  // a submodule as git records it: a gitlink in the index and HEAD, an empty directory on disk
  const sub = git(dir, 'rev-parse', 'HEAD').trim();
  git(dir, 'update-index', '--add', '--cacheinfo', `160000,${sub},vendor/sub`);
  fs.mkdirSync(path.join(dir, 'vendor/sub'), { recursive: true });
  git(dir, 'commit', '-q', '-m', 'links and a submodule');
  write(dir, { 'staged.txt': 'two\n', 'both.txt': 'two\n', 'added.txt': 'new\n', 'added-then-gone.txt': 'x\n' });
  git(dir, 'add', 'staged.txt', 'both.txt', 'added.txt', 'added-then-gone.txt');
  git(dir, 'mv', 'old-name.txt', 'new-name.txt');
  git(dir, 'rm', '-q', 'removed.txt');
  write(dir, { 'unstaged.txt': 'two\n', 'both.txt': 'three\n', 'tracked.log': 'changed\n' });
  fs.rmSync(path.join(dir, 'gone.txt'));
  fs.rmSync(path.join(dir, 'added-then-gone.txt'));
  fs.rmSync(path.join(dir, 'link'));
  fs.symlinkSync('unstaged.txt', path.join(dir, 'link'));
  fs.chmodSync(path.join(dir, 'mode.sh'), 0o755);
  // made again with the same target: its stat changed, its content (the target's name) did not
  fs.rmSync(path.join(dir, 'samelink'));
  fs.symlinkSync('a-b.txt', path.join(dir, 'samelink'));
  // a second submodule, staged and not committed
  git(dir, 'update-index', '--add', '--cacheinfo', `160000,${sub},vendor/staged-sub`);
  fs.mkdirSync(path.join(dir, 'vendor/staged-sub'));
  write(dir, {
    'new.txt': 'untracked\n',
    'newdir/inner/x.txt': 'untracked, deep\n',
    'debug.log': 'ignored\n',
    'keep.log': 'un-ignored\n',
    'build/out.js': 'ignored dir\n',
    'docs/draft.tmp': 'ignored below\n',
    'docs/notes.log': 'ignored at the top, un-ignored below\n',
    'local.cfg': 'excluded\n',
    'a/b/new.txt': 'untracked in a tracked dir\n',
  });
  fs.symlinkSync('nowhere', path.join(dir, 'dangling'));
  fs.appendFileSync(path.join(dir, '.git/info/exclude'), 'local.cfg\n');
  return dir;
}

/** What the git binary says, in the shape git_status answers. */
function binaryStatus(dir: string): Status {
  const out: Status = { staged: [], unstaged: [], untracked: [] };
  for (const line of git(dir, 'status', '--porcelain', '--no-renames', '--untracked-files=all').split('\n').filter(Boolean)) {
    const [x, y, p] = [line[0], line[1], line.slice(3)];
    if (x === '?') out.untracked.push(p);
    else {
      if (x !== ' ') out.staged.push({ path: p, code: x });
      if (y !== ' ') out.unstaged.push({ path: p, code: y });
    }
  }
  return out;
}

const sorted = (s: Status) => ({
  staged: [...s.staged].sort((a, b) => a.path.localeCompare(b.path)),
  unstaged: [...s.unstaged].sort((a, b) => a.path.localeCompare(b.path)),
  untracked: [...s.untracked].sort(),
});

async function isoRows(dir: string, filepaths = ['.']) {
  const c = await gitContext(openRepo('t', dir, dir));
  const fast = await statusRows(c, filepaths, { withUnchanged: true });
  // the callers' form: the same rows without those where HEAD, working tree and index agree
  assert.deepEqual(await statusRows(c, filepaths), fast.filter((r) => !(r[1] === 1 && r[2] === 1 && r[3] === 1)));
  return { fast, walk: await c.git.statusMatrix({ ...c.args, filepaths, refresh: false }) };
}

test('git_status answers as the git binary does in every state a file can be in', async () => {
  const dir = everyState();
  const ours = (await toolset(dir).call('git_status', {})) as Status;
  const want = binaryStatus(dir);
  // git reports a mode change (chmod +x) that isomorphic-git, comparing contents only, never did
  want.unstaged = want.unstaged.filter((e) => e.path !== 'mode.sh');
  // nor a submodule (a gitlink), staged or changed: status leaves them out
  want.staged = want.staged.filter((e) => !e.path.startsWith('vendor/'));
  assert.deepEqual(sorted({ staged: ours.staged, unstaged: ours.unstaged, untracked: ours.untracked }), sorted(want));
  assert.ok(ours.untracked.includes('keep.log') && ours.untracked.includes('docs/notes.log') && !ours.untracked.includes('local.cfg') && !ours.untracked.includes('build/out.js'));
});

test('the rows are isomorphic-git statusMatrix rows, in its order, for the whole tree and under a path', async () => {
  const dir = everyState();
  for (const scope of [['.'], ['a'], ['a/b/deep.txt'], ['docs', 'newdir']]) {
    const { fast, walk } = await isoRows(dir, scope);
    assert.deepEqual(fast, walk, `under ${scope.join(', ')}`);
  }
});

test('git_diff names the files git diff HEAD names, and diffs them', async () => {
  const dir = everyState();
  const ours = (await toolset(dir).call('git_diff', {})) as { files: string[]; untracked: string[]; text: string };
  const want = git(dir, 'diff', 'HEAD', '--name-only', '--no-renames').split('\n').filter((p) => p && p !== 'mode.sh' && !p.startsWith('vendor/'));
  // a file staged new and then deleted is in neither HEAD nor the working tree: git diff HEAD
  // leaves it out, git_diff has always named it (with an empty diff), beside the staged changes
  assert.deepEqual([...ours.files].sort(), [...want, 'added-then-gone.txt'].sort());
  assert.match(ours.text, /^-one\n\+three$/m);
  const untracked = git(dir, 'ls-files', '--others', '--exclude-standard').split('\n').filter(Boolean);
  assert.deepEqual([...ours.untracked].sort(), untracked.sort());
});

test('a racily clean file (its stat matches an index no newer than it) is read, as git reads it', async () => {
  const dir = repo([{ message: 'one', files: { 'racy.txt': 'aaaa\n', 'calm.txt': 'calm\n' } }]);
  fs.writeFileSync(path.join(dir, 'racy.txt'), 'bbbb\n');
  // the index entry now carries the edited file's stat but the old content's oid: what an index
  // written in the same instant as the edit looks like
  const st = fs.lstatSync(path.join(dir, 'racy.txt'), { bigint: true });
  patchIndex(dir, (buf) => {
    const at = buf.indexOf('racy.txt') - 62;
    const ns = 1_000_000_000n;
    buf.writeUInt32BE(Number(st.ctimeNs / ns), at);
    buf.writeUInt32BE(Number(st.ctimeNs % ns), at + 4);
    buf.writeUInt32BE(Number(st.mtimeNs / ns), at + 8);
    buf.writeUInt32BE(Number(st.mtimeNs % ns), at + 12);
    buf.writeUInt32BE(Number(st.ino % 2n ** 32n), at + 20);
    // git smudges a racily clean entry's size to 0 when it writes the index: not this writer
    buf.writeUInt32BE(Number(st.size), at + 36);
  });
  // and the index is no older than the file
  fs.utimesSync(path.join(dir, '.git/index'), st.atime, st.mtime);
  const ours = (await toolset(dir).call('git_status', {})) as Status;
  assert.deepEqual(ours.unstaged, [{ path: 'racy.txt', code: 'M' }]);
  assert.deepEqual(binaryStatus(dir).unstaged, [{ path: 'racy.txt', code: 'M' }]);
});

test('a split index is refused with what to run, never read as if whole', async () => {
  const dir = repo([{ message: 'one', files: { 'a.txt': 'a\n' } }]);
  git(dir, 'update-index', '--split-index');
  const msg = await refusal(toolset(dir).call('git_status', {}), 'io_error');
  assert.match(msg, /split index.*git update-index --no-split-index/);
});

test('an index in version 4 (prefix-compressed names), which isomorphic-git refuses, answers as version 2 does', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 12; i++) files[`src/mod${i % 3}/file${i}.txt`] = `${i}\n`;
  const dir = repo([{ message: 'files', files }]);
  write(dir, { 'src/mod1/file4.txt': 'changed\n', 'src/mod2/new.txt': 'new\n' });
  git(dir, 'rm', '-q', '--cached', 'src/mod0/file3.txt');
  git(dir, 'update-index', '--index-version', '2');
  const { fast, walk } = await isoRows(dir);
  assert.deepEqual(fast, walk);
  git(dir, 'update-index', '--index-version', '4');
  assert.equal(fs.readFileSync(path.join(dir, '.git/index')).readUInt32BE(4), 4);
  const c = await gitContext(openRepo('t', dir, dir));
  assert.deepEqual(await statusRows(c, ['.'], { withUnchanged: true }), walk);
});

test('an index with an intent-to-add entry takes isomorphic-git own walk, with its answers', async () => {
  const dir = everyState();
  write(dir, { 'intent.txt': 'intended\n' });
  git(dir, 'add', '-N', 'intent.txt');
  const { fast, walk } = await isoRows(dir);
  assert.deepEqual(fast, walk);
});

test('an index with a merge conflict takes isomorphic-git own walk, with its answers', async () => {
  const dir = repo([{ message: 'base', files: { 'c.txt': 'base\n' } }]);
  git(dir, 'checkout', '-q', '-b', 'other');
  write(dir, { 'c.txt': 'other\n' });
  git(dir, 'commit', '-q', '-am', 'other');
  git(dir, 'checkout', '-q', 'main');
  write(dir, { 'c.txt': 'main\n' });
  git(dir, 'commit', '-q', '-am', 'main');
  try {
    git(dir, 'merge', '-q', 'other');
  } catch {
    // the conflict is the point
  }
  const { fast, walk } = await isoRows(dir);
  assert.deepEqual(fast, walk);
});

test("HEAD's tree is read where the index's cache tree is valid but not HEAD's (after a soft reset)", async () => {
  const dir = repo([
    { message: 'one', files: { 'a/x.txt': 'x\n', 'b/y.txt': 'y\n', 'top.txt': 't\n' } },
    { message: 'two', files: { 'a/x.txt': 'x2\n', 'a/new.txt': 'n\n', 'top.txt': 't2\n' }, remove: ['b/y.txt'] },
  ]);
  git(dir, 'reset', '-q', '--soft', 'HEAD~1');
  assert.match(git(dir, 'ls-files', '--debug', 'top.txt'), /top\.txt/);
  const ours = (await toolset(dir).call('git_status', {})) as Status;
  assert.deepEqual(sorted({ staged: ours.staged, unstaged: ours.unstaged, untracked: ours.untracked }), sorted(binaryStatus(dir)));
  assert.equal(ours.staged.length, 4);
  const { fast, walk } = await isoRows(dir);
  assert.deepEqual(fast, walk);
});
