// list_dir, find_files (both engines), stat_file and count_stats over the hostile tree and
// purpose-built ones: markers, sizes, pagination, depth caps, skip rules, refusals.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { findRipgrep } from '../../../src/core/local_fs/ripgrep.ts';
import { expectCode, toolset, tree } from '../fs_helpers.ts';
import { hostileTree, NEVER_SHOWN } from './browse_fixture.ts';

const rg = await findRipgrep();

test('list_dir: sorted, / @ * markers, sizes over 1 MiB, skipped and hidden entries', async () => {
  const { root } = hostileTree();
  const ts = toolset(root);
  const flat = String(await ts.call('list_dir', {}));
  assert.equal(flat, ['.SSH2/', '.gitignore', '.hidden/', 'big.bin  (2.0 MiB)', 'bin.dat', 'build/', 'certs/', 'config/', 'keep.log', 'keys/', 'link_env@', 'link_out@', 'run.sh*', 'src/', 'sub/'].join('\n'));
  const rec = String(await ts.call('list_dir', { path: '.', recursive: true }));
  assert.equal(rec, [
    '.SSH2/', '.SSH2/ok.txt', '.gitignore', '.hidden/', '.hidden/h.txt', 'big.bin  (2.0 MiB)', 'bin.dat', 'build/  (not descended: heavy directory)',
    'certs/', 'config/', 'keep.log', 'keys/', 'link_env@', 'link_out@', 'run.sh*', 'src/', 'src/app.ts', 'src/lib/', 'src/lib/CRLF.txt',
    'src/lib/util.ts', 'src/link_in@', 'sub/', 'sub/.gitignore', 'sub/other.txt',
  ].join('\n'));
  for (const s of ['.env', '.ssh', 'id_ed25519', 'server.pem', 'deploy.key', '.aws', '.netrc', 'node_modules', 'dist', '.git/', 'ignored', 'app.log', 'local.txt']) {
    assert.ok(!rec.split('\n').some((l) => l.includes(s) && !l.startsWith('.gitignore') && !l.startsWith('sub/.gitignore')), `listed ${s}`);
  }
  assert.equal(String(await ts.call('list_dir', { path: 'src', recursive: true })), ['app.ts', 'lib/', 'lib/CRLF.txt', 'lib/util.ts', 'link_in@'].join('\n'));
  assert.equal(await ts.call('list_dir', { path: 'certs' }), '(empty directory)');
  await expectCode(ts, 'list_dir', { path: 'src/app.ts' }, 'not_directory');
  await expectCode(ts, 'list_dir', { path: 'nope' }, 'not_found');
  await expectCode(ts, 'list_dir', { path: '.ssh' }, 'quarantined');
  await expectCode(ts, 'list_dir', { path: 'node_modules' }, 'denied_path');
  await expectCode(ts, 'list_dir', { path: 'link_out' }, 'escape');
  // an explicitly named heavy dir is listed when policy allows it
  assert.equal(await ts.call('list_dir', { path: 'build' }), 'gen.ts');
});

test('list_dir: depth (default 3, capped by _max_list_depth) and pagination by offset', async () => {
  const root = tree({ 'a/b/c/d/e/f/g/h.txt': 'x' });
  const ts = toolset(root, { _max_list_depth: '4' });
  assert.equal(await ts.call('list_dir', { recursive: true }), 'a/\na/b/\na/b/c/');
  const deep = String(await ts.call('list_dir', { recursive: true, max_depth: 10 }));
  assert.equal(deep, 'a/\na/b/\na/b/c/\na/b/c/d/\n[max_depth capped at 4 by tools_policies.local_fs._max_list_depth.]');
  const many: Record<string, string> = {};
  for (let i = 0; i < 1205; i++) many[`f${String(i).padStart(4, '0')}`] = '';
  const r2 = tree(many);
  const t2 = toolset(r2);
  const p1 = String(await t2.call('list_dir', {})).split('\n');
  assert.equal(p1.length, 1001);
  assert.equal(p1[999], 'f0999');
  assert.equal(p1[1000], '[showed entries 1-1000 of 1205. Continue with list_dir offset=1000.]');
  const p2 = String(await t2.call('list_dir', { offset: 1000 })).split('\n');
  assert.equal(p2.length, 205);
  assert.equal(p2[0], 'f1000');
  const bytes = String(await toolset(r2, { _max_output_bytes: '60' }).call('list_dir', {})).split('\n');
  assert.equal(bytes.length, 11);
  assert.match(bytes[10], /showed entries 1-10 of 1205\. Continue with list_dir offset=10\./);
  // the cap counts bytes, not characters: 'ü0000' is 6 bytes + newline, so 9 fit in 69 (10 in 69 characters)
  const wide: Record<string, string> = {};
  for (let i = 0; i < 20; i++) wide[`ü${String(i).padStart(4, '0')}`] = '';
  const w = String(await toolset(tree(wide), { _max_output_bytes: '69' }).call('list_dir', {})).split('\n');
  const entries = w.slice(0, -1);
  assert.equal(entries.length, 9);
  assert.ok(entries.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0) <= 69);
  assert.match(w[w.length - 1], /showed entries 1-9 of 20\. Continue with list_dir offset=9\./);
});

