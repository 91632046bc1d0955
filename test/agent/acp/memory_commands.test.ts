// The project's own words reach the model: `cxl acp` spawned as a real child process against a
// fake OpenAI server, AGENTS.md files and custom commands as real files. What the server receives
// is what the model would read.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { startFakeOpenAI, type FakeServer } from '../../fixtures/fake_models.ts';
import { Harness } from './harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

interface World {
  root: string;
  home: string;
  h: Harness;
  srv: FakeServer;
}

async function world(files: Record<string, string>, env: Record<string, string> = {}): Promise<World> {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-memory-acp-')));
  for (const [rel, text] of Object.entries(files)) {
    const f = path.join(root, rel);
    mkdirSync(path.dirname(f), { recursive: true });
    if (rel.endsWith('/')) mkdirSync(f, { recursive: true });
    else writeFileSync(f, text);
  }
  const srv = await startFakeOpenAI(() => ({ text: 'D’accord.' }));
  const home = path.join(root, 'home');
  mkdirSync(home, { recursive: true });
  const h = new Harness({ args: ['--provider', 'openai', '--model', 'fake-model'], env: { HOME: home, XDG_DATA_HOME: path.join(root, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'sk-test', ...env } });
  cleanups.push(async () => {
    await h.stop();
    await srv.close();
    rmSync(root, { recursive: true, force: true });
  });
  await h.start();
  return { root, home, h, srv };
}

function systemOf(srv: FakeServer, n: number): string {
  const msgs = srv.requests[n].messages as Array<{ role: string; content: string }>;
  assert.equal(msgs[0].role, 'system');
  return msgs[0].content;
}

test("AGENTS.md reaches the model with every request, the nested one after the top one, and an edit counts at the next prompt", async () => {
  const w = await world({
    'repo/.git/': '',
    'repo/AGENTS.md': 'Always answer in French.',
    'repo/svc/AGENTS.md': 'In this service, run `make check` before you say done.',
  });
  const { sessionId } = await w.h.newSession(path.join(w.root, 'repo/svc'));
  await w.h.prompt(sessionId, 'hello');
  const first = systemOf(w.srv, 0);
  const top = first.indexOf('Always answer in French.');
  const nested = first.indexOf('run `make check`');
  assert.ok(top > 0 && nested > top, `the top file, then the nested one:\n${first}`);
  // one copy of the tool preference
  assert.equal(first.split('TOOL PREFERENCE').length, 2, first);
  writeFileSync(path.join(w.root, 'repo/AGENTS.md'), 'Always answer in German.');
  await w.h.prompt(sessionId, 'and now?');
  const second = systemOf(w.srv, 1);
  assert.match(second, /Always answer in German\./);
  assert.doesNotMatch(second, /French/);
  // /memory names the files with their paths, and asks no model
  await w.h.prompt(sessionId, '/memory');
  assert.equal(w.srv.requests.length, 2);
  const said = w.h.messageText(sessionId);
  assert.ok(said.includes(path.join(w.root, 'repo/AGENTS.md')) && said.includes(path.join(w.root, 'repo/svc/AGENTS.md')), said);
});

test('an AGENTS.md that is a link to a quarantined key is not read: the key never reaches the server', async () => {
  const w = await world({ 'home/.ssh/id_rsa': '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n', 'p/README.md': 'hi' });
  symlinkSync(path.join(w.home, '.ssh/id_rsa'), path.join(w.root, 'p/AGENTS.md'));
  const { sessionId } = await w.h.newSession(path.join(w.root, 'p'));
  await w.h.prompt(sessionId, 'hello');
  const body = JSON.stringify(w.srv.requests[0]);
  assert.doesNotMatch(body, /b3BlbnNzaC1rZXktdjEAAAAA|PRIVATE KEY/);
  await w.h.prompt(sessionId, '/memory');
  assert.match(w.h.messageText(sessionId), /skipped AGENTS\.md: it is a quarantined credential path/);
});

test('a custom command is advertised with its source and expands its $ARGUMENTS for the model; /init asks the model to write AGENTS.md', async () => {
  const w = await world({
    'home/.contenox/commands/fix-issue.md': '---\ndescription: Fix a GitHub issue\nargument-hint: <number> [area]\n---\nFix issue #$1 in $2. The whole request: $ARGUMENTS.',
    'p/.contenox/commands/deploy.md': 'Deploy everything.',
  });
  const { sessionId } = await w.h.newSession(path.join(w.root, 'p'));
  await w.h.prompt(sessionId, '/fix-issue 42 parser');
  const last = (w.srv.requests[0].messages as Array<{ role: string; content: string }>).at(-1)!;
  assert.deepEqual(last, { role: 'user', content: 'Fix issue #42 in parser. The whole request: 42 parser.' });
  const lists = w.h.updates.filter((u) => u.update.sessionUpdate === 'available_commands_update').map((u) => (u.update as { availableCommands: Array<{ name: string; description: string; input?: { hint: string }; _meta?: Record<string, unknown> }> }).availableCommands);
  const fix = lists.at(-1)!.find((c) => c.name === 'fix-issue');
  assert.deepEqual(fix, { name: 'fix-issue', description: 'Fix a GitHub issue (user command)', input: { hint: '<number> [area]' }, _meta: { 'cxl/source': 'user' } });
  // the project is not trusted: its command is not offered and not expanded
  assert.equal(lists.at(-1)!.find((c) => c.name === 'deploy'), undefined);
  await w.h.prompt(sessionId, '/deploy');
  assert.equal((w.srv.requests[1].messages as Array<{ content: string }>).at(-1)!.content, '/deploy');
  await w.h.prompt(sessionId, '/init');
  assert.match((w.srv.requests[2].messages as Array<{ content: string }>).at(-1)!.content, /Write an AGENTS\.md file at the root of this project/);
  // a resumed session shows what was typed, not the expansion
  const before = w.h.updates.length;
  await w.h.agent.request(acp.methods.agent.session.load, { sessionId, cwd: path.join(w.root, 'p'), mcpServers: [] });
  const typed = w.h.updates.slice(before).filter((u) => u.update.sessionUpdate === 'user_message_chunk').map((u) => (u.update as { content: { text: string } }).content.text);
  assert.deepEqual(typed, ['/fix-issue 42 parser', '/deploy', '/init']);
});

test('a trusted project command is offered as the project’s and replaces the person’s own', async () => {
  const w = await world({
    'home/.contenox/commands/review.md': 'Review it my way.',
    'p/.contenox/commands/review.md': '---\ndescription: the team review\n---\nReview $ARGUMENTS the team way.',
  }, { CXL_TRUST_PROJECT: '1' });
  const { sessionId } = await w.h.newSession(path.join(w.root, 'p'));
  await w.h.prompt(sessionId, '/review src');
  assert.equal((w.srv.requests[0].messages as Array<{ content: string }>).at(-1)!.content, 'Review src the team way.');
  const list = w.h.updates.filter((u) => u.update.sessionUpdate === 'available_commands_update').at(-1)!.update as { availableCommands: Array<{ name: string; description: string }> };
  assert.equal(list.availableCommands.find((c) => c.name === 'review')?.description, 'the team review (project command)');
});
