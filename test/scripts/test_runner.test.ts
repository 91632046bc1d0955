// `npm test` (scripts/test.mjs) must end with one "N passed, N failed" line summing both
// runtimes, and exit non-zero when a runtime has a failure or runs no test.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import process from 'node:process';
import { test } from 'node:test';
import { repoRoot } from '../helpers/cxl.ts';

function runner(...files: string[]) {
  const r = spawnSync('node', ['scripts/test.mjs', '--no-check', '--no-build', ...files], { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, CI: 'true', NODE_TEST_CONTEXT: undefined }, timeout: 120_000 });
  const last = r.stdout.trimEnd().split('\n').at(-1) ?? '';
  return { code: r.status, last, stdout: r.stdout };
}

test('a failing test fails the run and is counted on both runtimes', () => {
  const r = runner('test/fixtures/runner/one_fails.test.ts');
  assert.equal(r.code, 1);
  assert.equal(r.last, '2 passed, 2 failed');
  // the failed test is named near the end on both runtimes, where a log cut to its tail still shows it
  const tail = r.stdout.trimEnd().split('\n').slice(-6).join('\n');
  assert.match(tail, /node: .+ => test\/fixtures\/runner\/one_fails\.test\.ts/);
  assert.match(tail, /deno: .+ => \.\/test\/fixtures\/runner\/one_fails\.test\.ts:\d+:\d+/);
});

test('a run with zero tests fails instead of passing silently', () => {
  const r = runner('test/fixtures/runner/no_tests.test.ts');
  assert.equal(r.code, 1);
  // (Node counts a file with no test as one passing file-level test; Deno counts zero)
  assert.match(r.last, /^\d+ passed, [1-9]\d* failed$/);
});
