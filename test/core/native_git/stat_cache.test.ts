// git_status and git_diff trust a tracked file's index entry when its stat matches (status reads
// no unchanged file): these are the cases where a stat cache goes wrong. A same-size edit in the
// instant the index was written (racy git), a file touched but not changed, a file renamed, a file
// replaced by another of the same size and time (a new inode), each answered as the git binary
// answers it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { git, patchIndex, repo, text, toolset, write } from './fixture.ts';

type Status = { staged: { path: string; code: string }[]; unstaged: { path: string; code: string }[]; untracked: string[]; clean: boolean };

/** The git binary's `git status` as unstaged codes and untracked paths (nothing is staged in these tests). */
function binary(dir: string): { unstaged: { path: string; code: string }[]; untracked: string[] } {
  const out = { unstaged: [] as { path: string; code: string }[], untracked: [] as string[] };
  for (const line of git(dir, 'status', '--porcelain', '--no-renames', '--untracked-files=all').split('\n').filter(Boolean)) {
    if (line.startsWith('??')) out.untracked.push(line.slice(3));
    else out.unstaged.push({ path: line.slice(3), code: line[1] });
  }
  return out;
}

test('a same-size edit in the second the index was written is read and shown modified (racy git), as git shows it', async () => {
  const dir = repo([{ message: 'one', files: { 'racy.txt': 'aaaa\n', 'calm.txt': 'calm\n' } }]);
  const file = path.join(dir, 'racy.txt');
  fs.writeFileSync(file, 'bbbb\n');
  // the entry holds the edited file's whole stat but the old content's oid: git stat'ed the file
  // after the edit and hashed it before, all within one second (ctime, mtime, size, inode match)
  const st = fs.lstatSync(file, { bigint: true });
  const ns = 1_000_000_000n;
  patchIndex(dir, (buf) => {
    const at = buf.indexOf('racy.txt') - 62;
    buf.writeUInt32BE(Number(st.ctimeNs / ns), at);
    buf.writeUInt32BE(Number(st.ctimeNs % ns), at + 4);
    buf.writeUInt32BE(Number(st.mtimeNs / ns), at + 8);
    buf.writeUInt32BE(Number(st.mtimeNs % ns), at + 12);
    buf.writeUInt32BE(Number(st.ino % 2n ** 32n), at + 20);
    buf.writeUInt32BE(Number(st.size), at + 36);
  });
  // the index written at the start of that same second: older than the entry by a fraction of a
  // second, so only the racy rule (an entry not older than its index is not trusted) catches it
  const second = Number(st.mtimeNs / ns);
  fs.utimesSync(path.join(dir, '.git/index'), second, second);
  const ours = (await toolset(dir).call('git_status', {})) as Status;
  assert.deepEqual(ours.unstaged, [{ path: 'racy.txt', code: 'M' }]);
  assert.match(await text(toolset(dir), 'git_diff'), /^-aaaa\n\+bbbb$/m);
  assert.deepEqual(binary(dir).unstaged, [{ path: 'racy.txt', code: 'M' }]);
});

test('a file touched, or rewritten with the same bytes, is clean: its stat differs, its content does not', async () => {
  const dir = repo([{ message: 'one', files: { 'touched.txt': 'same\n', 'rewritten.txt': 'same too\n', 'sub/deep.txt': 'deep\n' } }]);
  const later = new Date(Date.now() + 5000);
  fs.utimesSync(path.join(dir, 'touched.txt'), later, later);
  fs.utimesSync(path.join(dir, 'sub/deep.txt'), later, later);
  fs.writeFileSync(path.join(dir, 'rewritten.txt'), 'same too\n');
  const ours = (await toolset(dir).call('git_status', {})) as Status;
  assert.equal(ours.clean, true, JSON.stringify(ours));
  assert.equal(await text(toolset(dir), 'git_diff'), 'no changes against HEAD\n');
  assert.deepEqual(binary(dir), { unstaged: [], untracked: [] });
});

test('a renamed file, a file replaced by another of the same size and time, and a file replaced by a directory answer as git does', async () => {
  const dir = repo();
  write(dir, { 'moved.txt': 'moved\n', 'replaced.txt': '1111\n', 'same-bytes.txt': 'kept\n', 'now-a-dir': 'file\n', 'calm.txt': 'calm\n' });
  // whole seconds in the past: exact in every runtime's utimes, and no entry is racy, so only the
  // stat decides
  const past = Math.floor(Date.now() / 1000) - 100;
  for (const f of fs.readdirSync(dir)) if (f !== '.git') fs.utimesSync(path.join(dir, f), past, past);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'one');
  fs.renameSync(path.join(dir, 'moved.txt'), path.join(dir, 'moved-to.txt'));
  const replace = (name: string, content: string) => {
    const file = path.join(dir, name);
    const was = fs.lstatSync(file);
    const tmp = path.join(dir, `.${name}.tmp`);
    fs.writeFileSync(tmp, content);
    fs.utimesSync(tmp, past, past);
    fs.renameSync(tmp, file);
    const now = fs.lstatSync(file);
    // only the inode (and the ctime) tells the new file from the old
    assert.ok(now.ino !== was.ino && now.size === was.size && now.mtimeMs === was.mtimeMs);
  };
  replace('replaced.txt', '2222\n');
  replace('same-bytes.txt', 'kept\n');
  fs.rmSync(path.join(dir, 'now-a-dir'));
  fs.mkdirSync(path.join(dir, 'now-a-dir'));
  fs.writeFileSync(path.join(dir, 'now-a-dir/inside.txt'), 'inside\n');
  const ours = (await toolset(dir).call('git_status', {})) as Status;
  const want = binary(dir);
  const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
  assert.deepEqual([...ours.unstaged].sort(byPath), [...want.unstaged].sort(byPath));
  assert.deepEqual([...ours.untracked].sort(), [...want.untracked].sort());
  assert.deepEqual([...ours.unstaged].sort(byPath), [
    { path: 'moved.txt', code: 'D' },
    { path: 'now-a-dir', code: 'D' },
    { path: 'replaced.txt', code: 'M' },
  ]);
  assert.deepEqual([...ours.untracked].sort(), ['moved-to.txt', 'now-a-dir/inside.txt']);
  const diff = await text(toolset(dir), 'git_diff');
  assert.match(diff, /^-1111\n\+2222$/m);
  assert.doesNotMatch(diff, /same-bytes/);
});
