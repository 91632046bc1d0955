// The client against an agent that behaves like the public ones (test/fixtures/peer_agent.ts), as
// a real child process: a turn left with a call pending, errors with data, a session that cannot
// open, models offered either way, login methods of every kind, an agent that never initializes.
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AcpClient, type ClientOptions } from '../../src/client/acp_client.ts';
import type { ClientState } from '../../src/client/state.ts';
import { moduleCommand } from '../../src/core/platform/runtime.ts';

const fixture = fileURLToPath(new URL('../fixtures/peer_agent.ts', import.meta.url));
const dirs: string[] = [];
const clients: AcpClient[] = [];
after(async () => {
  for (const c of clients) await c.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function workdir(): string {
  const d = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-peer-')));
  dirs.push(d);
  return d;
}

async function waitFor(c: AcpClient, pred: (s: ClientState) => boolean, what: string, ms = 10_000): Promise<ClientState> {
  const deadline = Date.now() + ms;
  for (;;) {
    const s = c.store.getState();
    if (pred(s)) return s;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}; state: ${JSON.stringify({ history: s.history, live: s.live, agent: s.agent, auth: s.auth, err: s.sessionError }).slice(0, 3000)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function peer(flags: string[], opts: Partial<ClientOptions> = {}): AcpClient {
  const home = workdir();
  const c = new AcpClient({ argv: [...moduleCommand(fixture), ...flags], label: 'peer', cwd: workdir(), settleMs: 5, ...opts, env: { ...process.env, HOME: home, PEER_API_KEY: '', GEMINI_API_KEY: '', ...opts.env } });
  clients.push(c);
  void c.start();
  return c;
}

// Every agent these tests talk to starts now, side by side: starting one is most of a test's time.
const plain = peer([]);
const neverInit = peer(['--slow-init', 'never'], { initTimeoutMs: 200 });
const lateInit = peer(['--slow-init', '400'], { initTimeoutMs: 100 });
const configModels = peer(['--models', 'config'], { model: 'PEER LARGE 2' });
const legacyModels = peer(['--models', 'legacy'], { model: 'PEER LARGE 2' });
const unknownModel = peer(['--models', 'config'], { model: 'gpt-9' });
const ambiguousModel = peer(['--models', 'legacy'], { model: 'large' });
const refusedModel = peer(['--models', 'config', '--reject-model'], { model: 'peer-large' });
const noModels = peer([], { model: 'whatever' });
const login = peer(['--auth']);
const terminalHome = workdir();
const terminalLogin = peer(['--auth'], { env: { HOME: terminalHome } });
const keyLogin = peer(['--auth'], { env: { PEER_API_KEY: 'k-123' } });
const promptLogin = peer(['--auth-on-prompt']);
const bareLogin = peer(['--auth-bare']);

const notices = (s: ClientState) => s.history.flatMap((h) => (h.kind === 'notice' ? [h] : []));
const lastNotice = (s: ClientState) => notices(s).at(-1);
const open = (c: AcpClient) => waitFor(c, (s) => s.sessionId !== undefined, 'the session');
const idle = (c: AcpClient, what: string) => waitFor(c, (s) => !s.running && s.live.length === 0, what);

test('the SDK example agent\'s turns (call ids reused, a rejected edit left pending): history stays in order, each call printed once', async () => {
  const c = plain;
  await open(c);
  for (const round of [1, 2]) {
    c.send('example');
    const s = await waitFor(c, (x) => x.permissions.length === 1, `the permission of round ${round}`);
    c.permissions.answer(s.permissions[0].key, { outcome: 'selected', optionId: 'reject' });
    await waitFor(c, (x) => !x.running, `round ${round} to end`);
  }
  const s = await idle(c, 'both turns settled');
  const shape = s.history.map((h) => (h.kind === 'tool' ? `${h.call.id}:${h.call.leftPending ? 'left pending' : h.call.status}` : h.kind === 'user' || h.kind === 'agent' ? `${h.kind}:${h.text.trim()}` : h.kind));
  const turn = ['agent:Reading files.', 'call_1:completed', 'agent:Now a change.', 'call_2:left pending', 'agent:Skipped it.'];
  assert.deepEqual(shape, ['user:example', ...turn, 'user:example', ...turn]);
});

test('a session that cannot open: the error shows its data; a prompt typed meanwhile and one typed after say they were not sent', async () => {
  // started here, not with the others: its session/new fails 3 s after initialize, and the
  // prompt must be typed before that (started early, the tests before it could outlast the wait)
  const c = peer(['--no-session', 'Connection error.', '--slow-new', '3000']);
  await waitFor(c, (s) => s.agent.status === 'ready', 'initialize');
  c.send('typed while starting');
  assert.deepEqual(c.store.getState().queued, ['typed while starting']);
  let s = await waitFor(c, (x) => x.sessionError !== undefined, 'the failure');
  assert.deepEqual(s.queued, [], 'nothing stays queued');
  const failure = notices(s).find((n) => /did not start a session/.test(n.text));
  assert.ok(failure, JSON.stringify(notices(s)));
  assert.match(failure.text, /Internal error \(-32603\)/);
  assert.deepEqual(failure.detail, ['Connection error.']);
  assert.match(lastNotice(s)!.text, /Not sent \(there is no session\): “typed while starting”/);
  c.send('hello');
  s = await waitFor(c, (x) => /Not sent: “hello”/.test(lastNotice(x)?.text ?? ''), 'the not-sent notice');
  assert.equal(s.running, false);
  assert.deepEqual(s.queued, []);
});

test('a failed prompt shows error.data under the error', async () => {
  const c = plain;
  await open(c);
  c.send('fail');
  const s = await waitFor(c, (x) => !x.running && /The turn failed/.test(lastNotice(x)?.text ?? ''), 'the failure');
  assert.match(lastNotice(s)!.text, /Internal error \(-32603\)/);
  assert.deepEqual(lastNotice(s)!.detail, ['Upstream 429: quota exceeded', 'retry after 30s']);
  assert.ok(!s.history.some((h) => h.kind === 'marker'), 'a failed turn is not "cancelled"');
});

test('the agent\'s stderr is kept while it runs, whole lines', async () => {
  const c = plain;
  await open(c);
  c.send('stderr 3');
  const s = await waitFor(c, (x) => x.agentLog.some((l) => l.includes('end-of-line-3')), 'three log lines');
  assert.equal(s.agent.status, 'ready');
  assert.ok(s.agentLog.some((l) => /^peer-agent: log line 1 x{150} end-of-line-1$/.test(l)), s.agentLog.join('\n'));
});

test('an agent that never answers initialize: after the timeout the user is told, naming the command', async () => {
  const c = neverInit;
  const s = await waitFor(c, (x) => x.stalled === 'initialize', 'the stall');
  const n = lastNotice(s)!;
  assert.match(n.text, /has not answered initialize after 0 s/);
  assert.ok(n.text.includes('peer_agent.ts --slow-init never'), n.text);
  assert.match(n.text, /Ctrl\+L/);
});

test('initialize answered after the timeout: the session opens after all', async () => {
  const c = lateInit;
  const s = await open(c);
  assert.ok(notices(s).some((n) => /has not answered initialize/.test(n.text)), 'the stall was told');
  assert.equal(s.stalled, undefined);
  assert.equal(s.agent.status, 'ready');
});

for (const kind of ['config', 'legacy'] as const) {
  test(`models (${kind}): --model matches an id or a name; the status line names the model in use`, async () => {
    const c = kind === 'config' ? configModels : legacyModels;
    const s = await waitFor(c, (x) => x.models?.current === 'peer-large-2', 'the switch');
    assert.equal(s.model, 'Peer Large 2');
    c.send('hi');
    await waitFor(c, (x) => x.history.some((h) => h.kind === 'agent' && h.text.includes('model peer-large-2')), 'the agent to use it');
  });
}

test('models: an unknown --model keeps the session, says which models there are, and the status shows the real one', async () => {
  const c = unknownModel;
  const s = await waitFor(c, (x) => /no model “gpt-9”/.test(lastNotice(x)?.text ?? ''), 'the notice');
  assert.ok(s.sessionId);
  assert.equal(s.model, 'Peer Small');
  assert.match(lastNotice(s)!.text, /peer-small \(Peer Small\), peer-large \(Peer Large\), peer-large-2 \(Peer Large 2\)/);
  const ambiguous = ambiguousModel;
  const a = await waitFor(ambiguous, (x) => /matches several/.test(lastNotice(x)?.text ?? ''), 'the ambiguity');
  assert.equal(a.models?.current, 'peer-small');
});

test('models: a switch the agent refuses keeps the session and the model; the reason is shown', async () => {
  const c = refusedModel;
  const s = await waitFor(c, (x) => /did not switch to peer-large/.test(lastNotice(x)?.text ?? ''), 'the refusal');
  assert.ok(s.sessionId);
  assert.equal(s.model, 'Peer Small');
  assert.deepEqual(lastNotice(s)!.detail, ["Model 'peer-large' not found for this account"]);
});

test('/model opens the picker over the models and switches; an agent without models says so', async () => {
  const c = legacyModels;
  await waitFor(c, (x) => x.models?.current === 'peer-large-2', 'the switch at start');
  void c.models.model('');
  let s = await waitFor(c, (x) => x.modelChoices !== undefined, 'the picker');
  assert.deepEqual(s.modelChoices!.models.map((m) => m.id), ['peer-small', 'peer-large', 'peer-large-2']);
  assert.equal(s.modelChoices!.current, 'peer-large-2');
  void c.models.model('peer-large');
  s = await waitFor(c, (x) => x.model === 'Peer Large', 'the switch');
  assert.equal(s.modelChoices, undefined, 'the picker closes');
  assert.match(lastNotice(s)!.text, /Model: Peer Large/);
  const bare = noModels;
  const b = await waitFor(bare, (x) => /does not say which models/.test(lastNotice(x)?.text ?? ''), 'the notice');
  assert.equal(b.model, undefined, 'the status line does not claim a model it never set');
});

test('login: every kind of method is shown with its description and variable; a pick authenticates and retries session/new', async () => {
  const c = login;
  let s = await waitFor(c, (x) => x.auth !== undefined, 'the login picker');
  assert.equal(s.sessionId, undefined);
  assert.match(s.sessionError ?? '', /needs a login/);
  assert.deepEqual(s.auth!.methods.map((m) => [m.id, m.kind, m.vars]), [
    ['agent-login', 'agent', []],
    ['api-key', 'env_var', ['PEER_API_KEY']],
    ['gemini-key', 'env_var', ['GEMINI_API_KEY']],
    ['tui-login', 'terminal', []],
  ]);
  assert.equal(s.auth!.methods[0].description, 'Opens your browser to log in to Peer.');
  assert.match(s.auth!.methods[3].command ?? '', /PEER_LOGIN=1 .*peer_agent\.ts --auth --login$/);
  // An API key that is not set: the agent refuses; the picker says which variable to set.
  await c.login.authenticate('api-key');
  s = c.store.getState();
  assert.match(s.auth?.note ?? '', /PEER_API_KEY is not set.*Set PEER_API_KEY in the environment/);
  await c.login.authenticate('agent-login');
  s = await open(c);
  assert.equal(s.auth, undefined);
  assert.equal(s.sessionError, undefined);
  // the agent's stderr is read apart from its answers: the line may come a moment after them
  await waitFor(c, (x) => x.agentLog.includes('peer-agent: authenticate agent-login'), 'the agent logging the login');
  c.send('hi');
  await waitFor(c, (x) => x.history.some((h) => h.kind === 'agent' && h.text.startsWith('echo: hi')), 'a prompt to work');
});

test('login: a terminal method is never sent to authenticate; once the user ran it, picking it opens the session', async () => {
  const home = terminalHome;
  const c = terminalLogin;
  await waitFor(c, (x) => x.auth !== undefined, 'the login picker');
  await c.login.authenticate('tui-login');
  let s = c.store.getState();
  assert.match(s.auth?.note ?? '', /run `.*--login` in a terminal first/);
  writeFileSync(path.join(home, '.peer-login'), '');
  await c.login.authenticate('tui-login');
  s = await open(c);
  assert.ok(!s.agentLog.some((l) => l.includes('authenticate tui-login')));
});

test('login: with the variable set, the env-var method works', async () => {
  const c = keyLogin;
  const s = await waitFor(c, (x) => x.auth !== undefined, 'the login picker');
  assert.deepEqual(s.auth!.methods[1].setVars, ['PEER_API_KEY']);
  await c.login.authenticate('api-key');
  await open(c);
});

test('login asked for by a prompt (the session opened): the picker, then the prompt can be sent again', async () => {
  const c = promptLogin;
  await open(c);
  c.send('hi');
  let s = await waitFor(c, (x) => x.auth !== undefined, 'the picker');
  assert.equal(s.auth!.then, 'continue');
  await c.login.authenticate('agent-login');
  s = c.store.getState();
  assert.equal(s.auth, undefined);
  assert.match(lastNotice(s)!.text, /Logged in to Peer Agent \(Log in with Peer\)\. Send your prompt again/);
  c.send('hi');
  await waitFor(c, (x) => x.history.some((h) => h.kind === 'agent' && h.text.startsWith('echo: hi')), 'the prompt');
});

test('cancel: cancelling… until the agent ends the turn, then a cancelled marker', async () => {
  const c = plain;
  await open(c);
  c.send('slow');
  await waitFor(c, (x) => x.live.some((i) => i.kind === 'agent' && i.text === 'working'), 'the turn');
  c.cancel();
  assert.equal(c.store.getState().cancelling, true);
  const s = await waitFor(c, (x) => !x.running, 'the end');
  assert.equal(s.cancelling, false);
  assert.ok(s.history.some((h) => h.kind === 'marker' && h.text === 'cancelled'));
});

test('the client advertises session notices and compaction, and shows a notice with its description', async () => {
  const c = plain;
  await open(c);
  c.send('caps');
  const s = await waitFor(c, (x) => notices(x).some((n) => n.text === 'Saving failed'), 'the notice');
  const all = [...s.history, ...s.live];
  const start = all.map((h) => h.kind === 'user' && h.text === 'caps').lastIndexOf(true);
  const turn = all.slice(start);
  const said = turn.flatMap((h) => (h.kind === 'agent' ? [h.text] : [])).join('');
  assert.deepEqual(JSON.parse(said), { notices: {}, compaction: {} });
  const n = notices(s).find((x) => x.text === 'Saving failed')!;
  assert.equal(n.level, 'warn');
  assert.deepEqual(n.detail, ['disk full', 'the session is not saved']);
});

test('an update after the turn was closed is shown against that call, not as a new one', async () => {
  const c = plain;
  await waitFor(c, (s) => s.sessionId !== undefined && !s.running, 'an idle session');
  c.send('late');
  const s = await waitFor(c, (x) => x.history.some((h) => h.kind === 'tool' && h.late === true), 'the late row');
  const rows = s.history.filter((h) => h.kind === 'tool' && h.call.title === 'Running the tests');
  assert.deepEqual(rows.map((h) => (h.kind === 'tool' ? `${h.late ? 'late' : 'call'}:${h.call.leftPending ? 'left pending' : h.call.status}` : '')), ['call:left pending', 'late:completed']);
  assert.equal(s.live.length, 0, 'no second live copy');
});

test('a login asked for with no method offered: no picker, the error says how to go on', async () => {
  const s = await waitFor(bareLogin, (x) => x.sessionError !== undefined, 'the failure');
  assert.equal(s.auth, undefined);
  assert.match(s.sessionError!, /^Peer Agent needs a login before it starts a session and offers no login method: Authentication required \(-32000\)\. Log in with the agent's own command or set its API key, then start cxl again\.$/);
  bareLogin.login.login();
  await waitFor(bareLogin, (x) => /offers no login methods/.test(lastNotice(x)?.text ?? ''), '/login saying so');
});
