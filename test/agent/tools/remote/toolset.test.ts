// Remote tools against a real HTTP service on 127.0.0.1 started here (Node's http module serving
// an OpenAPI 3.1 document): listing, the gate's decisions (a GET allowed, a POST asked, refused
// where nobody answers, approved with its method, URL and body shown), errors from the service,
// a timeout, a document that does not parse, and header secrets that reach the service but
// never the output.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { buildEnvelope } from '../../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../../src/core/envelope/shipped.ts';
import { Gate, type ApprovalRequest } from '../../../../src/core/gate/gate.ts';
import { loadRemoteTools, RemoteToolset, type RemoteServiceConfig } from '../../../../src/agent/tools/remote/toolset.ts';
import { startPetService, type PetService } from '../../../fixtures/openapi_service.ts';

const services: PetService[] = [];
const dirs: string[] = [];
after(async () => {
  for (const s of services) await s.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function service(o: { document?: unknown } = {}): Promise<PetService> {
  const s = await startPetService(o);
  services.push(s);
  return s;
}

const env = { PETS_TOKEN: 'tok-3f9a77c1e2' };

async function load(svc: PetService, extra: Partial<RemoteServiceConfig> = {}, maxOutputBytes = 32_768): Promise<RemoteToolset> {
  return RemoteToolset.load({ name: 'pets', url: svc.url, ...extra }, { env, maxOutputBytes });
}

function gate(ts: RemoteToolset, envelope = 'default', approver?: (req: ApprovalRequest) => 'allow_once' | 'reject', asked: ApprovalRequest[] = []): Gate {
  return new Gate({
    envelope: buildEnvelope(envelope, SHIPPED_ENVELOPES, FLOOR_RULES),
    toolsets: [ts],
    ...(approver
      ? {
          approver: async (req) => {
            asked.push(req);
            return { outcome: approver(req) };
          },
        }
      : {}),
  });
}

const code = (c: string) => (e: { code?: string }) => e.code === c;

test('each operation is a tool <service>.<operationId> with merged parameters and its summary; unsupported ones are said', async () => {
  const svc = await service();
  const ts = await load(svc);
  const specs = ts.list();
  assert.deepEqual(specs.map((s) => s.name), ['listPets', 'addPet', 'getPet', 'deletePet', 'boom', 'slow', 'whoami', 'elsewhere', 'moved', 'big', 'get_stats_day']);
  const by = new Map(specs.map((s) => [s.name, s]));
  assert.equal(by.get('getPet')!.description, 'Get one pet by id');
  assert.equal(by.get('getPet')!.kind, 'fetch');
  assert.equal(by.get('addPet')!.kind, 'other');
  // path (from the path item), query, header and a flattened JSON body in one object
  assert.deepEqual(by.get('getPet')!.inputSchema, { type: 'object', properties: { petId: { type: 'integer', description: 'the pet' } }, required: ['petId'], additionalProperties: false });
  assert.deepEqual(Object.keys(by.get('listPets')!.inputSchema.properties), ['limit', 'tag']);
  assert.equal(by.get('listPets')!.inputSchema.required, undefined);
  const add = by.get('addPet')!.inputSchema;
  assert.deepEqual(Object.keys(add.properties), ['X-Request-Id', 'name', 'tag']);
  assert.deepEqual(add.required, ['name']);
  assert.deepEqual(add.properties.name, { type: 'string', minLength: 1 });
  // no operationId: a name derived from the method and path; multipart upload left out with why
  assert.ok(by.has('get_stats_day'));
  assert.deepEqual(ts.notes(), ['remote tools pets: 1 operation left out: post_files (POST /files): request bodies of type multipart/form-data are not supported (JSON, form-urlencoded and text are).']);
  // the document's servers are not followed: nothing went to 127.0.0.2
  assert.equal(ts.base.href, `${svc.url}/`);
  // include / exclude by operation id, `*` as a wildcard
  const some = await load(svc, { include: ['*Pet*', 'nope'], exclude: ['deletePet'] });
  assert.deepEqual(some.list().map((s) => s.name), ['listPets', 'addPet', 'getPet']);
  assert.match(some.notes().join('\n'), /include names nope, which match no operation/);
});

test('a GET is a read: the default envelope allows it and it returns the parsed JSON; query parameters are sent', async () => {
  const svc = await service();
  const g = gate(await load(svc));
  const r = await g.call('pets.getPet', { petId: 1 });
  assert.deepEqual(r.result, { id: 1, name: 'Rex', tag: 'dog' });
  assert.equal(r.decision.action, 'allow');
  assert.equal(r.decision.rule, 'files.read');
  assert.match(r.decision.sentence, /pets\.getPet is a read \(GET \/pets\/\{petId\}\), files\.read is `allow`/);
  const list = await g.call('pets.listPets', { tag: 'cat', limit: 5 });
  assert.deepEqual(list.result, [{ id: 2, name: 'Tom', tag: 'cat' }]);
  assert.equal(svc.calls().at(-1)!.url, '/pets?limit=5&tag=cat');
  // a redirect within the service is followed
  assert.deepEqual((await g.call('pets.moved', {})).result, { id: 1, name: 'Rex', tag: 'dog' });
});

test('a POST is a write: asked in default, refused where nobody answers, and nothing is sent', async () => {
  const svc = await service();
  const g = gate(await load(svc));
  await assert.rejects(g.call('pets.addPet', { name: 'Kit' }), (e: { code: string; message: string }) => e.code === 'approval_required' && /files\.write is `approve`/.test(e.message));
  await assert.rejects(g.call('pets.deletePet', { petId: 1 }), code('approval_required'));
  assert.deepEqual(svc.calls(), []);
  // read_only denies writes; strict denies reads too; a tools pattern beats the axis
  await assert.rejects(gate(await load(svc), 'read_only').call('pets.addPet', { name: 'Kit' }), code('envelope_denied'));
  await assert.rejects(gate(await load(svc), 'strict').call('pets.getPet', { petId: 1 }), code('envelope_denied'));
  const named = new Gate({
    envelope: buildEnvelope('mine', { ...SHIPPED_ENVELOPES, mine: { extends: 'default', tools: { 'pets.addPet': { grant: 'allow' }, 'pets.getPet': { grant: 'deny' } } } }, FLOOR_RULES),
    toolsets: [await load(svc)],
  });
  assert.equal((await named.call('pets.addPet', { name: 'Kit' })).decision.rule, 'tools');
  await assert.rejects(named.call('pets.getPet', { petId: 1 }), code('envelope_denied'));
});

test('a POST approved: the approval shows the method, URL and body; the service gets exactly that', async () => {
  const svc = await service();
  const asked: ApprovalRequest[] = [];
  const g = gate(await load(svc, { headers: { Authorization: 'Bearer {{env:PETS_TOKEN}}' } }), 'default', () => 'allow_once', asked);
  const r = await g.call('pets.addPet', { name: 'Kit', tag: 'cat', 'X-Request-Id': 'r-1' });
  assert.deepEqual(r.result, { id: 3, name: 'Kit', tag: 'cat' });
  assert.equal(r.approvedBy, 'human');
  assert.equal(asked.length, 1);
  const req = asked[0];
  assert.equal(req.title, `pets.addPet: POST ${svc.url}/pets`);
  const shown = req.detail!.join('\n');
  assert.match(shown, new RegExp(`^POST ${svc.url}/pets\\n`));
  assert.match(shown, /X-Request-Id: r-1/);
  assert.match(shown, /body \(application\/json\):\n\{\n {2}"name": "Kit",\n {2}"tag": "cat"\n\}/);
  assert.match(shown, /with Authorization from agents\.toml; its value is not shown/);
  assert.doesNotMatch(shown, /tok-3f9a77c1e2/);
  assert.deepEqual(req.sessionScope, [{ kind: 'tool', tool: 'pets.addPet' }]);
  const sent = svc.calls().at(-1)!;
  assert.equal(sent.method, 'POST');
  assert.equal(sent.headers['content-type'], 'application/json');
  assert.equal(sent.headers['x-request-id'], 'r-1');
  assert.deepEqual(JSON.parse(sent.body), { name: 'Kit', tag: 'cat' });
  // a rejection sends nothing
  const before = svc.calls().length;
  await assert.rejects(gate(await load(svc), 'default', () => 'reject').call('pets.addPet', { name: 'No' }), code('rejected'));
  assert.equal(svc.calls().length, before);
});

test('arguments are checked against the schema before anything is sent or asked (bad_args)', async () => {
  const svc = await service();
  const asked: ApprovalRequest[] = [];
  const g = gate(await load(svc), 'default', () => 'allow_once', asked);
  for (const [tool, args, said] of [
    ['pets.getPet', { petId: 'one' }, /`petId` must be integer/],
    ['pets.getPet', {}, /missing `petId`/],
    ['pets.addPet', { name: '' }, /`name` must NOT have fewer than 1 characters/],
    ['pets.addPet', { name: 'x', colour: 'red' }, /unknown argument `colour`/],
    ['pets.listPets', { limit: 1000 }, /`limit` must be <= 100/],
    // `..` as a path value would climb out of the operation's path
    ['pets.get_stats_day', { day: '..' }, /may not be "\.\."/],
    ['pets.addPet', { name: 'x', 'X-Request-Id': 'a\r\nX-Evil: 1' }, /line break/],
  ] as const) {
    await assert.rejects(g.call(tool, args as Record<string, unknown>), (e: { code: string; message: string }) => e.code === 'bad_args' && said.test(e.message), `${tool} ${JSON.stringify(args)}`);
  }
  assert.equal(asked.length, 0, 'no human is asked about a call that cannot be sent');
  assert.deepEqual(svc.calls(), []);
  // a slash in a path value stays inside its segment
  assert.deepEqual((await g.call('pets.get_stats_day', { day: '../../admin' })).result, { day: '../../admin', visits: 3 });
  assert.equal(svc.calls().at(-1)!.url, '/stats/..%2F..%2Fadmin');
  await assert.rejects(g.call('pets.nosuch', {}), code('unknown_tool'));
});

test('a 404 and a 500 from the service are tool errors with the status and a short body', async () => {
  const svc = await service();
  const g = gate(await load(svc));
  await assert.rejects(g.call('pets.getPet', { petId: 99 }), (e: { code: string; message: string; details?: { status: number } }) => e.code === 'io_error' && e.details?.status === 404 && /answered 404 Not Found: \{"detail":"no pet 99"\}/.test(e.message));
  await assert.rejects(g.call('pets.boom', {}), (e: { code: string; message: string; details?: { status: number } }) => {
    assert.equal(e.code, 'io_error');
    assert.equal(e.details?.status, 500);
    assert.match(e.message, /answered 500 Internal Server Error: database on fire database on fire/);
    assert.ok(e.message.length < 600, `short: ${e.message.length}`);
    return true;
  });
});

test('a slow endpoint hits the timeout and the request is aborted; a cancelled call stops at once', async () => {
  const svc = await service();
  const ts = await load(svc, { timeoutMs: 300 });
  const t0 = Date.now();
  await assert.rejects(gate(ts).call('pets.slow', {}), (e: { code: string; message: string }) => e.code === 'timeout' && /within 300 ms/.test(e.message) && /timeout in \[remote_tools\.pets\]/.test(e.message));
  assert.ok(Date.now() - t0 < 2500, `took ${Date.now() - t0} ms`);
  const ac = new AbortController();
  const t1 = Date.now();
  setTimeout(() => ac.abort(), 100);
  await assert.rejects((await load(svc)).call('slow', {}, { signal: ac.signal }), code('cancelled'));
  assert.ok(Date.now() - t1 < 2500);
});

test('answers are capped at _max_output_bytes; a redirect to another host is not followed', async () => {
  const svc = await service();
  const g = gate(await load(svc, {}, 1000));
  const big = (await g.call('pets.big', {})).result as string;
  assert.ok(big.startsWith('x'.repeat(1000)));
  assert.match(big, /answer cut at 1000 bytes, _max_output_bytes/);
  assert.ok(big.length < 1200);
  const n = svc.seen.length;
  await assert.rejects(g.call('pets.elsewhere', {}), (e: { code: string; message: string }) => e.code === 'io_error' && /redirected \(302\) to http:\/\/127\.0\.0\.2:\d+, another host/.test(e.message));
  assert.equal(svc.seen.length, n + 1, 'only the first request was made');
});

test('headers with {{env:VAR}} reach the service but never the output; an unset variable leaves the service out', async () => {
  const svc = await service();
  const ts = await load(svc, { headers: { Authorization: 'Bearer {{env:PETS_TOKEN}}', 'X-Team': 'blue-team-key' } });
  // the document request carries them too (many services guard it)
  assert.equal(svc.seen[0].headers.authorization, 'Bearer tok-3f9a77c1e2');
  const echoed = await gate(ts).call('pets.whoami', {});
  const text = JSON.stringify(echoed);
  assert.equal(svc.calls().at(-1)!.headers.authorization, 'Bearer tok-3f9a77c1e2');
  assert.equal(svc.calls().at(-1)!.headers['x-team'], 'blue-team-key');
  assert.doesNotMatch(text, /tok-3f9a77c1e2|blue-team-key/);
  assert.match(text, /"authorization":"\[redacted\]"/);
  assert.doesNotMatch(JSON.stringify(ts.list()) + ts.describe().join('\n'), /tok-3f9a77c1e2|blue-team-key/);
  await assert.rejects(RemoteToolset.load({ name: 'pets', url: svc.url, headers: { Authorization: 'Bearer {{env:NOT_SET_X}}' } }, { env: {}, maxOutputBytes: 1000 }), (e: Error) => /uses \{\{env:NOT_SET_X\}\}, and NOT_SET_X is not set; its tools are absent/.test(e.message));
});

test('a document that does not parse, or a service that is down, is one problem line and no tools; the others load', async () => {
  const good = await service();
  const broken = await service({ document: '{"openapi": "3.1.0", "paths": {' });
  const notApi = await service({ document: { hello: 'world' } });
  const down = await service();
  await down.close();
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-remote-')));
  dirs.push(dir);
  fs.writeFileSync(path.join(dir, 'api.yaml'), 'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  /pets/{petId}:\n    get:\n      operationId: getPet\n      parameters:\n        - {name: petId, in: path, required: true, schema: {type: integer, nullable: true}}\n      responses: {"200": {description: ok}}\n');
  const { toolsets, problems } = await loadRemoteTools(
    [
      { name: 'good', url: good.url },
      { name: 'broken', url: broken.url },
      { name: 'notapi', url: notApi.url },
      { name: 'down', url: down.url },
      { name: 'fromfile', url: good.url, openapi: 'api.yaml', baseDir: dir },
      { name: 'nofile', url: good.url, openapi: 'missing.json', baseDir: dir },
    ],
    { env: {}, maxOutputBytes: 1000 },
  );
  assert.deepEqual(toolsets.map((t) => t.name), ['good', 'fromfile']);
  assert.equal(problems.length, 5, problems.join('\n'));
  assert.match(problems[0], /^remote tools good: 1 operation left out/);
  assert.match(problems[1], new RegExp(`^remote tools broken: its OpenAPI document ${broken.url}/openapi.json does not parse \\(not JSON: .*\\); its tools are absent this session\\.$`));
  assert.match(problems[2], /remote tools notapi: .* does not parse \(no `openapi` or `swagger` version field/);
  assert.match(problems[3], new RegExp(`^remote tools down: cannot fetch its OpenAPI document ${down.url}/openapi.json \\((ECONNREFUSED|.*[Cc]onnection refused.*)\\); its tools are absent this session\\. Fix url/openapi`));
  assert.match(problems[4], /remote tools nofile: cannot read its OpenAPI document .*missing\.json \(ENOENT\)/);
  // a YAML file of OpenAPI 3.0: nullable becomes JSON Schema's type list; calls still go to url
  const ff = toolsets[1];
  assert.deepEqual(ff.list()[0].inputSchema.properties.petId, { type: ['integer', 'null'] });
  assert.deepEqual(await ff.call('getPet', { petId: 2 }), { id: 2, name: 'Tom', tag: 'cat' });
});
