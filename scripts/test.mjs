// `npm test`: build, type-check with tsc and deno check, run every test file under Node and
// under Deno, then print one line "N passed, N failed" summing both runtimes.
// Usage: npm test [-- [--no-check] [--no-build] [--runtime=node|deno] test/some.test.ts ...]
// (files restrict both runtimes to those files; --runtime runs one half: `deno task test` is --runtime=deno)
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
process.chdir(root);

// capture: 'echo' shows the output as it comes, 'hold' keeps it to be shown once the run ends (runs side by side)
function run(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: opts.capture ? ['ignore', 'pipe', opts.capture === 'hold' ? 'pipe' : 'inherit'] : 'inherit', env: { ...process.env, FORCE_COLOR: '0', ...opts.env } });
    let out = '';
    if (opts.capture) child.stdout.on('data', (d) => { out += d; if (opts.capture !== 'hold') process.stdout.write(d); });
    if (opts.capture === 'hold') child.stderr.on('data', (d) => { out += d; });
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
const runtimeArg = process.argv.find((a) => a.startsWith('--runtime='))?.slice('--runtime='.length);
if (runtimeArg !== undefined && runtimeArg !== 'node' && runtimeArg !== 'deno') {
  console.error(`--runtime=${runtimeArg}: expected --runtime=node or --runtime=deno`);
  process.exit(2);
}
const runs = { node: runtimeArg !== 'deno', deno: runtimeArg !== 'node' };
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
const skippedRun = { code: 0 };
if (runs.node) step(`node --test (${files.length} files)`);
// under Deno (`deno task test` runs this script) the Node half would be `node` from PATH
const nodeBin = 'Deno' in globalThis ? 'node' : process.execPath;
const nodeRun = !runs.node ? skippedRun : await run(nodeBin, [
  '--import', 'tsx', '--test', '--test-concurrency=2',
  '--test-reporter=spec', '--test-reporter-destination=stdout',
  '--test-reporter=tap', `--test-reporter-destination=${tap}`,
  ...files,
]);
const tapText = runs.node ? readFileSync(tap, 'utf8') : '';
const count = (re, text) => Number((re.exec(text) ?? [])[1] ?? NaN);
const node = { passed: count(/^# pass (\d+)$/m, tapText), failed: count(/^# fail (\d+)$/m, tapText) + count(/^# cancelled (\d+)$/m, tapText) };

// Deno runs its files one after another in one process; two processes side by side, as Node's
// --test-concurrency=2 (each file keeps a process to itself there; here a file shares its process
// with the others of its half, as it always did under Deno).
const denoShards = files.length > 1 ? 2 : 1;
if (runs.deno) step(`deno test (${files.length} files${denoShards > 1 ? `, in ${denoShards} processes` : ''})`);
const shardFiles = Array.from({ length: denoShards }, (_, k) => files.filter((_, i) => i % denoShards === k));
const denoRuns = !runs.deno
  ? []
  : await Promise.all(shardFiles.map((part, k) => run(bin('deno'), ['test', '-A', '--no-check', ...part], { capture: k === 0 ? 'echo' : 'hold', env: { NO_COLOR: '1' } })));
for (const r of denoRuns.slice(1)) process.stdout.write(r.out);
// Deno ends with e.g. "ok | 12 passed (3 steps) | 0 failed (2s)"; steps are node:test subtests.
const denoCount = (out) => {
  const plain = out.replace(/\u001b\[[0-9;]*m/g, '');
  const summary = /(?:ok|FAILED) \| (\d+) passed(?: \((\d+) steps?\))? \| (\d+) failed(?: \((\d+) steps?\))?/.exec(plain);
  return summary
    ? { passed: Number(summary[1]) + Number(summary[2] ?? 0), failed: Number(summary[3]) + Number(summary[4] ?? 0) }
    : { passed: NaN, failed: NaN };
};
const deno = denoRuns.map((r) => denoCount(r.out)).reduce((a, b) => ({ passed: a.passed + b.passed, failed: a.failed + b.failed }), { passed: 0, failed: 0 });
// Deno lists them under " FAILURES " as "name => ./file:line:col".
function denoFailures(out) {
  const plain = out.replace(/\u001b\[[0-9;]*m/g, '');
  const at = plain.lastIndexOf(' FAILURES ');
  if (at < 0) return [];
  return plain.slice(at).split('\n').filter((l) => / => \S+:\d+:\d+$/.test(l)).map((l) => `deno: ${l.trim()}`);
}
// Node's TAP: a failed test whose failure is its own (not "subtestsFailed"), with its file.
function nodeFailures(text) {
  const lines = text.split('\n');
  const out = [];
  lines.forEach((line, i) => {
    const m = /^\s*not ok \d+ - (.*)$/.exec(line);
    if (!m) return;
    const block = lines.slice(i + 1, i + 12).join('\n');
    if (/failureType: 'subtestsFailed'/.test(block)) return;
    const file = /location: '([^':]+)/.exec(block)?.[1];
    out.push(`node: ${m[1]}${file ? ` => ${path.relative(root, file)}` : ''}`);
  });
  return out;
}
const denoRun = runs.deno ? { code: denoRuns.find((r) => r.code !== 0)?.code ?? 0 } : skippedRun;

let noteText = '';
try {
  noteText = readFileSync(notes, 'utf8');
} catch {
  /* no notes */
}
rmSync(tmp, { recursive: true, force: true });
const skipped = [...new Set(noteText.split('\n').filter((l) => l.trim() !== ''))];
if (skipped.length) console.log(`\nnot run, for want of a system tool:\n${skipped.map((l) => `  - ${l}`).join('\n')}`);
// The names of the failed tests, last before the totals: a CI log is often kept only by its tail.
const failedNames = [...nodeFailures(tapText), ...denoRuns.flatMap((r) => denoFailures(r.out))];
if (failedNames.length) console.log(`\nfailed:\n${failedNames.map((l) => `  - ${l}`).join('\n')}`);
const halves = [runs.node && `node: ${node.passed} passed, ${node.failed} failed`, runs.deno && `deno: ${deno.passed} passed, ${deno.failed} failed`];
console.log(`\n${halves.filter(Boolean).join('; ')}`);
const halfOk = (r, on, res) => !on || (res.code === 0 && r.passed > 0 && r.failed === 0);
const ok = halfOk(node, runs.node, nodeRun) && halfOk(deno, runs.deno, denoRun);
const passed = (node.passed || 0) + (deno.passed || 0);
const failed = (node.failed || 0) + (deno.failed || 0) + (ok ? 0 : Number(!(node.failed || deno.failed)));
console.log(`${passed} passed, ${failed} failed`);
process.exit(ok ? 0 : 1);
