// The ACP-backed terminal host against a fake client that records every call: one terminal per
// step, the protocol's parameters, kill on timeout and cancel, release always.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { isToolError } from '../../../src/core/errors.ts';
import { META_OUTPUT_LIMIT } from '../../../src/core/protocol_names.ts';
import { ClientTerminalHost, DEFAULT_CLIENT_OUTPUT_LIMIT, type AcpTerminalClient } from '../../../src/core/shell/client_terminal.ts';
import { createLocalShell } from '../../../src/core/shell/local_shell.ts';
import type { ShellResult } from '../../../src/core/shell/runner.ts';
import { stubBin, tempRoot } from './helpers.ts';

const { root: base, cleanup } = tempRoot('cxl-client-terminal-');
after(cleanup);
const ROOT = path.join(base, 'root');
mkdirSync(path.join(ROOT, 'sub'), { recursive: true });
const BIN = stubBin(path.join(base, 'bin'), ['git', 'go', 'sleep']);

type Call = [string, Record<string, unknown>];

/** A scripted client: each created terminal exits with the next code, or hangs until killed. */
function fakeClient(script: { exit: number | 'hang'; output: string }[]) {
  const calls: Call[] = [];
  let n = 0;
  const terms = new Map<string, { exit: number | 'hang'; output: string; killed: boolean; wake?: () => void }>();
  const client: AcpTerminalClient = {
    async create(p) {
      calls.push(['create', p]);
      const id = `t${++n}`;
      terms.set(id, { ...script[n - 1], killed: false });
      return { terminalId: id };
    },
    async output(p) {
      calls.push(['output', p]);
      const t = terms.get(p.terminalId)!;
      const done = t.exit !== 'hang' || t.killed;
      return { output: t.output, truncated: false, ...(done ? { exitStatus: t.killed ? { exitCode: null, signal: 'SIGKILL' } : { exitCode: t.exit as number } } : {}) };
    },
    async waitForExit(p) {
      calls.push(['waitForExit', p]);
      const t = terms.get(p.terminalId)!;
      if (t.exit === 'hang' && !t.killed) await new Promise<void>((r) => (t.wake = r));
      return t.killed ? { exitCode: null, signal: 'SIGKILL' } : { exitCode: t.exit as number };
    },
    async kill(p) {
      calls.push(['kill', p]);
      const t = terms.get(p.terminalId)!;
      t.killed = true;
      t.wake?.();
      return {};
    },
    async release(p) {
      calls.push(['release', p]);
      return {};
    },
  };
  return { client, calls };
}

function shellWith(client: AcpTerminalClient) {
  return createLocalShell({
    root: ROOT,
    policy: { _allowed_commands: 'git,go,sleep', _allowed_dir: '.' },
    host: new ClientTerminalHost(client, { sessionId: 'sess-1' }),
    pathEnv: BIN,
    env: { PATH: BIN, GITHUB_TOKEN: 'secret', HOME: '/home/x' },
  });
}

test('a two-step line is two client terminals, created, awaited, read and released in order', async () => {
  const { client, calls } = fakeClient([
    { exit: 0, output: 'clean\n' },
    { exit: 1, output: 'FAIL\n' },
  ]);
  const r = (await shellWith(client).call('local_shell', { command: 'cd sub && git status && go test ./...' })) as ShellResult;
  assert.equal(r.stdout, 'clean\nFAIL\n');
  assert.equal(r.exit_code, 1);
  assert.deepEqual(
    r.steps?.map((s) => s.exit_code),
    [0, 0, 1],
  );
  assert.deepEqual(
    calls.map(([m, p]) => `${m}:${p.terminalId ?? '-'}`),
    ['create:-', 'waitForExit:t1', 'output:t1', 'release:t1', 'create:-', 'waitForExit:t2', 'output:t2', 'release:t2'],
  );
  const [, create] = calls[0];
  assert.deepEqual(create, {
    sessionId: 'sess-1',
    command: path.join(BIN, 'git'),
    args: ['status'],
    env: [
      { name: 'GIT_TERMINAL_PROMPT', value: '0' },
      { name: 'GIT_PAGER', value: 'cat' },
      { name: 'PAGER', value: 'cat' },
    ],
    cwd: path.join(ROOT, 'sub'),
    outputByteLimit: DEFAULT_CLIENT_OUTPUT_LIMIT,
    // end it at the cap (output_cap_end.test.ts): the client honours it because it narrows
    _meta: { [META_OUTPUT_LIMIT]: true },
  });
});

test('a refused line creates no client terminal', async () => {
  const { client, calls } = fakeClient([]);
  await assert.rejects(shellWith(client).call('local_shell', { command: 'git status; rm -rf x' }), (e: unknown) => isToolError(e) && e.code === 'policy_refused');
  assert.equal(calls.length, 0);
});

test('timeout kills the client terminal, reads what it had, and releases it', async () => {
  const { client, calls } = fakeClient([{ exit: 'hang', output: 'partial' }]);
  const err = await shellWith(client)
    .call('local_shell', { command: 'sleep 100', timeout: '200ms' })
    .then(
      () => null,
      (e: unknown) => e,
    );
  assert.ok(isToolError(err) && err.code === 'timeout');
  assert.equal(err.details?.stdout, 'partial');
  assert.deepEqual(
    calls.map(([m]) => m),
    ['create', 'waitForExit', 'kill', 'output', 'release'],
  );
});

test('cancel kills and releases too', async () => {
  const { client, calls } = fakeClient([{ exit: 'hang', output: '' }]);
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 100);
  const err = await shellWith(client)
    .call('local_shell', { command: 'sleep 100' }, { signal: ac.signal })
    .then(
      () => null,
      (e: unknown) => e,
    );
  assert.ok(isToolError(err) && err.code === 'cancelled');
  assert.deepEqual(
    calls.map(([m]) => m),
    ['create', 'waitForExit', 'kill', 'output', 'release'],
  );
});

test('the client host asks for a 1 MiB limit and the caller can ask for another', async () => {
  const { client, calls } = fakeClient([{ exit: 0, output: '' }]);
  const host = new ClientTerminalHost(client, { sessionId: 's', envNames: ['HOME'] });
  const t = await host.create({ command: '/bin/true', args: [], cwd: '/', env: { HOME: '/h', SECRET_THING: 'x' }, outputByteLimit: 4096 });
  await t.waitForExit();
  await t.release();
  await t.release();
  assert.equal(calls[0][1].outputByteLimit, 4096);
  assert.deepEqual(calls[0][1].env, [{ name: 'HOME', value: '/h' }]);
  assert.equal(calls.filter(([m]) => m === 'release').length, 1, 'released once');
});

test("a read-only git run's variables reach the client's terminal over the client's own environment; others stay home", async () => {
  const { client, calls } = fakeClient([{ exit: 0, output: '' }]);
  const host = new ClientTerminalHost(client, { sessionId: 's' });
  const env = { GIT_DIR: '/w/.git', GIT_CONFIG_PARAMETERS: '', GIT_PAGER: 'cat', SECRET_THING: 'x', GIT_SSH_COMMAND: 'x' };
  const t = await host.create({ command: '/usr/bin/git', args: ['status'], cwd: '/w', env, forceEnv: ['GIT_DIR', 'GIT_CONFIG_PARAMETERS', 'GIT_PAGER'], outputByteLimit: 0 });
  await t.release();
  assert.deepEqual(calls[0][1].env, [
    { name: 'GIT_DIR', value: '/w/.git' },
    { name: 'GIT_CONFIG_PARAMETERS', value: '' },
    { name: 'GIT_PAGER', value: 'cat' },
  ]);
});
