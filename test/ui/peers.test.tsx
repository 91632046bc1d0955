import './env.ts';
// The screen against an agent that behaves like the public ones (test/fixtures/peer_agent.ts), a
// real child process behind the real client, driven by keys: the login picker, the agent log
// pane, cancel, a turn left pending, a prompt with no session, the model in the status line.
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AcpClient, type ClientOptions } from '../../src/client/acp_client.ts';
import { moduleCommand } from '../../src/core/platform/runtime.ts';
import { App } from '../../src/ui/App.tsx';
import { matchSnapshot } from '../helpers/snapshot.ts';
import { frameMatching, tick, KEY, NO_ARMING, renderAt, type Rendered, until } from './harness.ts';
import * as states from './states.ts';

const fixture = fileURLToPath(new URL('../fixtures/peer_agent.ts', import.meta.url));
const dirs: string[] = [];
const clients: AcpClient[] = [];
after(async () => {
  for (const c of clients) await c.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function workdir(): string {
  const d = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-ui-peer-')));
  dirs.push(d);
  return d;
}

function peer(flags: string[], opts: Partial<ClientOptions> = {}): AcpClient {
  const c = new AcpClient({ argv: [...moduleCommand(fixture), ...flags], label: 'peer', cwd: workdir(), settleMs: 5, ...opts, env: { ...process.env, HOME: workdir(), PEER_API_KEY: '', GEMINI_API_KEY: '' } });
  clients.push(c);
  void c.start();
  return c;
}

// Started side by side: starting an agent is most of each test's time.
const login = peer(['--auth']);
const plain = peer([]);
const example = peer([]);
const broken = peer(['--no-session', 'Connection error.']);
const models = peer(['--models', 'legacy'], { model: 'peer large' });

function mount(c: AcpClient, columns = 100, rows = 30): Rendered {
  return renderAt(<App store={c.store} controller={c} animate={false} arming={NO_ARMING} size={{ columns, rows }} />, columns, rows);
}

async function type(r: Rendered, text: string): Promise<void> {
  await r.press(...[...text], KEY.enter);
}

test('login picker: each method with its description, variable and command; a digit logs in and the session opens', async () => {
  await until(login, (s) => s.auth !== undefined, 'the picker');
  const r = mount(login);
  try {
    const f = await frameMatching(r, /log in to Peer Agent/, 'the picker');
    assert.match(f, /1\. Log in with Peer\n\s+Opens your browser to log in to Peer\./);
    assert.match(f, /2\. Use a Peer API key\n\s+Reads the key from the environment\.\n\s+reads PEER_API_KEY \(not set\)/);
    assert.match(f, /3\. Use Gemini API key\n[^]*reads GEMINI_API_KEY \(not set\)/);
    assert.match(f, /4\. Log in in a terminal[^]*run in a terminal: PEER_LOGIN=1 /);
    assert.match(f, /1-9 log in with · Esc not now/);
    assert.match(f, /Peer Agent \(no session\)/);
    await r.press('2');
    await frameMatching(r, /Use a Peer API key did not work: .*PEER_API_KEY is not set/, 'the refusal in the picker');
    await r.press('1');
    const open = await frameMatching(r, /session peer-1/, 'the session');
    assert.doesNotMatch(open, /log in to Peer Agent/);
    assert.match(open, /Logged in to Peer Agent \(Log in with Peer\); the session is open\./);
  } finally {
    r.unmount();
  }
});

test('agent log: Ctrl+L shows the agent\'s stderr while it runs, long lines wrapped; Ctrl+L closes it', async () => {
  await until(plain, (s) => s.sessionId !== undefined, 'the session');
  const r = mount(plain, 80);
  try {
    await type(r, 'stderr 2');
    await until(plain, (s) => s.agentLog.some((l) => l.includes('end-of-line-2')), 'the lines');
    await frameMatching(r, /Ctrl\+L agent log/, 'the footer to offer the log');
    await r.press(KEY.ctrlL);
    // a 180-character line, wrapped at 80 columns: its end is on screen, not cut
    const f = await frameMatching(r, /agent log: stderr of Peer Agent[^]*│ peer-agent: log line 2\n(┆ x+\n)+┆ end-of-line-2\n/, 'the pane');
    for (const line of f.split('\n')) assert.ok([...line].length <= 80, line);
    await r.press(KEY.ctrlL);
    assert.doesNotMatch(r.lastFrame(), /agent log: stderr/);
  } finally {
    r.unmount();
  }
});

test('Ctrl+C: cancelling… in the status line until the turn ends, then a cancelled marker', async () => {
  await until(plain, (s) => s.sessionId !== undefined && !s.running, 'an idle session');
  const r = mount(plain);
  try {
    await type(r, 'slow');
    await frameMatching(r, /working/, 'the turn');
    await r.press(KEY.ctrlC);
    await frameMatching(r, /Peer Agent \(cancelling…\)/, 'cancelling…');
    const f = await frameMatching(r, /⊘ cancelled/, 'the marker');
    assert.doesNotMatch(f, /cancelling…/);
    assert.match(f, /Ctrl\+C again quits/, 'a second Ctrl+C still quits');
  } finally {
    r.unmount();
  }
});

test('a turn that ends with a call pending: it is shown closed, once per turn, and the next prompt prints after it', async () => {
  await until(example, (s) => s.sessionId !== undefined, 'the session');
  const r = mount(example, 120, 40);
  try {
    for (const round of [1, 2]) {
      await type(r, 'example');
      await frameMatching(r, /Skip this change/, `the approval of round ${round}`);
      await r.press('n');
      await until(example, (s) => !s.running && s.live.length === 0, `round ${round} to settle`);
    }
    const f = r.lastFrame();
    const pending = f.match(/⊘ edit Modifying critical configuration file.*\(left pending by the agent\)/g) ?? [];
    assert.equal(pending.length, 2, f);
    assert.equal((f.match(/✓ read Reading project files/g) ?? []).length, 2, f);
    const order = [...f.matchAll(/› example|Skipped it\./g)].map((m) => m[0]);
    assert.deepEqual(order, ['› example', 'Skipped it.', '› example', 'Skipped it.']);
  } finally {
    r.unmount();
  }
});

test('an update after its turn was closed prints as a row against the call', async () => {
  await until(example, (s) => s.sessionId !== undefined && !s.running, 'an idle session');
  const r = mount(example, 120, 40);
  try {
    await type(r, 'late');
    const f = await frameMatching(r, /↳ ✓ execute Running the tests.*\(update after it was shown\)/, 'the late row');
    assert.match(f, /⊘ execute Running the tests {2}\(left pending by the agent\)\n↳ ✓ execute Running the tests/);
  } finally {
    r.unmount();
  }
});

test('no session: the status line says so; a prompt says it was not sent, with the agent\'s reason', async () => {
  await until(broken, (s) => s.sessionError !== undefined, 'the failure');
  const r = mount(broken);
  try {
    let f = await frameMatching(r, /\(no session\)/, 'the status');
    assert.match(f, /The agent did not start a session: Internal error \(-32603\)\.\n\s+│ Connection error\./);
    await type(r, 'hi');
    f = await frameMatching(r, /Not sent: “hi”/, 'the notice');
    assert.doesNotMatch(f, /queued: hi/);
  } finally {
    r.unmount();
  }
});

test('the status line names the model the agent uses after --model matched its name', async () => {
  await until(models, (s) => s.models?.current === 'peer-large', 'the switch');
  const r = mount(models);
  try {
    await frameMatching(r, /model Peer Large ·/, 'the model');
  } finally {
    r.unmount();
  }
});

// Fixed states for review: the picker and the log pane as laid out at two widths.
function loginState() {
  const s = states.baseStore();
  s.login.set({
    reason: 'Authentication required (-32000)',
    then: 'new_session',
    methods: [
      { id: 'claude-login', name: 'Log in with Claude Code', description: 'Run `claude /login` in the terminal', kind: 'agent', vars: [], setVars: [] },
      { id: 'gemini-api-key', name: 'Use Gemini API key', description: 'Requires setting the `GEMINI_API_KEY` environment variable', kind: 'env_var', vars: ['GEMINI_API_KEY'], setVars: [] },
      { id: 'tui', name: 'Log in in a terminal', kind: 'terminal', vars: [], setVars: [], command: 'npx @vendor/agent --login' },
    ],
  });
  return s;
}

function logState() {
  const s = states.baseStore();
  // codex-acp logs in colour: the codes are removed before the line is wrapped
  s.setAgentLog(['agent: starting', `agent: warning: ${'a long line that goes on '.repeat(6)}until here`, '\u001b[2m2026-12-02T20:57:46Z\u001b[0m \u001b[31mERROR\u001b[0m agent: ready']);
  return s;
}

for (const w of [60, 100]) {
  test(`screen: login picker at ${w} columns`, async () => {
    const r = renderAt(<App store={loginState()} controller={{ send() {}, cancel() {}, quit() {} }} animate={false} size={{ columns: w, rows: 30 }} />, w, 30);
    await tick();
    matchSnapshot(import.meta.url, `login picker @${w}`, r.lastFrame());
    r.unmount();
  });
  test(`screen: agent log pane at ${w} columns`, async () => {
    const r = renderAt(<App store={logState()} controller={{ send() {}, cancel() {}, quit() {} }} animate={false} size={{ columns: w, rows: 30 }} />, w, 30);
    await tick();
    await r.press(KEY.ctrlL);
    matchSnapshot(import.meta.url, `agent log pane @${w}`, r.lastFrame());
    r.unmount();
  });
}
