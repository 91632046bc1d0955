// The ACP client against a scripted agent child process: ordering quirks of real agents,
// permissions, fs/* and terminal/* served from disk, cancel, and an agent that crashes.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AcpClient } from '../../src/client/acp_client.ts';
import type { ClientState } from '../../src/client/state.ts';
import { moduleCommand } from '../../src/core/platform/runtime.ts';

const fixture = fileURLToPath(new URL('../fixtures/scripted_agent.ts', import.meta.url));
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function workdir(): string {
  const d = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-client-')));
  dirs.push(d);
  return d;
}

async function waitFor(client: AcpClient, pred: (s: ClientState) => boolean, what: string, ms = 10_000): Promise<ClientState> {
  const deadline = Date.now() + ms;
  for (;;) {
    const s = client.store.getState();
    if (pred(s)) return s;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}; state: ${JSON.stringify({ live: s.live, history: s.history, agent: s.agent, perms: s.permissions.length }, null, 1).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const allText = (s: ClientState) =>
  [...s.history, ...s.live].map((i) => ('text' in i ? i.text : '')).join('\n');

/** A client on the scripted agent, once its session is open. */
async function started(cwd = workdir()): Promise<AcpClient> {
  const c = new AcpClient({ argv: moduleCommand(fixture), label: 'fixture', cwd, settleMs: 5 });
  await c.start();
  await waitFor(c, (x) => x.sessionId !== undefined, 'the session');
  return c;
}

/** Waits for the one pending permission and answers it with the fixture's allow-once option. */
async function allowOnce(c: AcpClient, what: string): Promise<void> {
  const s = await waitFor(c, (x) => x.permissions.length === 1, what);
  c.permissions.answer(s.permissions[0].key, { outcome: 'selected', optionId: 'once' });
}

test('updates sent before session/new answered are buffered and applied to the session', async () => {
  const c = await started();
  try {
    const s = await waitFor(c, (x) => x.sessionId !== undefined && allText(x).includes('ready.'), 'the early message');
    assert.equal(s.sessionId, 'sess-1');
    assert.deepEqual(s.commands.map((x) => x.name), ['tool']);
    assert.equal(s.agent.name, 'scripted-agent');
    assert.equal(s.agent.status, 'ready');
  } finally {
    await c.close();
  }
});

test('a permission that names only the call id is joined to the earlier tool_call; y writes the file', async () => {
  const cwd = workdir();
  const c = await started(cwd);
  try {
    c.send('edit');
    const s = await waitFor(c, (x) => x.permissions.length === 1, 'the permission request');
    const p = s.permissions[0];
    assert.equal(p.call.title, 'Write notes.txt');
    assert.equal(p.call.kind, 'edit');
    assert.equal(p.call.content[0]?.type, 'diff');
    assert.deepEqual(p.options.map((o) => o.kind), ['allow_once', 'allow_always', 'reject_once']);
    c.permissions.answer(p.key, { outcome: 'selected', optionId: 'once' });
    const done = await waitFor(c, (x) => !x.running && allText(x).includes('wrote notes.txt (once)'), 'the write');
    assert.equal(readFileSync(path.join(cwd, 'notes.txt'), 'utf8'), 'one\ntwo\nthree\n');
    const call = Object.values(done.toolCalls)[0];
    assert.equal(call.status, 'completed');
    assert.equal(call.title, 'Write notes.txt', 'updates keep the fields they leave out');
  } finally {
    await c.close();
  }
});

test('updates after the turn answered are still applied', async () => {
  const c = await started();
  try {
    c.send('late');
    const s = await waitFor(c, (x) => !x.running && allText(x).includes('after the answer') && Object.values(x.toolCalls).some((t) => t.status === 'completed'), 'late updates');
    assert.equal(Object.values(s.toolCalls)[0].title, 'Late call');
    // Once settled, the late text and the finished call are history.
    await waitFor(c, (x) => x.live.length === 0, 'the live region to empty');
  } finally {
    await c.close();
  }
});

test("the client tells the agent its terminals' sandbox, and keeps what the agent reports for the session", async () => {
  const c = await started();
  try {
    const own = c.terminals.sandboxState();
    assert.ok(['bubblewrap', 'unavailable'].includes(own.state), JSON.stringify(own));
    assert.deepEqual(c.sandboxState(), { state: 'bubblewrap', reason: `the client said ${own.state}` }, 'the agent named what the client told it');
  } finally {
    await c.close();
  }
});

test('terminal/* runs the command in the session root and caps output from the start', async () => {
  const cwd = workdir();
  writeFileSync(path.join(cwd, 'marker.txt'), 'x');
  const c = await started(cwd);
  try {
    c.send('run ls');
    await allowOnce(c, 'the permission');
    let s = await waitFor(c, (x) => !x.running && allText(x).includes('exit=0'), 'the run');
    const term = Object.values(s.terminals)[0];
    assert.match(term.output, /marker\.txt/);
    assert.equal(term.done, true);
    assert.equal(term.exitCode, 0);

    c.send('run yes é | head -c 9999');
    await allowOnce(c, 'the second permission');
    s = await waitFor(c, (x) => !x.running && /exit=0 bytes=\d+ truncated=true/.test(allText(x)), 'the capped run');
    const capped = Object.values(s.terminals).find((t) => t.truncated)!;
    assert.ok(Buffer.byteLength(capped.output) <= 4096, 'within the agent\'s outputByteLimit');
    assert.match(capped.output, /^[é\n]+$/, 'cut on a character boundary');
  } finally {
    await c.close();
  }
});

test('cancel answers every pending permission `cancelled`', async () => {
  const c = await started();
  try {
    c.send('two');
    await waitFor(c, (x) => x.permissions.length === 2, 'two queued permissions');
    c.cancel();
    const s = await waitFor(c, (x) => allText(x).includes('answers cancelled cancelled'), 'the agent to see both cancelled');
    assert.equal(s.permissions.length, 0);
    c.send('wait');
    await waitFor(c, (x) => x.permissions.length === 1, 'the waiting permission');
    c.cancel();
    const w = await waitFor(c, (x) => !x.running && allText(x).includes('perm=cancelled'), 'session/cancel to reach the agent');
    assert.equal(w.toolCalls['w1'].status, 'cancelled');
  } finally {
    await c.close();
  }
});

test('fs/read_text_file is confined to the root and never serves the quarantine; .env asks the user', async () => {
  const cwd = workdir();
  mkdirSync(path.join(cwd, '.ssh'));
  writeFileSync(path.join(cwd, '.ssh', 'id_rsa'), 'PRIVATE');
  writeFileSync(path.join(cwd, '.env'), 'API_KEY=1');
  writeFileSync(path.join(cwd, 'ok.txt'), 'fine');
  const c = await started(cwd);
  try {
    const ask = async (prompt: string, expect: RegExp) => {
      c.send(prompt);
      return await waitFor(c, (x) => expect.test(allText(x)), prompt);
    };
    await ask(`read ${path.join(cwd, 'ok.txt')}`, /content:fine/);
    await ask('read /etc/passwd', /error:-32603:.*outside the workspace/);
    await ask(`read ${cwd}/missing.txt`, /error:-32002:Resource not found: missing\.txt does not exist/);
    await ask(`read ${cwd}/.ssh/id_rsa`, /error:-32603:.*quarantine/);
    assert.doesNotMatch(allText(c.store.getState()), /PRIVATE/);
    c.send(`read ${cwd}/.env`);
    let s = await waitFor(c, (x) => x.permissions.length === 1, 'the .env approval');
    assert.match(s.permissions[0].call.title, /\.env/);
    c.permissions.answer(s.permissions[0].key, { outcome: 'selected', optionId: 'reject' });
    s = await waitFor(c, (x) => /error:-32603:.*declined/.test(allText(x)), 'the refusal');
    assert.doesNotMatch(allText(s), /API_KEY/);
  } finally {
    await c.close();
  }
});

test('an agent that crashes is reported with its exit code and last stderr lines; the client stays usable', async () => {
  const c = await started();
  try {
    c.send('crash');
    const s = await waitFor(c, (x) => x.agent.status === 'exited', 'the exit');
    assert.equal(s.agent.exitCode, 3);
    assert.ok(s.agent.stderrTail.includes('scripted-agent: fatal: out of cheese'));
    const notice = s.history.find((h) => h.kind === 'notice' && h.level === 'error');
    assert.ok(notice && notice.kind === 'notice' && /exited with code 3/.test(notice.text));
    assert.equal(s.running, false);
    c.send('hello');
    await waitFor(c, (x) => x.history.some((h) => h.kind === 'notice' && /not running/.test(h.text)), 'the not-running notice');
  } finally {
    await c.close();
  }
});

test('an agent that goes away with an approval waiting: the client answers it and the screen no longer offers it', async () => {
  const c = await started();
  c.send('edit');
  const asked = (await waitFor(c, (x) => x.permissions.length === 1, 'the permission request')).permissions[0];
  await c.close();
  const s = c.store.getState();
  assert.equal(s.agent.status, 'exited');
  assert.equal(s.permissions.length, 0, 'no approval is left for an agent that cannot hear the answer');
  assert.equal(s.toolCalls[asked.call.id]?.status, 'cancelled');
});

test('an agent that exits with a command still running: the client kills every terminal it served for it', async () => {
  const c = await started();
  try {
    // the command may run in a sandbox with its own pid namespace, where $$ is not the host's
    // pid: find it from outside by a unique argument
    const mark = `30.${process.pid}${Date.now() % 1000}`;
    c.send(`spawn-die sh -c "echo started; exec sleep ${mark}"`);
    await waitFor(c, (x) => Object.values(x.terminals).some((t) => /started/.test(t.output)), 'the running command');
    const alive = () => sleepers(mark).length > 0;
    let t0 = Date.now();
    while (!alive() && Date.now() - t0 < 2000) await new Promise((r) => setTimeout(r, 20));
    assert.ok(alive(), 'the command is running');
    await waitFor(c, (x) => x.agent.status === 'exited', 'the agent to exit');
    t0 = Date.now();
    while (alive() && Date.now() - t0 < 2000) await new Promise((r) => setTimeout(r, 20));
    assert.equal(alive(), false, 'the command died with its agent');
  } finally {
    await c.close();
  }
});

/** Host pids of processes whose command line is `sleep <mark>`. */
function sleepers(mark: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8') === `sleep\0${mark}\0`) out.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

test('an agent command that does not exist is reported, not thrown', async () => {
  const c = new AcpClient({ argv: ['/nonexistent/agent-binary'], label: 'missing', cwd: workdir(), settleMs: 5 });
  await c.start();
  const s = await waitFor(c, (x) => x.agent.status === 'exited', 'the failure');
  assert.match(s.agent.error ?? '', /ENOENT/);
  const n = s.history.at(-1);
  assert.ok(n?.kind === 'notice' && n.text.startsWith('the agent could not start: /nonexistent/agent-binary was not found (is it installed, and on PATH?).'), 'the program is named from the spawn error itself');
  await c.close();
  assert.equal(existsSync('/nonexistent'), false);
});
