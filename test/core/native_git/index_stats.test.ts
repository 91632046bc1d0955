// An index the git binary wrote is trusted as git trusts it: git_status and git_diff compare each
// file's stat with its index entry (nanoseconds included) and read only the files that changed,
// so a status leaves the index as git wrote it. Where the runtime reports only milliseconds the
// stats cannot match git's and the files are hashed instead: the answers are the same.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { git, repo, text, toolset, write } from './fixture.ts';

test('a status of a repository git indexed reads no unchanged file and leaves the index as git wrote it', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 30; i++) files[`src/f${i}.txt`] = `file ${i}\n`;
  const dir = repo([{ files, message: 'thirty files' }]);
  write(dir, { 'src/f7.txt': 'file 7, changed\n' });
  // older than the index git is about to write, so no entry is "racily clean" (smudged to be re-read)
  const past = new Date(Date.now() - 60_000);
  for (const f of Object.keys(files)) fs.utimesSync(path.join(dir, f), past, past);
  git(dir, 'status', '--porcelain');
  const index = path.join(dir, '.git', 'index');
  const before = fs.readFileSync(index);
  // what git recorded of a file, against what the runtime reports of it
  const debug = git(dir, 'ls-files', '--debug', 'src/f1.txt');
  const seen = (field: 'ctime' | 'mtime') => {
    const m = new RegExp(`${field}: (\\d+):(\\d+)`).exec(debug)!;
    return BigInt(m[1]) * 1_000_000_000n + BigInt(m[2]);
  };
  const st = fs.statSync(path.join(dir, 'src/f1.txt'), { bigint: true });
  const ts = toolset(dir);
  assert.match(await text(ts, 'git_status'), /changed but not staged:\n {2}M src\/f7\.txt\n/);
  assert.match(await text(ts, 'git_diff'), /^-file 7\n\+file 7, changed$/m);
  if (st.mtimeNs === seen('mtime') && st.ctimeNs === seen('ctime')) {
    // the runtime sees git's nanoseconds: nothing was re-hashed, so nothing was written back
    assert.ok(fs.readFileSync(index).equals(before), 'git_status rewrote an index whose stats all matched');
  } else {
    assert.equal(st.mtimeNs / 1_000_000_000n, seen('mtime') / 1_000_000_000n, 'the runtime and git disagree on the second');
  }
});
