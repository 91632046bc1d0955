// A session's additional directories as an attacker would try them: what is refused as a root
// (relative, missing, a file, /, the home, a protected directory), and what confinement with
// them refuses (a link inside one pointing out, `..` out of one, a root swapped for a link after
// the session started). A path inside one is taken and shown by its absolute path.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { isToolError } from '../../../src/core/errors.ts';
import { additionalRoots } from '../../../src/core/local_fs/extra_roots.ts';
import { confine } from '../../../src/core/paths.ts';
import { PathMatcher } from '../../../src/core/protect/matcher.ts';
import { globsOf } from '../../../src/core/protect/table.ts';
import { tempDir } from '../fs_helpers.ts';

function world() {
  const base = fs.realpathSync(tempDir('cxl-extra-'));
  const home = path.join(base, 'home');
  const root = path.join(home, 'project');
  const other = path.join(home, 'other');
  for (const d of [root, other, path.join(home, '.ssh'), path.join(base, 'outside')]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(other, 'notes.txt'), 'notes\n');
  fs.writeFileSync(path.join(base, 'outside', 'secret.txt'), 'secret\n');
  fs.writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'key\n');
  const matcher = new PathMatcher(globsOf('quarantine', home), globsOf('read_approve', home), globsOf('always_ask', home));
  return { base, home, root, other, matcher };
}

function code(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (err) {
    if (isToolError(err)) return err.code;
    throw err;
  }
}

test('an additional directory is refused when relative, missing, a file, /, the home or above it, or protected', () => {
  const w = world();
  const o = { root: w.root, home: w.home, matcher: w.matcher };
  const refused = (d: unknown, why: RegExp) => assert.throws(() => additionalRoots([d], o), (e: unknown) => isToolError(e) && e.code === 'bad_path' && why.test(e.message), String(d));
  refused('other', /relative/);
  refused('../other', /relative/);
  refused(path.join(w.home, 'missing'), /does not exist/);
  refused(path.join(w.other, 'notes.txt'), /not a directory/);
  refused('/', /file system root/);
  refused(w.home, /holds the home directory/);
  refused(w.base, /holds the home directory/);
  refused(path.join(w.home, '.ssh'), /protected directory/);
  // a link to the protected directory is the protected directory
  fs.symlinkSync(path.join(w.home, '.ssh'), path.join(w.home, 'keys'));
  refused(path.join(w.home, 'keys'), /protected directory/);
  refused(42, /absolute path/);
  // taken: canonical, the session root itself and repeats dropped
  fs.symlinkSync(w.other, path.join(w.base, 'other-link'));
  assert.deepEqual(additionalRoots([w.other, path.join(w.base, 'other-link'), w.root], o), [w.other]);
});

test('confinement with an additional directory: inside it is taken, shown absolute; links and .. out of it are escapes', () => {
  const w = world();
  const extra = additionalRoots([w.other], { root: w.root, home: w.home, matcher: w.matcher });
  // inside: absolute, and relative from the root through ..
  const c = confine(w.root, path.join(w.other, 'notes.txt'), extra);
  assert.equal(c.real, path.join(w.other, 'notes.txt'));
  assert.equal(c.rel, path.join(w.other, 'notes.txt'));
  assert.equal(c.exists, true);
  assert.equal(confine(w.root, '../other/notes.txt', extra).real, path.join(w.other, 'notes.txt'));
  assert.equal(confine(w.root, path.join(w.other, 'new.txt'), extra).exists, false);
  // the workspace itself is as before
  assert.equal(confine(w.root, 'a.txt', extra).rel, 'a.txt');
  // without the additional directory it is an escape
  assert.equal(code(() => confine(w.root, path.join(w.other, 'notes.txt'))), 'escape');
  // .. out of it
  assert.equal(code(() => confine(w.root, path.join(w.other, '..', '..', 'outside', 'secret.txt'), extra)), 'escape');
  assert.equal(code(() => confine(w.root, `${w.other}/../.ssh/id_ed25519`, extra)), 'escape');
  // a link inside it pointing out (to a file, to a directory), and a dangling one
  fs.symlinkSync(path.join(w.base, 'outside', 'secret.txt'), path.join(w.other, 'leak.txt'));
  fs.symlinkSync(path.join(w.base, 'outside'), path.join(w.other, 'leakdir'));
  fs.symlinkSync(path.join(w.base, 'nowhere'), path.join(w.other, 'dangling'));
  assert.equal(code(() => confine(w.root, path.join(w.other, 'leak.txt'), extra)), 'escape');
  assert.equal(code(() => confine(w.root, path.join(w.other, 'leakdir', 'secret.txt'), extra)), 'escape');
  assert.equal(code(() => confine(w.root, path.join(w.other, 'dangling'), extra)), 'escape');
  // a link to elsewhere in it, or into the workspace, is inside
  fs.symlinkSync(path.join(w.other, 'notes.txt'), path.join(w.other, 'alias.txt'));
  assert.equal(confine(w.root, path.join(w.other, 'alias.txt'), extra).real, path.join(w.other, 'notes.txt'));
});

test('an additional directory given as a link is resolved once: swapping the link for one to /etc later widens nothing', () => {
  const w = world();
  const link = path.join(w.home, 'work');
  fs.symlinkSync(w.other, link);
  const extra = additionalRoots([link], { root: w.root, home: w.home, matcher: w.matcher });
  assert.deepEqual(extra, [w.other]);
  assert.equal(confine(w.root, path.join(link, 'notes.txt'), extra).real, path.join(w.other, 'notes.txt'));
  fs.rmSync(link);
  fs.symlinkSync('/etc', link);
  assert.equal(code(() => confine(w.root, path.join(link, 'passwd'), extra)), 'escape');
  assert.equal(code(() => confine(w.root, '/etc/passwd', extra)), 'escape');
});
