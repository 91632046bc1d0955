// Remote tools reached from the model: through `cxl acp` (a real child process; the client is
// asked before a POST, with the method, URL and body) and through `cxl run` (nobody answers, so
// the POST is refused and nothing is sent). A service that is down at start is reported once
// and the session goes on. The service is a real HTTP server on 127.0.0.1 started here.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { startFakeOpenAI } from '../../../fixtures/fake_models.ts';
import { startPetService } from '../../../fixtures/openapi_service.ts';
import { runCxl } from '../../../helpers/cxl.ts';
import { Harness } from '../../acp/harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function project(serviceUrl: string) {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-remote-agent-')));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, '.contenox'));
  writeFileSync(
    path.join(dir, '.contenox', 'agents.toml'),
    `[remote_tools.pets]\nurl = ${JSON.stringify(serviceUrl)}\n[remote_tools.pets.headers]\nX-Api-Key = "{{env:PETS_KEY}}"\n\n[remote_tools.gone]\nurl = "http://127.0.0.1:9"\n`,
  );
  return dir;
}

const toolNames = (req: Record<string, unknown>) => ((req.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
const toolResults = (req: Record<string, unknown>) => ((req.messages ?? []) as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool').map((m) => m.content);

test('cxl acp: a GET runs without asking, a POST asks with method, URL and body; a service down at start is said once', async () => {
  const svc = await startPetService();
  cleanups.push(() => svc.close());
  const dir = await project(svc.url);
  const srv = await startFakeOpenAI([
    { toolCalls: [{ name: 'pets.getPet', arguments: { petId: 2 } }, { name: 'pets.addPet', arguments: { name: 'Kit' } }] },
    { text: 'Added Kit.' },
    { text: 'Still here.' },
  ]);
  const h = new Harness({
    args: ['--provider', 'openai', '--model', 'fake'],
    env: { HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k', PETS_KEY: 'key-acp-77d1' },
    permission: () => 'allow_once',
  });
  cleanups.push(async () => {
    await h.stop();
    await srv.close();
  });
  await h.start();
  const ns = await h.newSession(dir, []);
  assert.equal((await h.prompt(ns.sessionId, 'add a pet')).stopReason, 'end_turn');
  const names = toolNames(srv.requests[0]);
  assert.ok(names.includes('pets__getPet') && names.includes('pets__addPet') && names.includes('read_file'), names.join(','));
  assert.equal(names.some((n) => n.startsWith('gone')), false);
  assert.deepEqual(toolResults(srv.requests[1]).map((r) => JSON.parse(r)), [{ id: 2, name: 'Tom', tag: 'cat' }, { id: 3, name: 'Kit' }]);
  assert.equal(h.permissions.length, 1, 'only the POST asks');
  const p = h.permissions[0];
  const shown = JSON.stringify(p.toolCall.content);
  assert.match(shown, new RegExp(`POST ${svc.url}/pets`));
  assert.match(shown, /\\"name\\": \\"Kit\\"/);
  assert.match(shown, /X-Api-Key from agents\.toml; its value is not shown/);
  assert.equal((p.toolCall._meta as { cxl: { rule: string } }).cxl.rule, 'files.write');
  assert.equal(h.toolUpdates().find((u) => u.sessionUpdate === 'tool_call')!.kind, 'fetch');
  assert.ok(svc.calls().every((c) => c.headers['x-api-key'] === 'key-acp-77d1'));
  assert.equal((await h.prompt(ns.sessionId, 'still there?')).stopReason, 'end_turn');
  const text = h.messageText();
  assert.match(text, /Still here\./);
  assert.equal(text.match(/remote tools gone: cannot fetch its OpenAPI document/g)?.length, 1, text);
  assert.doesNotMatch(JSON.stringify([h.permissions, h.toolUpdates(), text]), /key-acp-77d1/);
});

test('cxl run under read_only: a GET runs, a POST is denied and never sent; the mission does not land (exit 3)', async () => {
  const svc = await startPetService();
  cleanups.push(() => svc.close());
  const dir = await project(svc.url);
  const srv = await startFakeOpenAI([{ toolCalls: [{ name: 'pets.listPets', arguments: { tag: 'dog' } }, { name: 'pets.addPet', arguments: { name: 'Kit' } }] }, { text: 'Rex is the dog; I could not add Kit.' }]);
  cleanups.push(() => srv.close());
  const r = await runCxl(['run', '--provider', 'openai', '--model', 'm', '--envelope', 'read_only', 'list the dogs and add Kit'], {
    cwd: dir,
    env: { HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k', PETS_KEY: 'key-run-5b' },
  });
  assert.equal(r.code, 3, r.stderr);
  const [list, add] = toolResults(srv.requests[1]);
  assert.deepEqual(JSON.parse(list), [{ id: 1, name: 'Rex', tag: 'dog' }]);
  assert.match(add, /"code":"envelope_denied"/);
  assert.match(r.stderr, /1 call was refused or unanswered: pets\.addPet.*\(envelope_denied\)/);
  assert.deepEqual(svc.calls().map((c) => `${c.method} ${c.url}`), ['GET /pets?tag=dog']);
  assert.match(r.stderr, /remote tools gone: cannot fetch its OpenAPI document/);
});
