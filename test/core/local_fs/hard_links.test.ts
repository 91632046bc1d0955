// Hard links as an attacker makes them (an approved `tar xf`, an `ln` in a command): a second
// name of a quarantined or read-approve file is that file for every file tool and traversal,
// in the root and from the user's home credential dirs. Ordinary files with several links (a
// package store) read as usual.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { ApprovalRequest } from '../../../src/core/local_fs/context.ts';
import { findRipgrep } from '../../../src/core/local_fs/ripgrep.ts';
import { identitiesChanged, IdentityIndex } from '../../../src/core/protect/identity.ts';
import { expectCode, tempDir, toolset, tree } from '../fs_helpers.ts';

const rg = await findRipgrep();
const KEY = '-----BEGIN OPENSSH PRIVATE KEY----- SECRET_KEY_MATERIAL';
const ENV = 'API_KEY=SECRET_ENV_VALUE\n';

/** A root and a fake home (same filesystem, so links between them work), with an index over that home. */
function setup(entries: Record<string, string> = {}, homeEntries: Record<string, string> = {}) {
  const root = tree(entries);
  const home = tempDir('cxl-home-');
  for (const [rel, text] of Object.entries(homeEntries)) {
    fs.mkdirSync(path.dirname(path.join(home, rel)), { recursive: true });
    fs.writeFileSync(path.join(home, rel), text);
  }
  const identity = new IdentityIndex({ home });
  const link = (from: string, to: string, base = root) => {
    fs.mkdirSync(path.dirname(path.join(root, to)), { recursive: true });
    fs.linkSync(path.join(base, from), path.join(root, to));
  };
  const engines = (extra: Parameters<typeof toolset>[2] = {}) => [
    toolset(root, {}, { identity, grepEngine: 'builtin', ...extra }),
    ...(rg ? [toolset(root, {}, { identity, rgPath: rg, ...extra })] : []),
  ];
  return { root, home, identity, link, engines };
}

test('a hard link in the root to a quarantined file is refused by every direct tool', async () => {
  const { link, engines } = setup({ '.ssh/id_ed25519': KEY, 'src/a.ts': 'x' });
  link('.ssh/id_ed25519', 'notes.txt');
  link('.ssh/id_ed25519', 'src/deep/copy.md');
  for (const ts of engines()) {
    for (const p of ['notes.txt', 'src/deep/copy.md', './notes.txt', 'src/../notes.txt']) {
      const msg = await expectCode(ts, 'read_file', { path: p }, 'quarantined');
      assert.match(msg, /another name \(a hard link\) of \.ssh\/id_ed25519/);
      await expectCode(ts, 'read_file_range', { path: p, start_line: 1 }, 'quarantined');
      await expectCode(ts, 'grep', { path: p, pattern: 'SECRET' }, 'quarantined');
      await expectCode(ts, 'stat_file', { path: p }, 'quarantined');
      await expectCode(ts, 'count_stats', { path: p }, 'quarantined');
      await expectCode(ts, 'write_file', { path: p, content: 'x' }, 'quarantined');
      await expectCode(ts, 'edit_file', { path: p, old_string: 'SECRET', new_string: 'x' }, 'quarantined');
    }
  }
});

test('the links are absent from grep, list_dir and find_files over the tree (both engines)', async () => {
  const { link, engines } = setup({ '.ssh/id_ed25519': KEY, '.env': ENV, 'src/a.ts': 'SECRET in code' });
  link('.ssh/id_ed25519', 'notes.txt');
  link('.env', 'src/config.txt');
  for (const ts of engines()) {
    const hits = String(await ts.call('grep', { path: '.', pattern: 'SECRET' }));
    assert.equal(hits, 'src/a.ts:1: SECRET in code', 'no line of the key or the env file');
    const regex = String(await ts.call('grep', { path: '.', pattern: 'SECRET_\\w+', regex: true }));
    assert.equal(regex, '(no matches)');
    const list = String(await ts.call('list_dir', { recursive: true }));
    assert.equal(list, 'src/\nsrc/a.ts');
    assert.equal(String(await ts.call('list_dir', {})), 'src/');
    const found = (await ts.call('find_files', { pattern: '*' })) as { matches: string[] };
    assert.deepEqual(found.matches, ['src/a.ts']);
    const byName = (await ts.call('find_files', { pattern: '*.txt' })) as { matches: string[] };
    assert.deepEqual(byName.matches, []);
  }
});

test('a hard link to a file in the home credential dirs is that file', async () => {
  const { link, engines, home } = setup({ 'src/a.ts': 'ok' }, { '.ssh/id_rsa': KEY, '.config/gh/hosts.yml': 'oauth_token: gho_SECRET', '.aws/credentials': 'aws_secret_access_key=SECRET' });
  link('.ssh/id_rsa', 'k1', home);
  link('.config/gh/hosts.yml', 'docs/k2.yml', home);
  link('.aws/credentials', 'k3', home);
  for (const ts of engines()) {
    for (const [p, shown] of [['k1', '~/.ssh/id_rsa'], ['docs/k2.yml', '~/.config/gh/hosts.yml'], ['k3', '~/.aws/credentials']]) {
      const msg = await expectCode(ts, 'read_file', { path: p }, 'quarantined');
      assert.ok(msg.includes(`of ${shown},`), msg);
    }
    assert.equal(String(await ts.call('grep', { path: '.', pattern: 'SECRET' })), '(no matches)');
    assert.equal(String(await ts.call('list_dir', { recursive: true })), 'docs/\nsrc/\nsrc/a.ts');
  }
});

