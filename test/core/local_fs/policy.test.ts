// tools_policies.local_fs parsing: string values, defaults, warnings for bad values and keys,
// and the denied-substring rule (case-insensitive, `dir/` also covers the dir itself).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_CHAIN_LOCAL_FS, DEFAULT_FS_POLICY, deniedSubstring, parseFsPolicy } from '../../../src/core/local_fs/policy.ts';

test('no policy gives the documented defaults and no warnings', () => {
  const { policy, warnings } = parseFsPolicy(undefined);
  assert.deepEqual(warnings, []);
  assert.equal(policy.maxReadBytes, 1_048_576);
  assert.equal(policy.maxOutputBytes, 32_768);
  assert.equal(policy.maxListDepth, 6);
  assert.equal(policy.maxFindResults, 200);
  assert.equal(policy.maxGrepMatches, undefined);
  assert.deepEqual(policy.deniedPathSubstrings, []);
  assert.ok(policy.skipDirs.includes('node_modules') && policy.skipDirs.includes('.git'));
  assert.equal(policy.longDescriptions, false);
});

test('the default chain values parse cleanly', () => {
  const { policy, warnings } = parseFsPolicy(DEFAULT_CHAIN_LOCAL_FS);
  assert.deepEqual(warnings, []);
  assert.deepEqual(policy.deniedPathSubstrings, ['node_modules', '.git/', 'dist/', '/.next/', '/out/', 'package-lock.json']);
});

test('string numbers parse; 0 and negatives mean unlimited where documented', () => {
  const { policy, warnings } = parseFsPolicy({ _max_read_bytes: '0', _max_output_bytes: '-1', _max_list_depth: '2', _max_grep_matches: '7', _max_find_results: ' 9 ', _long_descriptions: 'yes', _skip_dirs: 'a, b,,c', _allowed_dir: 'sub' });
  assert.deepEqual(warnings, []);
  assert.equal(policy.maxReadBytes, Infinity);
  assert.equal(policy.maxOutputBytes, Infinity);
  assert.equal(policy.maxListDepth, 2);
  assert.equal(policy.maxGrepMatches, 7);
  assert.equal(policy.maxFindResults, 9);
  assert.equal(policy.longDescriptions, true);
  assert.deepEqual(policy.skipDirs, ['a', 'b', 'c']);
  assert.equal(policy.allowedDir, 'sub');
});

test('a bad value falls back to the default and is reported once; unknown keys are reported', () => {
  const { policy, warnings } = parseFsPolicy({ _max_read_bytes: '1MB', _max_list_depth: '0', _long_descriptions: 'maybe', _max_reads: '5' });
  assert.equal(policy.maxReadBytes, DEFAULT_FS_POLICY.maxReadBytes);
  assert.equal(policy.maxListDepth, 6);
  assert.equal(policy.longDescriptions, false);
  assert.equal(warnings.length, 4);
  assert.match(warnings[0], /_max_read_bytes = "1MB" is not an integer; using 1048576/);
  assert.match(warnings[1], /_max_list_depth.*below 1/);
  assert.match(warnings[3], /_max_reads is not a known key/);
});

test('denied substrings: case-insensitive, framed by slashes so dir/ covers the dir', () => {
  const p = parseFsPolicy(DEFAULT_CHAIN_LOCAL_FS).policy;
  assert.equal(deniedSubstring(p, '.git'), '.git/');
  assert.equal(deniedSubstring(p, '.git/config'), '.git/');
  assert.equal(deniedSubstring(p, 'sub/.GIT/HEAD'), '.git/');
  assert.equal(deniedSubstring(p, '.gitignore'), undefined);
  assert.equal(deniedSubstring(p, '.github/workflows/ci.yml'), undefined);
  assert.equal(deniedSubstring(p, 'out'), '/out/');
  assert.equal(deniedSubstring(p, 'a/out/b'), '/out/');
  assert.equal(deniedSubstring(p, 'layout.ts'), undefined);
  assert.equal(deniedSubstring(p, 'dist'), 'dist/');
  assert.equal(deniedSubstring(p, 'web/Node_Modules/x'), 'node_modules');
  assert.equal(deniedSubstring(p, 'package-lock.json'), 'package-lock.json');
  assert.equal(deniedSubstring(p, 'src/main.ts'), undefined);
  assert.equal(deniedSubstring(p, '.'), undefined);
});
