// The README's command lines run as typed from a fresh clone: each line of a section's sh block
// is given to `sh -c` in the repository with node_modules/.bin first on PATH (as npx and npm
// scripts have it), and must exit 0 with cxl's own output. A line that would block (a UI with
// no --help, a whole test suite) is run only where the section is listed here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { repoRoot } from './helpers/cxl.ts';

const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

/** The command lines of the first sh block under `## heading`, comments dropped. */
function shLines(heading: string): string[] {
  const at = readme.indexOf(`\n## ${heading}\n`);
  assert.ok(at >= 0, `README has a section "## ${heading}"`);
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  assert.ok(block, `"## ${heading}" has an sh block`);
  return block[1].split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l !== '');
}

function runLine(line: string) {
  const env = { ...process.env, PATH: `${path.join(repoRoot, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1' };
  return spawnSync('sh', ['-c', line], { cwd: repoRoot, env, encoding: 'utf8', timeout: 60_000 });
}

test('the README Deno section runs as typed: deno task start and dev print the usage', () => {
  const lines = shLines('Running under Deno').filter((l) => l.endsWith('--help'));
  assert.ok(lines.length >= 2, `start and dev lines found: ${JSON.stringify(lines)}`);
  for (const line of lines) {
    const r = runLine(line);
    assert.equal(r.status, 0, `${line}\n${r.stderr}`);
    assert.match(r.stdout, /^cxl \d+\.\d+\.\d+: /m, line);
    assert.doesNotMatch(r.stderr, /SyntaxError/, line);
  }
});
