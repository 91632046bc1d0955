// grep: both engines (ripgrep and in-process) held to the same expectations, the credential
// guarantee (`grep API_KEY .` never prints a line of .env or a key), caps, regex, windows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findRipgrep } from '../../../src/core/local_fs/ripgrep.ts';
import type { FsContext } from '../../../src/core/local_fs/context.ts';
import { findFilesRipgrep } from '../../../src/core/local_fs/find_files.ts';
import { grepTreeRipgrep, RG_COLLECT_LIMIT } from '../../../src/core/local_fs/grep.ts';
import { confine } from '../../../src/core/paths.ts';
import { defaultPathMatcher } from '../../../src/core/protect/matcher.ts';
import { expectCode, toolset, tree } from '../fs_helpers.ts';
import { API_KEY_HITS, hostileTree, NEVER_SHOWN } from './browse_fixture.ts';

const rg = await findRipgrep();

test('ripgrep is installed with the package (the fast engine is really exercised)', () => {
  assert.ok(rg, '@vscode/ripgrep should provide rg');
});

for (const engine of ['ripgrep', 'builtin'] as const) {
  const opts = { grepEngine: engine, rgPath: engine === 'ripgrep' ? rg : null };

  test(`[${engine}] grep API_KEY over . never prints a line of .env, a key, or anything skipped`, async () => {
    const { root } = hostileTree();
    const ts = toolset(root, {}, opts);
    const out = String(await ts.call('grep', { path: '.', pattern: 'API_KEY' }));
    assert.equal(out, API_KEY_HITS);
    for (const s of NEVER_SHOWN) assert.ok(!out.includes(s), `leaked ${s}`);
    // the same from a subdirectory, and with .gitignore-d things in the search root's parents
    assert.equal(String(await ts.call('grep', { path: 'sub', pattern: 'API_KEY' })), 'sub/other.txt:1: API_KEY other');
    assert.equal(String(await ts.call('grep', { path: 'src/lib', pattern: 'API_KEY' })), 'src/lib/CRLF.txt:1: API_KEY\nsrc/lib/util.ts:1: // API_KEY helper');
  });

  test(`[${engine}] grep with a permissive policy still skips credentials, heavy dirs and binaries`, async () => {
    const { root } = hostileTree();
    const ts = toolset(root, { _denied_path_substrings: '' }, opts);
    const out = String(await ts.call('grep', { path: '.', pattern: 'API_KEY' }));
    for (const s of ['sk-live', 'OPENSSH', 'pem-private', 'aws-secret', 'node_modules', 'git-config', 'API_KEY build', 'binary']) assert.ok(!out.includes(s), `leaked ${s}`);
    assert.ok(!out.includes('API_KEY dist'), 'dist is still a heavy dir');
    const noSkips = String(await toolset(root, { _denied_path_substrings: '', _skip_dirs: 'node_modules' }, opts).call('grep', { path: '.', pattern: 'API_KEY' }));
    assert.match(noSkips, /^dist\/out\.js:1: API_KEY dist$/m);
    assert.match(noSkips, /^build\/gen\.ts:1: API_KEY build$/m);
    assert.match(noSkips, /^\.git\/config:1: API_KEY git-config$/m);
    for (const s of ['sk-live', 'OPENSSH', 'pem-private', 'aws-secret', 'node_modules', 'binary', 'ignored']) assert.ok(!noSkips.includes(s), `leaked ${s}`);
  });

  test(`[${engine}] tree caps at 100 matches with a notice; output bytes capped; order is by path`, async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 150; i++) files[`d${i % 3}/f${String(i).padStart(3, '0')}.txt`] = `x\nneedle ${i}\n`;
    const root = tree(files);
    const out = String(await toolset(root, {}, opts).call('grep', { path: '.', pattern: 'needle' })).split('\n');
    assert.equal(out.length, 101);
    assert.equal(out[0], 'd0/f000.txt:2: needle 0');
    assert.equal(out[99], 'd1/f148.txt:2: needle 148', out.slice(95, 101).join('|'));
    assert.match(out[100], /stopped at 100 matches; narrow the path or the pattern, or raise tools_policies.local_fs._max_grep_matches/);
    const small = String(await toolset(root, { _max_output_bytes: '200' }, opts).call('grep', { path: '.', pattern: 'needle' }));
    assert.match(small, /output cut at _max_output_bytes=200/);
    assert.ok(Buffer.byteLength(small) < 400);
    const seven = String(await toolset(root, { _max_grep_matches: '7' }, opts).call('grep', { path: 'd2', pattern: 'needle' })).split('\n');
    assert.equal(seven.length, 8);
  });

  test(`[${engine}] line windows apply per file; no match says so; CRLF and long lines display cleanly`, async () => {
    const root = tree({ 'a.txt': 'k1\nk2\nk3\n', 'b/c.txt': 'k9\n', 'long.txt': `k${'z'.repeat(2000)}\n`, 'crlf.txt': 'zz k\r\n' });
    const ts = toolset(root, {}, opts);
    assert.equal(String(await ts.call('grep', { path: '.', pattern: 'k', start_line: 2, end_line: 2 })), 'a.txt:2: k2');
    assert.equal(await ts.call('grep', { path: '.', pattern: 'nothing-here' }), '(no matches)');
    const out = String(await ts.call('grep', { path: '.', pattern: 'zz' }));
    assert.match(out, /^crlf\.txt:1: zz k$/m);
    assert.match(out, /^long\.txt:1: kz{499}… \[line cut at 500 of 2001 characters\]$/m);
    assert.equal(await ts.call('grep', { path: '.', pattern: 'k2\nk3' }), '(no matches)');
  });

  test(`[${engine}] non-UTF-8 lines and odd file names match like ripgrep would`, async () => {
    const root = tree({ 'odd name: x.txt': 'hit here\n', 'lat.txt': Buffer.from('caf\xe9 hit\n', 'latin1'), 'é/ü.txt': 'hit ünï\n' });
    const out = String(await toolset(root, {}, opts).call('grep', { path: '.', pattern: 'hit' }));
    assert.equal(out, ['lat.txt:1: caf\uFFFD hit', 'odd name: x.txt:1: hit here', 'é/ü.txt:1: hit ünï'].join('\n'));
  });
}

