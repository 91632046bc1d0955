// `npm test`: build, type-check with tsc and deno check, run every test file under Node and
// under Deno, then print one line "N passed, N failed" summing both runtimes.
// Usage: npm test [-- [--no-check] [--no-build] test/some.test.ts ...]   (files restrict both runtimes to those files)
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
process.chdir(root);

function run(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: opts.capture ? ['ignore', 'pipe', 'inherit'] : 'inherit', env: { ...process.env, FORCE_COLOR: '0', ...opts.env } });
    let out = '';
    if (opts.capture) child.stdout.on('data', (d) => { out += d; process.stdout.write(d); });
    child.on('close', (code) => resolve({ code, out }));
  });
}

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (name === 'fixtures' || name === 'node_modules') continue;
    if (statSync(p).isDirectory()) out.push(...findTests(p));
    else if (/\.test\.tsx?$/.test(name)) out.push(path.relative(root, p));
  }
  return out.sort();
}

const only = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const skipCheck = process.argv.includes('--no-check');
const files = only.length ? only : findTests('test');
if (files.length === 0) {
  console.error('no test files found under test/');
  process.exit(1);
}

const step = (s) => console.log(`\n── ${s}`);
// --no-build: for a nested run inside the suite, which must not rewrite dist/ under other tests
if (!process.argv.includes('--no-build')) {
  step('build');
  if ((await run(process.execPath, ['scripts/build.mjs'])).code !== 0) process.exit(1);
}
if (!skipCheck) {
  step('type-check: tsc');
  if ((await run(bin('tsc'), ['-p', '.'])).code !== 0) process.exit(1);
  step('type-check: deno check');
  if ((await run(bin('deno'), ['check', '--quiet', 'src', 'test', 'bench'])).code !== 0) process.exit(1);
}

const tmp = mkdtempSync(path.join(tmpdir(), 'cxl-test-'));
const tap = path.join(tmp, 'node.tap');
// tests that could not run for want of a system tool write why here (test/helpers/system_tools.ts)
const notes = path.join(tmp, 'notes.txt');
process.env.CXL_TEST_NOTES = notes;
step(`node --test (${files.length} files)`);
const nodeRun = await run(process.execPath, [
  '--import', 'tsx', '--test', '--test-concurrency=2',
  '--test-reporter=spec', '--test-reporter-destination=stdout',
  '--test-reporter=tap', `--test-reporter-destination=${tap}`,
  ...files,
]);
const tapText = readFileSync(tap, 'utf8');
const count = (re, text) => Number((re.exec(text) ?? [])[1] ?? NaN);
const node = { passed: count(/^# pass (\d+)$/m, tapText), failed: count(/^# fail (\d+)$/m, tapText) + count(/^# cancelled (\d+)$/m, tapText) };

step(`deno test (${files.length} files)`);
const denoRun = await run(bin('deno'), ['test', '-A', '--no-check', ...files], { capture: true, env: { NO_COLOR: '1' } });
// Deno ends with e.g. "ok | 12 passed (3 steps) | 0 failed (2s)"; steps are node:test subtests.
const plain = denoRun.out.replace(/\u001b\[[0-9;]*m/g, '');
const summary = /(?:ok|FAILED) \| (\d+) passed(?: \((\d+) steps?\))? \| (\d+) failed(?: \((\d+) steps?\))?/.exec(plain);
const deno = summary
  ? { passed: Number(summary[1]) + Number(summary[2] ?? 0), failed: Number(summary[3]) + Number(summary[4] ?? 0) }
  : { passed: NaN, failed: NaN };

let noteText = '';
try {
  noteText = readFileSync(notes, 'utf8');
} catch {
  /* no notes */
}
rmSync(tmp, { recursive: true, force: true });
const skipped = [...new Set(noteText.split('\n').filter((l) => l.trim() !== ''))];
if (skipped.length) console.log(`\nnot run, for want of a system tool:\n${skipped.map((l) => `  - ${l}`).join('\n')}`);
console.log(`\nnode: ${node.passed} passed, ${node.failed} failed; deno: ${deno.passed} passed, ${deno.failed} failed`);
const ok =
  nodeRun.code === 0 && denoRun.code === 0 &&
  node.passed > 0 && deno.passed > 0 && node.failed === 0 && deno.failed === 0;
const passed = (node.passed || 0) + (deno.passed || 0);
const failed = (node.failed || 0) + (deno.failed || 0) + (ok ? 0 : Number(!(node.failed || deno.failed)));
console.log(`${passed} passed, ${failed} failed`);
process.exit(ok ? 0 : 1);