for (const engine of ['ripgrep', 'builtin'] as const) {
  const opts = { grepEngine: engine, rgPath: engine === 'ripgrep' ? rg : null };
  test(`[${engine}] find_files: names vs paths, ** globs, skip rules, caps`, async () => {
    const { root } = hostileTree();
    const ts = toolset(root, {}, opts);
    assert.deepEqual(await ts.call('find_files', { pattern: '*.ts' }), { matches: ['src/app.ts', 'src/lib/util.ts'], count: 2 });
    assert.deepEqual(await ts.call('find_files', { pattern: '**/*.ts' }), { matches: ['src/app.ts', 'src/lib/util.ts'], count: 2 });
    assert.deepEqual(await ts.call('find_files', { pattern: 'lib/*.ts', path: 'src' }), { matches: ['src/lib/util.ts'], count: 1 });
    assert.deepEqual(await ts.call('find_files', { pattern: './src/*.ts' }), { matches: ['src/app.ts'], count: 1 });
    assert.deepEqual(await ts.call('find_files', { pattern: '*.{txt,log}' }), { matches: ['.SSH2/ok.txt', '.hidden/h.txt', 'keep.log', 'src/lib/CRLF.txt', 'sub/other.txt'], count: 5 });
    const all = (await ts.call('find_files', { pattern: '*' })) as { matches: string[] };
    assert.deepEqual(all.matches, ['.SSH2/ok.txt', '.gitignore', '.hidden/h.txt', 'big.bin', 'bin.dat', 'keep.log', 'run.sh', 'src/app.ts', 'src/lib/CRLF.txt', 'src/lib/util.ts', 'sub/.gitignore', 'sub/other.txt']);
    for (const s of NEVER_SHOWN) assert.ok(!all.matches.some((m) => m.includes(s)), s);
    assert.deepEqual(await ts.call('find_files', { pattern: '*.env*' }), { matches: [], count: 0 });
    const capped = (await toolset(root, { _max_find_results: '3' }, opts).call('find_files', { pattern: '*' })) as Record<string, unknown>;
    assert.deepEqual(capped.matches, ['.SSH2/ok.txt', '.gitignore', '.hidden/h.txt']);
    assert.equal(capped.count, 12);
    assert.equal(capped.truncated, true);
    assert.match(String(capped.note), /first 3 of 12.*_max_find_results/);
    await expectCode(ts, 'find_files', { pattern: '' }, 'bad_args');
    await expectCode(ts, 'find_files', { pattern: '*', path: 'src/app.ts' }, 'not_directory');
    await expectCode(ts, 'find_files', { pattern: '*', path: '.aws' }, 'quarantined');
  });
}

test('stat_file: metadata for files and dirs, binary and executable flags', async () => {
  const { root } = hostileTree();
  const ts = toolset(root);
  const s = (await ts.call('stat_file', { path: 'run.sh' })) as Record<string, unknown>;
  assert.deepEqual(Object.keys(s).sort(), ['binary', 'executable', 'isDir', 'modTime', 'mode', 'name', 'path', 'size', 'sizeHuman']);
  assert.equal(s.name, 'run.sh');
  assert.equal(s.size, 10);
  assert.equal(s.sizeHuman, '10 B');
  assert.equal(s.mode, '0755');
  assert.equal(s.executable, true);
  assert.equal(s.binary, false);
  assert.equal(s.modTime, fs.statSync(path.join(root, 'run.sh')).mtime.toISOString());
  const b = (await ts.call('stat_file', { path: 'big.bin' })) as Record<string, unknown>;
  assert.equal(b.binary, true);
  assert.equal(b.sizeHuman, '2.0 MiB');
  const d = (await ts.call('stat_file', { path: 'src' })) as Record<string, unknown>;
  assert.equal(d.isDir, true);
  assert.equal(d.executable, false);
  await expectCode(ts, 'stat_file', { path: '.env' }, 'approval_required');
  await expectCode(ts, 'stat_file', { path: 'keys/id_ed25519' }, 'quarantined');
  await expectCode(ts, 'stat_file', { path: 'link_out' }, 'escape');
});

test('count_stats counts like wc, for edge files too', async () => {
  const root = tree({ 'a.txt': 'one two\nthree\n', 'nonl': 'a b', 'empty': '', 'ws': ' \t\n\r\n  x  \f y', 'crlf': 'a\r\nb\r\n', 'u.txt': 'héllo wörld\n' });
  const ts = toolset(root);
  for (const f of ['a.txt', 'nonl', 'empty', 'ws', 'crlf', 'u.txt']) {
    const wc = spawnSync('wc', ['-l', '-w', '-c', path.join(root, f)], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } }).stdout.trim().split(/\s+/).map(Number);
    assert.equal(await ts.call('count_stats', { path: f }), `Lines: ${wc[0]}, Words: ${wc[1]}, Bytes: ${wc[2]}`, f);
  }
  await expectCode(ts, 'count_stats', { path: '.' }, 'is_directory');
});
