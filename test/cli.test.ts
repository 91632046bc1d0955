import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { repoRoot, runCxl } from './helpers/cxl.ts';

const version = JSON.parse(readFileSync(`${repoRoot}package.json`, 'utf8')).version as string;

test('cxl --version prints the package version and exits 0', async () => {
  const r = await runCxl(['--version']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `${version}\n`);
});

test('cxl --help lists every subcommand', async () => {
  const r = await runCxl(['--help']);
  assert.equal(r.code, 0, r.stderr);
  for (const sub of ['acp', 'run', 'mission', 'approvals', 'tool', 'check', 'config']) assert.match(r.stdout, new RegExp(`cxl ${sub}\\b`));
  assert.match(r.stdout, /terminal UI/);
  for (const flag of ['--agent', '--cwd', '--envelope', '--provider', '--model']) assert.ok(r.stdout.includes(flag), `the UI flag ${flag} is listed`);
});

test('a mistyped subcommand exits 2 and names the one meant; any other word is a first prompt for the UI', async () => {
  const r = await runCxl(['confg']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown command `confg`; did you mean `cxl config`\?/);
  assert.equal(r.stdout, '');
  // no terminal here, so the UI refuses: the prompt was taken as one, not as a command
  const prompt = await runCxl(['fix the bug']);
  assert.equal(prompt.code, 2);
  assert.match(prompt.stderr, /the UI needs a terminal/);
});

test('cxl -p is a one-shot conversation with its own usage, first or after other flags (--print too)', async () => {
  for (const argv of [['-p', '--help'], ['--print', '--help'], ['--model', 'm', '-p', '--help']]) {
    const r = await runCxl(argv);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^cxl -p: one prompt, one answer, no UI/, argv.join(' '));
  }
  // a subcommand keeps its own flags: -p is not one of cxl run's
  const run = await runCxl(['run', '-p', 'x']);
  assert.equal(run.code, 2);
});

test('an unknown top-level flag exits 2 and names it', async () => {
  const r = await runCxl(['--frobnicate']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--frobnicate/);
});

test('every subcommand answers --help and -h with its own usage, exit 0, and refuses an unknown flag with exit 2', async () => {
  for (const sub of ['acp', 'run', 'mission', 'approvals', 'tool', 'check', 'config']) {
    for (const flag of ['--help', '-h']) {
      const r = await runCxl([sub, flag]);
      assert.equal(r.code, 0, `${sub} ${flag}: ${r.stderr}`);
      assert.match(r.stdout, new RegExp(`^(Usage: )?cxl ${sub}\\b`), `${sub} ${flag} prints its own usage`);
    }
    const bad = await runCxl([sub, '--no-such-flag']);
    assert.equal(bad.code, 2, `${sub} --no-such-flag`);
    assert.match(bad.stderr, new RegExp(`cxl ${sub}: .*--no-such-flag[\\s\\S]*cxl ${sub} --help`));
  }
});
