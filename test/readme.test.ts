// The README's command lines run as typed from a fresh clone: each line of a section's sh block
// is given to `sh -c` in the repository with node_modules/.bin first on PATH (as npx and npm
// scripts have it), and must exit 0 with cxl's own output. A line that would block (a UI with
// no --help, a whole test suite) is run only where the section is listed here; one that needs a
// model runs against a scripted one on 127.0.0.1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { startFakeOpenAI } from './fixtures/fake_models.ts';
import { repoRoot } from './helpers/cxl.ts';

const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

/** The command lines of the sh blocks under `## heading` (the first only, unless `all`), comments dropped. */
function shLines(heading: string, all = false): string[] {
  const at = readme.indexOf(`\n## ${heading}\n`);
  assert.ok(at >= 0, `README has a section "## ${heading}"`);
  const rest = readme.slice(at + 1);
  const section = rest.slice(0, rest.indexOf('\n## ') >= 0 ? rest.indexOf('\n## ') : undefined);
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(blocks.length, `"## ${heading}" has an sh block`);
  return (all ? blocks : blocks.slice(0, 1)).join('').split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l !== '');
}

function lineEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  return { ...process.env, PATH: `${path.join(repoRoot, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1', ...extra };
}

function runLine(line: string) {
  return spawnSync('sh', ['-c', line], { cwd: repoRoot, env: lineEnv(), encoding: 'utf8', timeout: 60_000 });
}

/** A line run while this process serves its model: spawnSync would hold the server still. */
function runLineAsync(line: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', line], { cwd: repoRoot, env: lineEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
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

test('the Quick start\'s `npx cxl -p "summarise src/"` runs as typed: a model that lists src/ and answers in prose, the answer on stdout, exit 0', async () => {
  const line = shLines('Quick start', true).find((l) => / -p /.test(l));
  assert.equal(line, 'npx cxl -p "summarise src/"');
  const srv = await startFakeOpenAI(
    (body, n) => (n === 0 ? { toolCalls: [{ name: 'list_dir', arguments: { path: 'src' } }] } : { text: `src/ holds ${((body.messages as Array<{ role: string; content: string }>).at(-1)!.content.match(/\bcli\b/) ? 'the CLI' : 'nothing I could see')} and the agent.` }),
    { models: [{ id: 'local-model' }] },
  );
  // a person's first run: their own home and data, a model server at OPENAI_BASE_URL, nothing else
  const home = mkdtempSync(path.join(os.tmpdir(), 'cxl-readme-'));
  try {
    const r = await runLineAsync(line!, { HOME: home, XDG_DATA_HOME: path.join(home, 'data'), XDG_CONFIG_HOME: path.join(home, 'config'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: '' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'src/ holds the CLI and the agent.\n');
    assert.match(r.stderr, /^cxl -p: envelope read_only \(no --envelope and no default_envelope set/m);
    assert.equal((srv.requests[0].messages as Array<{ content: string }>).at(-1)!.content, 'summarise src/');
    assert.equal(srv.requests[0].model, 'local-model', 'the model the server lists');
  } finally {
    await srv.close();
    rmSync(home, { recursive: true, force: true });
  }
});
