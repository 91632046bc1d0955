// `!line` is the person's own shell: the client runs it with $SHELL -c in the session root, in the
// sandbox, and hands its output to the agent with the next prompt. Real processes throughout: the
// built-in agent (`cxl acp`) against a fake OpenAI server, a git repository made for the test, a
// key in the test's home, and the scripted agent as a foreign one.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { AcpClient } from '../../../src/client/acp_client.ts';
import { moduleCommand } from '../../../src/core/platform/runtime.ts';
import { startFakeOpenAI, type FakeServer } from '../../fixtures/fake_models.ts';
import { cxlCommand } from '../../helpers/cxl.ts';
import { fixture, removeWorkdirs, waitFor, workdir } from '../client_harness.ts';
import type { ClientState, HistoryItem } from '../../../src/client/state.ts';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  removeWorkdirs();
});

const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\n';

function lastShell(s: ClientState): Extract<HistoryItem, { kind: 'shell' }> | undefined {
  return s.history.filter((h): h is Extract<HistoryItem, { kind: 'shell' }> => h.kind === 'shell').at(-1);
}

async function builtin(): Promise<{ c: AcpClient; srv: FakeServer; repo: string; home: string }> {
  const dir = workdir();
  const home = path.join(dir, 'home');
  const repo = path.join(dir, 'repo');
  mkdirSync(path.join(home, '.ssh'), { recursive: true });
  writeFileSync(path.join(home, '.ssh/id_rsa'), KEY, { mode: 0o600 });
  mkdirSync(repo);
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { cwd: repo, env: { ...process.env, HOME: home } });
  git('init', '-q');
  writeFileSync(path.join(repo, 'a.txt'), 'a\n');
  git('add', 'a.txt');
  git('commit', '-qm', 'the very first commit');
  const srv = await startFakeOpenAI(() => ({ text: 'seen' }));
  const env = { ...process.env, HOME: home, SHELL: '/bin/sh', XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'sk-live-secret-value', NO_COLOR: '1' };
  const c = new AcpClient({ argv: [...cxlCommand(), 'acp', '--provider', 'openai', '--model', 'fake-model'], label: 'cxl acp', builtin: true, cwd: repo, env, settleMs: 5 });
  cleanups.push(async () => {
    await c.close();
    await srv.close();
  });
  await c.start();
  await waitFor(c, (s) => s.sessionId !== undefined, 'the session');
  return { c, srv, repo, home };
}

test('!git log --oneline | head -1 runs as typed in the workspace, shows its output, and the next request carries it', async () => {
  const { c, srv } = await builtin();
  c.shell.run('git log --oneline | head -1');
  const s = await waitFor(c, (x) => lastShell(x) !== undefined, 'the shell line to finish');
  const run = lastShell(s)!.run!;
  assert.equal(run.exitCode, 0);
  assert.match(run.output, /^[0-9a-f]{7,} the very first commit\n$/);
  assert.equal(run.handed, true, 'it ran in the sandbox, so its output goes to the agent');
  assert.equal(srv.requests.length, 0, 'running it asked no model');
  c.send('what was the last commit?');
  await waitFor(c, (x) => !x.running && srv.requests.length === 1, 'the turn');
  const user = (srv.requests[0].messages as Array<{ role: string; content: string }>).at(-1)!;
  assert.equal(user.role, 'user');
  assert.match(user.content, /in my own shell[\s\S]*\$ git log --oneline \| head -1\n[0-9a-f]+ the very first commit\n\[exit 0\]\n\nwhat was the last commit\?$/);
  // handed once: the prompt after that carries none of it
  c.send('and then?');
  await waitFor(c, (x) => !x.running && srv.requests.length === 2, 'the second turn');
  assert.doesNotMatch(JSON.stringify((srv.requests[1].messages as unknown[]).at(-1)), /very first commit/);
});

