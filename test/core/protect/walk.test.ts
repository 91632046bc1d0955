// The one walk for protected files, on real trees in temp dirs: how it names entries, when it
// enters a linked directory (only when following, each real one once), where it stops (the entry
// budget, the visitor, skipped names, unreadable directories), and that every walker built on it
// (the sandbox's workspace scan, the shell's look below a recursive reader's directory, the
// hard-link index) takes a link that leads to a protected file for that file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, describe, test } from 'node:test';
import { IdentityIndex } from '../../../src/core/protect/identity.ts';
import { WorkspaceScanner } from '../../../src/core/protect/scan.ts';
import { entryClass, firstProtected, walkTree, type WalkEntry, type WalkOptions } from '../../../src/core/protect/walk.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function temp(): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-walk-')));
  dirs.push(d);
  return d;
}
function put(root: string, rel: string, text = 'x\n'): string {
  const p = path.join(root, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  return p;
}

/** Every entry the walk visits, as `rel kind` (`rel -> target` for a resolved link), sorted. */
function visited(start: string, o: WalkOptions = {}): string[] {
  const out: string[] = [];
  walkTree(start, (e) => void out.push(e.target ? `${e.rel} -> ${path.relative(start, e.target.real)}` : `${e.rel} ${e.kind}`), o);
  return out.sort();
}

describe('walkTree', () => {
  const root = temp();
  put(root, 'a/b/f.txt');
  put(root, 'node_modules/m/index.js');
  fs.symlinkSync('a', path.join(root, 'la'));
  fs.symlinkSync('.', path.join(root, 'a/b/up')); // a cycle, for a walk that follows links
  fs.symlinkSync('missing', path.join(root, 'dangling'));

  test('names entries as walked; a link is an entry, never entered unless followed', () => {
    assert.deepEqual(visited(root), ['a dir', 'a/b dir', 'a/b/f.txt file', 'a/b/up link', 'dangling link', 'la link', 'node_modules dir', 'node_modules/m dir', 'node_modules/m/index.js file']);
    assert.deepEqual(visited(root, { rel: 'ws', skip: new Set(['node_modules', 'b']) }), ['ws/a dir', 'ws/a/b dir', 'ws/dangling link', 'ws/la link', 'ws/node_modules dir']);
  });

  test('followed links are entered once per real directory (a cycle ends); dangling ones are visited, not entered', () => {
    const got = visited(root, { links: 'follow', skip: new Set(['node_modules']) });
    assert.deepEqual(got, ['a dir', 'a/b dir', 'a/b/f.txt file', 'a/b/up -> a/b', 'dangling link', 'la -> a', 'node_modules dir']);
    // below a followed link the walk is at the real directory: its entries are not walked twice
    assert.equal(got.filter((g) => g.includes('f.txt')).length, 1);
  });

  test('the entry budget stops it (capped), so does the visitor; prune keeps it out of one directory', () => {
    const capped = walkTree(root, () => {}, { limit: 3 });
    assert.deepEqual(capped, { entries: 4, capped: true, stopped: false });
    let seen = 0;
    assert.deepEqual(
      walkTree(root, () => (++seen === 2 ? 'stop' : undefined)),
      { entries: 2, capped: false, stopped: true },
    );
    const pruned: string[] = [];
    walkTree(root, (e) => (pruned.push(e.rel), e.name === 'a' ? 'prune' : undefined));
    assert.equal(pruned.some((p) => p.startsWith('a/')), false);
  });

  test('an unreadable directory is skipped: what cannot be read here, a command cannot read either', (t) => {
    if (process.getuid?.() === 0) {
      // root reads every directory: the unreadable one is made by removing it mid-walk instead
      const gone = temp();
      put(gone, 'x/y/z.txt');
      const got: string[] = [];
      walkTree(gone, (e) => {
        got.push(e.rel);
        if (e.rel === 'x') fs.rmSync(path.join(gone, 'x'), { recursive: true });
      });
      assert.deepEqual(got, ['x']);
      t.diagnostic('running as root: the directory was removed between its listing and its read');
      return;
    }
    const locked = temp();
    put(locked, 'open/a.txt');
    put(locked, 'shut/.env');
    fs.chmodSync(path.join(locked, 'shut'), 0);
    try {
      assert.deepEqual(visited(locked), ['open dir', 'open/a.txt file', 'shut dir']);
    } finally {
      fs.chmodSync(path.join(locked, 'shut'), 0o700);
    }
  });

  test("an entry's class is its path's, and for a resolved link the strongest of its path's and its target's", () => {
    const ws = temp();
    const key = put(ws, 'keys/id_ed25519');
    fs.symlinkSync(key, path.join(ws, 'server.pem'));
    fs.symlinkSync(key, path.join(ws, 'plain'));
    const classes: Record<string, unknown> = {};
    walkTree(ws, (e: WalkEntry) => void (classes[e.rel] = entryClass(e)), { links: 'resolve' });
    assert.deepEqual(classes, { keys: null, 'keys/id_ed25519': 'quarantined', 'server.pem': 'quarantined', plain: 'quarantined' });
    const unresolved: Record<string, unknown> = {};
    walkTree(ws, (e: WalkEntry) => void (unresolved[e.rel] = entryClass(e)), { skip: new Set(['keys']) });
    assert.deepEqual(unresolved, { keys: null, 'server.pem': 'read_approve', plain: null });
  });
});

describe('every walker takes a link to a protected file for that file', () => {
  const base = temp();
  const ws = path.join(base, 'ws');
  put(ws, 'src/main.ts');
  // a secret outside the workspace, reachable from inside through an innocently named link
  const secret = put(base, 'elsewhere/.env', 'TOKEN=1\n');
  fs.symlinkSync(secret, path.join(ws, 'src', 'settings'));

  test('the sandbox scan hides the file the link leads to', () => {
    const hits = new WorkspaceScanner(ws).scan().hits;
    assert.deepEqual(hits, [{ path: secret, kind: 'file', tier: 'read_approve', entry: path.join(ws, 'src', 'settings'), by: 'table' }]);
  });

  test("the shell's look below a directory meets it when the reader follows links, not when it does not", () => {
    assert.deepEqual(firstProtected(ws, true), { path: path.join(ws, 'src', 'settings'), cls: 'read_approve' });
    assert.equal(firstProtected(ws, false), null);
    assert.equal(firstProtected(ws, true, 1), 'too-many');
  });

  test('the hard-link index finds a protected file in the workspace, skipping the heavy dirs', () => {
    const env = put(ws, 'config/.env');
    fs.linkSync(env, path.join(base, 'second-name'));
    const hidden = put(ws, 'node_modules/pkg/.env');
    fs.linkSync(hidden, path.join(base, 'third-name'));
    const index = new IdentityIndex({ home: temp() });
    assert.deepEqual(index.lookupPath(path.join(base, 'second-name'), ws), { tier: 'read_approve', path: env });
    assert.equal(index.lookupPath(path.join(base, 'third-name'), ws), undefined, 'node_modules is not walked');
    assert.equal(index.build(ws).root.capped, false);
    assert.equal(new IdentityIndex({ home: temp(), maxEntries: 2 }).build(ws).root.capped, true);
  });
});
