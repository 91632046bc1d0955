// The in-process toolsets where people reach them: `cxl acp` (a real child process, a fake model
// on 127.0.0.1 that calls git_status, git_show and jq_query by their bare names, and `/tool`
// typed by a person) and `cxl tool native-git.git_status` / `native-jq.jq_query`, on a real
// repository whose history holds a .env: its bytes reach neither the model nor the terminal.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { startFakeOpenAI } from '../../fixtures/fake_models.ts';
import { runCxl } from '../../helpers/cxl.ts';
import { Harness } from '../../agent/acp/harness.ts';
import { repo, tempDir } from './fixture.ts';

const SECRET = 'sk-live-DO-NOT-PRINT-4242';
const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

const project = () => repo([{ files: { 'app.json': '{"name":"app","deps":{"a":1,"b":2}}\n' }, message: 'app' }, { files: { '.env': `TOKEN=${SECRET}\n` }, message: 'app and env' }]);

test('cxl acp offers the git and jq tools by bare name, runs them for the model and for /tool, and never shows .env', async () => {
  const dir = project();
  const home = tempDir('cxl-home-');
  const srv = await startFakeOpenAI([
    { toolCalls: [{ name: 'git_status', arguments: {} }, { name: 'git_show', arguments: { ref: 'HEAD' } }, { name: 'jq_query', arguments: { path: 'app.json', filter: '.deps | keys' } }] },
    { text: 'Looked.' },
  ]);
  const h = new Harness({ args: ['--provider', 'openai', '--model', 'fake-model'], env: { HOME: home, XDG_DATA_HOME: path.join(home, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'sk-test' } });
  cleanups.push(async () => {
    await h.stop();
    await srv.close();
  });
  await h.start();
  const { sessionId } = await h.newSession(dir);
  assert.equal((await h.prompt(sessionId, 'look around')).stopReason, 'end_turn');
  const offered = ((srv.requests[0].tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
  for (const name of ['git_status', 'git_diff', 'git_commit', 'jq_query']) assert.ok(offered.includes(name), `${name} not offered: ${offered.join(', ')}`);
  // a repository with no Go module: native-go's tools would only take room in the window
  assert.deepEqual(offered.filter((n) => n.startsWith('go_')), []);
  const results = ((srv.requests[1].messages ?? []) as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool').map((m) => m.content);
  assert.equal(results.length, 3);
  assert.match(results[0], /branch main/);
  assert.match(results[1], /app and env/);
  assert.match(results[1], /content not shown: \.env/);
  assert.match(results[2], /\["a","b"\]/);
  assert.equal(JSON.stringify(srv.requests).includes(SECRET), false, 'the .env content reached the model');
  // a person's /tool: the qualified name, through the same gate
  assert.equal((await h.prompt(sessionId, '/tool native-git.git_log {"n": 1}')).stopReason, 'end_turn');
  const done = h.toolUpdates().filter((u) => u.status === 'completed').at(-1)!;
  assert.match(JSON.stringify(done.content), /app and env/);
  assert.equal(JSON.stringify(h.updates).includes(SECRET), false, 'the .env content reached the client');
});

test('cxl tool native-git.git_status and native-jq.jq_query answer in the workspace; git_show names .env without its bytes', async () => {
  const dir = project();
  fs.writeFileSync(path.join(dir, 'app.json'), '{"name":"app","deps":{"a":1}}\n');
  const env = { HOME: tempDir('cxl-home-') };
  const st = await runCxl(['tool', 'native-git.git_status'], { cwd: dir, env });
  assert.equal(st.code, 0, st.stderr);
  assert.match(st.stdout, /changed but not staged/);
  assert.match(st.stdout, /app\.json/);
  const show = await runCxl(['tool', 'native-git.git_show', '{"ref":"HEAD"}'], { cwd: dir, env });
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stdout, /\.env/);
  assert.equal(show.stdout.includes(SECRET) || show.stderr.includes(SECRET), false);
  const jq = await runCxl(['tool', 'native-jq.jq_query', '{"path":"app.json","filter":".deps | length"}'], { cwd: dir, env });
  assert.equal(jq.code, 0, jq.stderr);
  assert.match(jq.stdout, /\b1\b/);
});