test('!cat ~/.ssh/id_rsa shows nothing of the key, and !env none of the API key: the sandbox hides them, so the model cannot get them either', async () => {
  const { c, srv, home } = await builtin();
  c.shell.run('cat ~/.ssh/id_rsa; ls -la ~/.ssh; cat "$HOME/.ssh/id_rsa" | base64');
  let s = await waitFor(c, (x) => lastShell(x) !== undefined, 'the cat to finish');
  assert.doesNotMatch(lastShell(s)!.run!.output, /b3BlbnNzaC1rZXktdjEA|PRIVATE KEY|YjNCbGJuTnphQzF/);
  c.shell.run('env');
  s = await waitFor(c, (x) => x.history.filter((h) => h.kind === 'shell').length === 2, 'env to finish');
  const env = lastShell(s)!.run!.output;
  assert.match(env, new RegExp(`HOME=${home}`), 'env ran and printed its environment');
  assert.doesNotMatch(env, /sk-live-secret-value|OPENAI_API_KEY/);
  c.send('hi');
  await waitFor(c, (x) => !x.running && srv.requests.length === 1, 'the turn');
  const sent = JSON.stringify(srv.requests[0].messages);
  assert.match(sent, /\$ env\\n/, 'the env output was handed to the agent');
  assert.doesNotMatch(sent, /b3BlbnNzaC1rZXktdjEA|sk-live-secret-value/);
  assert.equal(readFileSync(path.join(home, '.ssh/id_rsa'), 'utf8'), KEY, 'the key is untouched');
});

test('a line the person types is theirs to run: a pipe, a glob, $VAR and an interpreter, with no approval and no policy', async () => {
  const { c, repo } = await builtin();
  writeFileSync(path.join(repo, 'b.txt'), 'b\n');
  // the output goes to a name the glob does not match: the shell may create it before the glob expands
  c.shell.run('X=ok; echo *.txt $X | tr a-z A-Z > shout.out; python3 -c "print(2+2)" 2>/dev/null || echo 4');
  const s = await waitFor(c, (x) => lastShell(x) !== undefined, 'the line to finish');
  assert.equal(s.permissions.length, 0);
  assert.equal(lastShell(s)!.run!.output, '4\n');
  assert.equal(readFileSync(path.join(repo, 'shout.out'), 'utf8'), 'A.TXT B.TXT OK\n', 'the workspace is writable');
});

test('Ctrl+C stops a running line and everything it started', async () => {
  const { c } = await builtin();
  c.shell.run('sleep 30 & sleep 30; echo never');
  await waitFor(c, (x) => x.shell !== undefined, 'the line to start');
  c.cancel();
  const s = await waitFor(c, (x) => lastShell(x) !== undefined, 'the line to end', 5000);
  const run = lastShell(s)!.run!;
  assert.ok(run.signal !== null || run.exitCode !== 0, `killed: ${JSON.stringify(run)}`);
  assert.doesNotMatch(run.output, /never/);
});

test('with another agent the client runs the line the same way and sends its output before the prompt, marked', async () => {
  const cwd = workdir();
  writeFileSync(path.join(cwd, 'marker.txt'), 'x');
  const c = new AcpClient({ argv: moduleCommand(fixture), label: 'fixture', cwd, settleMs: 5 });
  cleanups.push(() => c.close());
  await c.start();
  await waitFor(c, (x) => x.sessionId !== undefined, 'the session');
  c.shell.run('ls');
  await waitFor(c, (x) => lastShell(x) !== undefined, 'ls to finish');
  c.send('echo');
  const s = await waitFor(c, (x) => !x.running && x.history.some((h) => h.kind === 'agent' && h.text.includes('cxl/shellContext')), 'the echoed prompt');
  const said = s.history.find((h) => h.kind === 'agent' && h.text.includes('cxl/shellContext')) as { text: string };
  const blocks = JSON.parse(said.text) as Array<{ type: string; text: string; _meta?: Record<string, unknown> }>;
  assert.equal(blocks.length, 2);
  assert.match(blocks[0].text, /\$ ls\nmarker\.txt\n\[exit 0\]$/);
  assert.deepEqual(blocks[0]._meta, { 'cxl/shellContext': true });
  assert.equal(blocks[1].text, 'echo');
});
