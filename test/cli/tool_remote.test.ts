// Remote tools from the command line, as a user scripts them: `cxl tool <service>.<operationId>
// '{json}'` through the envelope (a GET allowed, a POST refused without --yes and sent with it),
// `cxl config` listing the tools with the header values hidden, and `cxl config --check`
// pointing at a bad entry. The service is a real HTTP server on 127.0.0.1 started here.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runCxl } from '../helpers/cxl.ts';
import { startPetService, type PetService } from '../fixtures/openapi_service.ts';

let svc: PetService;
let dir: string;
const env = () => ({ HOME: dir, PETS_TOKEN: 'tok-cli-9c2e51' });

before(async () => {
  svc = await startPetService();
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-remote-cli-')));
  fs.mkdirSync(path.join(dir, '.contenox'));
  fs.writeFileSync(
    path.join(dir, '.contenox', 'agents.toml'),
    `[remote_tools.pets]\nurl = ${JSON.stringify(svc.url)}\ntimeout = "5s"\n[remote_tools.pets.headers]\nAuthorization = "Bearer {{env:PETS_TOKEN}}"\n\n[remote_tools.gone]\nurl = "http://127.0.0.1:9"\n`,
  );
});
after(async () => {
  await svc.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const json = (s: string) => JSON.parse(s.trim());

test('cxl tool: a GET runs (allowed as a read); a POST needs --yes; bad arguments and a down service are tool errors', async () => {
  const get = await runCxl(['tool', 'pets.getPet', '{"petId":1}'], { cwd: dir, env: env() });
  assert.equal(get.code, 0, get.stdout + get.stderr);
  const g = json(get.stdout);
  assert.deepEqual(g.result, { id: 1, name: 'Rex', tag: 'dog' });
  assert.equal(g.envelope.rule, 'files.read');
  assert.equal(svc.calls().at(-1)!.headers.authorization, 'Bearer tok-cli-9c2e51');

  const n = svc.calls().length;
  const post = await runCxl(['tool', 'pets.addPet', '{"name":"Kit"}'], { cwd: dir, env: env() });
  assert.equal(post.code, 1);
  assert.equal(json(post.stdout).code, 'approval_required');
  assert.equal(svc.calls().length, n, 'nothing was sent');
  const yes = await runCxl(['tool', '--yes', 'pets.addPet', '{"name":"Kit"}'], { cwd: dir, env: env() });
  assert.equal(yes.code, 0, yes.stdout + yes.stderr);
  assert.deepEqual(json(yes.stdout).result, { id: 3, name: 'Kit' });
  assert.equal(json(yes.stdout).envelope.approved_by, 'yes');

  const bad = await runCxl(['tool', 'pets.getPet', '{"petId":"x"}'], { cwd: dir, env: env() });
  assert.equal(json(bad.stdout).code, 'bad_args');
  const down = await runCxl(['tool', 'gone.anything', '{}'], { cwd: dir, env: env() });
  assert.equal(down.code, 1);
  assert.equal(json(down.stdout).code, 'io_error');
  assert.match(json(down.stdout).error, /remote tools gone: cannot fetch its OpenAPI document http:\/\/127\.0\.0\.1:9\/openapi\.json/);
  for (const r of [get, post, yes, bad, down]) assert.doesNotMatch(r.stdout + r.stderr, /tok-cli-9c2e51/);
});

test('cxl config lists each service and its tools, header values hidden; --check points at a bad entry', async () => {
  const n = svc.seen.length;
  const listed = await runCxl(['config'], { cwd: dir, env: env() });
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, new RegExp(`# remote tools pets: ${svc.url} \\(not fetched; --probe lists its tools\\)`));
  assert.equal(svc.seen.length, n, 'plain cxl config fetches nothing, not even the document');
  const cfg = await runCxl(['config', '--probe'], { cwd: dir, env: env() });
  assert.equal(cfg.code, 0, cfg.stderr);
  assert.match(cfg.stdout, /^remote_tools\.pets\.headers\.Authorization = "\(hidden; from \$PETS_TOKEN\)"/m);
  assert.match(cfg.stdout, /^remote_tools\.pets\.timeout = "5s"/m);
  assert.match(cfg.stdout, new RegExp(`# remote tools pets \\(${svc.url}/, document ${svc.url}/openapi.json\\): 11 tools`));
  assert.match(cfg.stdout, /#   pets\.addPet \(POST \/pets\): Add a pet/);
  assert.match(cfg.stdout, /# remote tools gone \(http:\/\/127\.0\.0\.1:9\): remote tools gone: cannot fetch/);
  assert.doesNotMatch(cfg.stdout + cfg.stderr, /tok-cli-9c2e51/);

  const bad = path.join(dir, 'bad.toml');
  fs.writeFileSync(bad, '[remote_tools.x]\nurl = "http://127.0.0.1:1"\n\n[remote_tools.y]\nopenapi = "/o.json"\ntimeout = -1\n');
  const check = await runCxl(['config', '--check', bad], { cwd: dir, env: env() });
  assert.equal(check.code, 1);
  assert.match(check.stderr, new RegExp(`${bad.replace(/[.]/g, '\\.')}:4:1: \\[remote_tools\\.y\\] needs \`url\``));
});
