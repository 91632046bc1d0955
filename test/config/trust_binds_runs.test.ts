// Trust binds what a project's configuration starts, not only the configuration: a trusted
// project whose MCP server script is replaced (by a pull, by the model writing it) does not start
// the new code; a program put on the PATH the server gets, inside the project, is a change too;
// so is the OpenAPI file a remote service reads. Each case beside its control: the same trusted
// project, nothing changed, starts its server. Real processes, real files, a fake model server
// on 127.0.0.1.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runtimeBinary, runtimeName } from '../../src/core/platform/runtime.ts';
import { startFakeOpenAI, type FakeServer } from '../fixtures/fake_models.ts';
import { runCxl } from '../helpers/cxl.ts';

const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-trust-runs-')));
const home = path.join(base, 'home');
let model: FakeServer;

const q = (s: string) => JSON.stringify(s);
const env = () => ({ HOME: home, XDG_DATA_HOME: path.join(base, 'data'), OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'k', CXL_MCP_TIMEOUT_MS: '1500' });
const cxl = (args: string[], cwd: string) => runCxl(args, { cwd, env: env() });
const run = (cwd: string) => cxl(['run', '--provider', 'openai', '--model', 'm', '--envelope', 'default', 'hello'], cwd);
const lines = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean) : []);
/** the runtime running the tests, running a script: `node tools/helper.mjs` or `deno run -A tools/helper.mjs` */
const scriptCommand = (script: string) => ({ command: runtimeBinary(), args: runtimeName === 'deno' ? ['run', '-A', script] : [script] });
const helper = (word: string) => `import { appendFileSync } from 'node:fs';\nimport process from 'node:process';\nappendFileSync(process.env.MARKER, '${word}\\n');\n`;

function project(name: string, toml: string, files: Record<string, string>): string {
  const dir = path.join(base, name);
  mkdirSync(path.join(dir, '.contenox'), { recursive: true });
  writeFileSync(path.join(dir, '.contenox', 'agents.toml'), toml);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

before(async () => {
  model = await startFakeOpenAI((_body, n) => ({ text: `answer ${n}` }));
  mkdirSync(path.join(home, '.contenox'), { recursive: true });
});
after(async () => {
  await model.close();
  rmSync(base, { recursive: true, force: true });
});

test("a trusted project's MCP server whose script is replaced does not start; unchanged, it does", async () => {
  const marker = path.join(base, 'helper-marker.txt');
  const { command, args } = scriptCommand('tools/helper.mjs');
  const dir = project('replaced', ['[mcp_servers.helper]', `command = ${q(command)}`, `args = [${args.map(q).join(', ')}]`, `env = { MARKER = ${q(marker)} }`].join('\n'), { 'tools/helper.mjs': helper('trusted code ran') });

  const show = await cxl(['trust', '--show'], dir);
  assert.match(show.stdout, /What it starts or reads from the folder[^\n]*tools\/helper\.mjs/);
  assert.equal((await cxl(['trust'], dir)).code, 0);

  // control: trusted, nothing changed: the project's own server starts
  await run(dir);
  assert.deepEqual(lines(marker), ['trusted code ran']);

  // the script is replaced (a pull, or the model wrote it): the next run does not start it
  writeFileSync(path.join(dir, 'tools', 'helper.mjs'), helper('REPLACED code ran'));
  const r = await run(dir);
  assert.deepEqual(lines(marker), ['trusted code ran'], 'the replaced script never ran');
  assert.match(r.stderr, /changed since you trusted it \(tools\/helper\.mjs\)[^]*cxl trust/);
  const cfg = await cxl(['config'], dir);
  assert.match(cfg.stdout, /changed since trusted: NOT applied/);
  const again = await cxl(['trust', '--show'], dir);
  assert.match(again.stdout, /Changed since you trusted it:[^]*a\/tools\/helper\.mjs[^]*-appendFileSync\(process\.env\.MARKER, 'trusted code ran[^]*\+appendFileSync\(process\.env\.MARKER, 'REPLACED code ran/);

  // trusted again, having seen it: it runs
  assert.equal((await cxl(['trust'], dir)).code, 0);
  await run(dir);
  assert.deepEqual(lines(marker), ['trusted code ran', 'REPLACED code ran']);
});

test('a program put inside the project on the PATH a trusted server gets is a change; the system one still runs when nothing changed', async () => {
  const marker = path.join(base, 'path-marker.txt');
  // `sh` is found in /usr/bin or /bin now; ./bin comes first and does not exist yet
  const toml = ['[mcp_servers.shell]', 'command = "sh"', `args = ["-c", "echo system sh >> \\"$MARKER\\""]`, `env = { MARKER = ${q(marker)}, PATH = "./bin:/usr/bin:/bin" }`].join('\n');
  const dir = project('shadowed', toml, {});
  assert.equal((await cxl(['trust'], dir)).code, 0);

  await run(dir);
  assert.deepEqual(lines(marker), ['system sh'], 'control: the trusted server runs');

  mkdirSync(path.join(dir, 'bin'));
  writeFileSync(path.join(dir, 'bin', 'sh'), `#!/bin/sh\necho shadow ran >> "${marker}"\n`);
  chmodSync(path.join(dir, 'bin', 'sh'), 0o755);
  const r = await run(dir);
  assert.deepEqual(lines(marker), ['system sh'], 'the program put in ./bin never ran');
  assert.match(r.stderr, /changed since you trusted it \([^)]*bin\/sh[^)]*\)/);
  assert.match((await cxl(['trust', '--show'], dir)).stdout, /\+echo shadow ran/);
});

test("a remote service's OpenAPI file in the project is bound too: replacing it re-asks", async () => {
  const dir = project('openapi', ['[remote_tools.pets]', 'url = "http://127.0.0.1:9"', 'openapi = "pets.json"'].join('\n'), { '.contenox/pets.json': '{"openapi":"3.0.0","paths":{}}' });
  assert.equal((await cxl(['trust'], dir)).code, 0);
  assert.match((await cxl(['config'], dir)).stdout, /trusted \(applied\)/, 'control: unchanged, it applies');
  writeFileSync(path.join(dir, '.contenox', 'pets.json'), '{"openapi":"3.0.0","paths":{"/x":{"delete":{"operationId":"wipe"}}}}');
  const cfg = await cxl(['config'], dir);
  assert.match(cfg.stdout, /changed since trusted: NOT applied/);
  assert.doesNotMatch(cfg.stdout, /remote_tools\.pets/);
});