test('a hard link to a read-approve file asks like it; refused where nobody can answer, rejected on a no', async () => {
  const { link, root, identity } = setup({ '.env': ENV, 'certs/server.pem': 'PEM', 'a.txt': 'plain' });
  link('.env', 'settings.txt');
  link('certs/server.pem', 'docs/readme.md');
  const refusing = toolset(root, {}, { identity });
  for (const p of ['settings.txt', 'docs/readme.md']) {
    const msg = await expectCode(refusing, 'read_file', { path: p }, 'approval_required');
    assert.match(msg, /another name \(a hard link\) of (\.env|certs\/server\.pem), which matches the read-approve list/);
  }
  const asked: ApprovalRequest[] = [];
  const no = toolset(root, {}, { identity, approvals: 'ask', ask: async (req) => (asked.push(req), false) });
  await expectCode(no, 'read_file', { path: 'settings.txt' }, 'rejected');
  assert.equal(asked.length, 1);
  assert.equal(asked[0].path, 'settings.txt');
  const yes = toolset(root, {}, { identity, approvals: 'ask', ask: async () => true });
  assert.equal(await yes.call('read_file', { path: 'settings.txt' }), ENV);
  // never shown by a traversal, even when a direct read would be allowed
  const all = toolset(root, {}, { identity, approvals: 'allow', grepEngine: 'builtin' });
  assert.equal(String(await all.call('grep', { path: '.', pattern: 'SECRET' })), '(no matches)');
  assert.equal(String(await all.call('list_dir', { recursive: true })), 'a.txt\ncerts/\ndocs/');
});

test('true negatives: ordinary files with several links read, list, grep and find as usual', async () => {
  const { link, engines } = setup({ 'store/pkg/index.js': 'module.exports = 1; // NEEDLE', 'README.md': 'readme NEEDLE', '.ssh/id_rsa': KEY });
  link('store/pkg/index.js', 'pkgs/pkg/index.js');
  link('store/pkg/index.js', 'app/index.js');
  link('README.md', 'README.copy.md');
  for (const ts of engines()) {
    assert.equal(await ts.call('read_file', { path: 'app/index.js' }), 'module.exports = 1; // NEEDLE');
    assert.equal(await ts.call('read_file', { path: 'README.copy.md' }), 'readme NEEDLE');
    assert.equal(((await ts.call('stat_file', { path: 'app/index.js' })) as { size: number }).size, 29);
    const hits = String(await ts.call('grep', { path: '.', pattern: 'NEEDLE' }));
    assert.equal(hits.split('\n').length, 5, hits);
    const found = (await ts.call('find_files', { pattern: '*.js' })) as { matches: string[] };
    assert.deepEqual(found.matches, ['app/index.js', 'pkgs/pkg/index.js', 'store/pkg/index.js']);
    assert.match(String(await ts.call('list_dir', { recursive: true })), /app\/index\.js/);
  }
});

test('new names made after the scan count once a command may have made them', async () => {
  const { link, root, identity } = setup({ 'a.txt': 'one', 'b.txt': 'two' });
  link('a.txt', 'a2.txt');
  const ts = toolset(root, {}, { identity });
  assert.equal(await ts.call('read_file', { path: 'a2.txt' }), 'one', 'builds the index: nothing protected yet');
  // what an approved `tar xf` leaves behind: a deploy key, and a second name of it
  fs.writeFileSync(path.join(root, 'deploy.key'), 'KEY');
  link('deploy.key', 'b2.txt');
  identitiesChanged(); // the gate calls this after every shell command
  await expectCode(ts, 'read_file', { path: 'b2.txt' }, 'approval_required');
  assert.deepEqual(identity.build(root).root.known, 1, 'deploy.key (a2.txt is no protected file)');
});

test('a home scan knows every credential file that has a second name, and nothing else', () => {
  const files = { '.ssh/id_rsa': 'k', '.ssh/config': 'c', '.mozilla/firefox/p/logins.json': '{}', '.netrc': 'n', 'id_ed25519': 'k', '.env': 'E=1', 'notes.md': 'n', '.ssh/known_hosts': 'h' };
  const { root, home } = setup({ 'x.txt': 'x' }, files);
  const spare = tempDir('cxl-spare-');
  for (const rel of Object.keys(files)) if (rel !== '.ssh/known_hosts') fs.linkSync(path.join(home, rel), path.join(spare, rel.replace(/\//g, '_')));
  const idx = new IdentityIndex({ home });
  const built = idx.build(root);
  assert.equal(built.home.known, 6, 'the five credential files and ~/.env with a second name; not notes.md, not known_hosts (one link)');
  assert.ok(built.home.entries >= 8);
  const probe = (rel: string) => idx.lookup(fs.lstatSync(path.join(home, rel)), root);
  assert.equal(probe('.ssh/config')?.tier, 'quarantine');
  assert.equal(probe('.mozilla/firefox/p/logins.json')?.tier, 'quarantine');
  assert.equal(probe('id_ed25519')?.tier, 'quarantine');
  assert.equal(probe('.env')?.tier, 'read_approve');
  assert.equal(probe('notes.md'), undefined);
  assert.equal(idx.lookup(fs.lstatSync(path.join(root, 'x.txt')), root), undefined, 'one link: not even looked up');
});

test('with maxAgeMs, scans older than that are redone without being told', async () => {
  const { root, link } = setup({ 'a.txt': 'one' });
  link('a.txt', 'a2.txt');
  const idx = new IdentityIndex({ home: tempDir('cxl-home-'), maxAgeMs: 30 });
  const ts = toolset(root, {}, { identity: idx });
  assert.equal(await ts.call('read_file', { path: 'a2.txt' }), 'one');
  fs.writeFileSync(path.join(root, 'server.pem'), 'PEM');
  link('server.pem', 'cert.txt');
  await new Promise((r) => setTimeout(r, 60));
  await expectCode(ts, 'read_file', { path: 'cert.txt' }, 'approval_required');
});