test('both engines agree on a large random tree, and ripgrep past its collect limit falls back to the same answer', async () => {
  const files: Record<string, string> = {};
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 300; i++) {
    const depth = Math.floor(rand() * 4);
    const dir = Array.from({ length: depth }, () => ['a', 'B', '_c', '.d', 'e e'][Math.floor(rand() * 5)]).join('/');
    const lines = Array.from({ length: 20 }, () => (rand() < 0.05 ? 'x MARK y' : 'plain'));
    files[`${dir ? `${dir}/` : ''}f${i}${['.ts', '.env', '.pem', '.md', ''][Math.floor(rand() * 5)]}`] = lines.join('\n');
  }
  files['.gitignore'] = '*.md\n';
  files['many.txt'] = 'MARK\n'.repeat(RG_COLLECT_LIMIT + 5);
  const root = tree(files);
  for (const cap of ['100', '100000']) {
    const a = String(await toolset(root, { _max_grep_matches: cap, _max_output_bytes: '0' }, { grepEngine: 'ripgrep', rgPath: rg }).call('grep', { path: '.', pattern: 'MARK' }));
    const b = String(await toolset(root, { _max_grep_matches: cap, _max_output_bytes: '0' }, { grepEngine: 'builtin' }).call('grep', { path: '.', pattern: 'MARK' }));
    assert.equal(a, b);
    assert.ok(!/\.pem:|\.md:/.test(a));
    if (cap !== '100') assert.ok(a.includes('many.txt:'), 'the fallback answered in full');
  }
});

test('grep on a file: `N: text`, a 500 cap with a start_line notice, regex mode, refusals', async () => {
  const root = tree({ 'f.txt': Array.from({ length: 600 }, (_, i) => `row ${i + 1}`).join('\n'), 'b.bin': Buffer.from([0, 1]), '.env': 'A=1', 'long.txt': `k${'z'.repeat(2000)}\r\nz\n` });
  const ts = toolset(root);
  const out = String(await ts.call('grep', { path: 'f.txt', pattern: 'row' })).split('\n');
  assert.equal(out[0], '1: row 1');
  assert.equal(out.length, 501);
  assert.match(out[500], /stopped at 500 matches; continue with start_line=501/);
  assert.equal(await ts.call('grep', { path: 'f.txt', pattern: '^row 5\\d$', regex: true }), Array.from({ length: 10 }, (_, i) => `${50 + i}: row ${50 + i}`).join('\n'));
  assert.equal(await ts.call('grep', { path: 'f.txt', pattern: 'row 1', start_line: 100, end_line: 101 }), '100: row 100\n101: row 101');
  // regex hits are shown like literal ones: without the CR, cut at 500 characters
  const cut = `1: k${'z'.repeat(499)}… [line cut at 500 of 2001 characters]`;
  assert.equal(await ts.call('grep', { path: 'long.txt', pattern: 'kz+', regex: true }), cut);
  assert.equal(await ts.call('grep', { path: 'long.txt', pattern: 'kz' }), cut);
  assert.equal(await ts.call('grep', { path: 'long.txt', pattern: '^z$', regex: true }), '2: z');
  await expectCode(ts, 'grep', { path: 'f.txt', pattern: '(', regex: true }, 'bad_args');
  await expectCode(ts, 'grep', { path: 'f.txt', pattern: '' }, 'bad_args');
  await expectCode(ts, 'grep', { path: 'b.bin', pattern: 'x' }, 'binary');
  await expectCode(ts, 'grep', { path: '.env', pattern: 'A' }, 'approval_required');
  await expectCode(ts, 'grep', { path: 'nope', pattern: 'A' }, 'not_found');
  await expectCode(ts, 'grep', { path: '..', pattern: 'A' }, 'escape');
});

test('an abort while ripgrep runs kills it and rejects cancelled (grep and find_files engines)', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 200; i++) files[`d${i % 10}/f${i}.txt`] = 'needle\n';
  const root = tree(files);
  const ts = toolset(root, {}, { rgPath: rg });
  const ctx = { root: ts.root, policy: ts.policy, matcher: defaultPathMatcher } as unknown as FsContext;
  const dir = confine(ts.root, '.');
  const q = { pattern: 'needle', regex: null, startLine: 1, endLine: Infinity };
  for (const run of [(s: AbortSignal) => grepTreeRipgrep(ctx, rg!, dir, q, 1000, s), (s: AbortSignal) => findFilesRipgrep(ctx, rg!, dir, '*.txt', s)]) {
    const ac = new AbortController();
    const pending = run(ac.signal); // rg is spawned before this returns
    ac.abort();
    await assert.rejects(pending, { code: 'cancelled' });
    // unaborted, the same call answers in full
    assert.equal((await run(new AbortController().signal))!.length, 200);
  }
});

test('regex over a tree uses the in-process engine with the same skip rules', async () => {
  const { root } = hostileTree();
  const out = String(await toolset(root, {}, { rgPath: rg }).call('grep', { path: '.', pattern: 'API_K.Y', regex: true }));
  assert.equal(out, API_KEY_HITS);
});
