// local_shell end to end with real child processes: && || ; semantics, cd, the result shape,
// refusals before anything runs, timeouts and cancels that leave nothing running, a 50 MB
// producer, the scrubbed environment, and the no-policy shell path.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { after, describe, test } from 'node:test';
import { isToolError, type ToolError } from '../../../src/core/errors.ts';
import { LocalTerminalHost } from '../../../src/core/shell/local_terminal.ts';
import { createLocalShell, parseTimeout, type LocalShellOptions } from '../../../src/core/shell/local_shell.ts';
import type { ShellResult } from '../../../src/core/shell/runner.ts';
import type { Terminal, TerminalHost, TerminalRequest } from '../../../src/core/shell/terminal.ts';
import { alive, eventually, tempRoot } from './helpers.ts';

const { root: base, cleanup } = tempRoot('cxl-local-shell-');
after(cleanup);
const ROOT = path.join(base, 'root');
mkdirSync(path.join(ROOT, 'sub'), { recursive: true });
mkdirSync(path.join(base, 'outside'));
// `sh -c '…'` is code from the line, which the argument rules refuse: the snippets are scripts
mkdirSync(path.join(ROOT, 'scripts'));
const SCRIPTS: Record<string, string> = {
  'exit3.sh': 'exit 3',
  'outerr.sh': 'echo out; echo err >&2',
  'swap.sh': 'rmdir swap && ln -s ../outside swap',
  'pids.sh': 'sleep 30 & echo $$ $!; wait',
  'leftover.sh': 'sleep 30 & echo $!',
};
for (const [name, body] of Object.entries(SCRIPTS)) writeFileSync(path.join(ROOT, 'scripts', name), `${body}\n`);

const ALLOWED = 'echo,pwd,true,false,sh,sleep,cat,printf';
const policy = (extra: Record<string, string> = {}) => ({ _allowed_commands: ALLOWED, _denied_commands: 'rm', _allowed_dir: '.', ...extra });

/** A host that counts terminals created, delegating to the real local one. */
class CountingHost implements TerminalHost {
  readonly kind = 'local' as const;
  readonly requests: TerminalRequest[] = [];
  private readonly inner = new LocalTerminalHost();
  create(req: TerminalRequest): Promise<Terminal> {
    this.requests.push(req);
    return this.inner.create(req);
  }
}

function shell(opts: Partial<LocalShellOptions> = {}) {
  const host = new CountingHost();
  const sh = createLocalShell({ root: ROOT, policy: policy(), host, ...opts });
  return { sh, host, run: (args: Record<string, unknown>, signal?: AbortSignal) => sh.call('local_shell', args, { signal }) as Promise<ShellResult> };
}

async function rejects(p: Promise<unknown>, code: string): Promise<ToolError> {
  try {
    await p;
  } catch (err) {
    assert.ok(isToolError(err), String(err));
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail(`expected a ${code} ToolError`);
}

describe('sequence semantics, run without a shell', () => {
  test('false && echo x does not run echo', async () => {
    const { run, host } = shell();
    const r = await run({ command: 'false && echo x' });
    assert.equal(r.stdout, '');
    assert.equal(r.exit_code, 1);
    assert.equal(r.success, false);
    assert.equal(host.requests.length, 1, 'one terminal: echo never started');
    assert.deepEqual(
      r.steps?.map((s) => [s.command, s.exit_code, s.skipped ?? false]),
      [
        ['false', 1, false],
        ['echo x', null, true],
      ],
    );
  });
  test('false || echo x runs echo', async () => {
    const { run } = shell();
    const r = await run({ command: 'false || echo x' });
    assert.equal(r.stdout, 'x\n');
    assert.equal(r.exit_code, 0);
    assert.equal(r.success, true);
  });
  test('cd sub; pwd prints sub', async () => {
    const { run } = shell();
    const r = await run({ command: 'cd sub; pwd' });
    assert.equal(r.stdout, `${path.join(ROOT, 'sub')}\n`);
  });
  test('a skipped step keeps the status, as in sh: false && echo a || echo b', async () => {
    const { run } = shell();
    assert.equal((await run({ command: 'false && echo a || echo b' })).stdout, 'b\n');
    assert.equal((await run({ command: 'true || echo a && echo b' })).stdout, 'b\n');
    assert.equal((await run({ command: 'false; echo c' })).stdout, 'c\n');
  });
  test('one terminal per program step, in order, with per-step exit codes', async () => {
    const { run, host } = shell();
    const r = await run({ command: "echo one && sh scripts/exit3.sh ; cd sub && printf '%s' two" });
    assert.equal(r.stdout, 'one\ntwo');
    assert.deepEqual(
      r.steps?.map((s) => s.exit_code),
      [0, 3, 0, 0],
    );
    assert.deepEqual(
      host.requests.map((q) => [path.basename(q.command), q.cwd]),
      [
        ['echo', ROOT],
        ['sh', ROOT],
        ['printf', path.join(ROOT, 'sub')],
      ],
    );
    assert.ok(host.requests.every((q) => path.isAbsolute(q.command)), 'the resolved path runs');
  });
  test('the result has the documented shape; one step has no steps list', async () => {
    const { run } = shell();
    const r = await run({ command: 'echo hi' });
    assert.deepEqual(Object.keys(r).sort(), ['command', 'duration_seconds', 'exit_code', 'sandbox', 'stderr', 'stdout', 'success']);
    assert.equal(r.sandbox?.state, 'unavailable', 'a host that cannot sandbox says so in the result');
    assert.equal(r.command, 'echo hi');
    assert.equal(typeof r.duration_seconds, 'number');
  });
  test('quoted arguments reach the program exactly', async () => {
    const { run } = shell();
    const r = await run({ command: `printf '[%s]' 'a b' "c;d" '$(id)' "x\ny" ''` });
    assert.equal(r.stdout, '[a b][c;d][$(id)][x\ny][]');
  });
  test('stderr is kept apart from stdout', async () => {
    const { run } = shell();
    const r = await run({ command: 'sh scripts/outerr.sh' });
    assert.equal(r.stdout, 'out\n');
    assert.equal(r.stderr, 'err\n');
  });
});

describe('refusals run nothing', () => {
  for (const command of ['echo x && rm -rf y', 'echo x | cat', 'echo $HOME', 'cd ..', 'echo `id`', 'ls x', 'echo a > f', "sh -c 'echo x'", 'cat ../outside']) {
    test(command, async () => {
      const { run, host } = shell();
      const err = await rejects(run({ command }), 'policy_refused');
      assert.equal(host.requests.length, 0);
      assert.match(err.message, /^Refused by the command policy: /);
      assert.ok(typeof err.details?.rule === 'string' && typeof err.details?.position === 'number');
    });
  }
  test('shell: true is refused while a policy is active', async () => {
    const { run, host } = shell();
    await rejects(run({ command: 'echo x', shell: true }), 'policy_refused');
    await rejects(run({ command: 'echo x', shell: 'yes' }), 'policy_refused');
    assert.equal(host.requests.length, 0);
  });
  test('a cwd outside the allowed dir is refused', async () => {
    const { run } = shell();
    await rejects(run({ command: 'pwd', cwd: '../outside' }), 'policy_refused');
    const r = await run({ command: 'pwd', cwd: 'sub' });
    assert.equal(r.stdout, `${path.join(ROOT, 'sub')}\n`);
  });
  test('unknown and missing arguments are bad_args', async () => {
    const { run } = shell();
    const err = await rejects(run({ command: 'echo', verbose: true }), 'bad_args');
    assert.match(err.message, /command, args, cwd, timeout, shell/);
    await rejects(run({}), 'bad_args');
    await rejects(run({ command: 'echo', args: 'x' }), 'bad_args');
    await rejects(run({ command: 'echo', timeout: 'soon' }), 'bad_args');
  });
});

describe('argv form', () => {
  test('command + args is never read as a compound line', async () => {
    const { run, host } = shell();
    const r = await run({ command: 'echo', args: ['a && rm -rf x', '; $(id) | *'] });
    assert.equal(r.stdout, 'a && rm -rf x ; $(id) | *\n');
    assert.equal(host.requests.length, 1);
    assert.equal(r.command, "echo 'a && rm -rf x' '; $(id) | *'");
  });
  test('the program of the argv form is checked', async () => {
    const { run } = shell();
    await rejects(run({ command: 'rm', args: ['-rf', 'x'] }), 'policy_refused');
    await rejects(run({ command: 'echo x && rm', args: [] }), 'policy_refused');
  });
});

describe('cd is re-checked when it runs', () => {
  test('a directory swapped for a symlink out by an earlier step stops the line', async () => {
    mkdirSync(path.join(ROOT, 'swap'));
    const { run, host } = shell();
    const r = await run({ command: 'sh scripts/swap.sh ; cd swap ; pwd' });
    assert.equal(r.success, false);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /outside the allowed dir/);
    assert.equal(host.requests.length, 1, 'pwd never ran');
  });
});

describe('timeouts and cancels kill the whole process group', () => {
  // The child prints its own pid and a grandchild's, then waits: both must be gone afterwards.
  const line = 'sh scripts/pids.sh';
  const pids = (text: unknown) => String(text).trim().split(/\s+/).map(Number);

  test('on timeout', async () => {
    const { run } = shell();
    const t0 = Date.now();
    const err = await rejects(run({ command: line, timeout: '700ms' }), 'timeout');
    assert.ok(Date.now() - t0 < 5000);
    const [child, grandchild] = pids(err.details?.stdout);
    assert.ok(child > 0 && grandchild > 0, String(err.details?.stdout));
    assert.ok(await eventually(() => !alive(child) && !alive(grandchild)), 'no process is left');
    assert.match(err.message, /nothing it started is left running/);
  });
  test('on cancel', async () => {
    const { run } = shell();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 700);
    const err = await rejects(run({ command: line }, ac.signal), 'cancelled');
    const [child, grandchild] = pids(err.details?.stdout);
    assert.ok(child > 0 && grandchild > 0);
    assert.ok(await eventually(() => !alive(child) && !alive(grandchild)), 'no process is left');
  });
  test('without a policy, through /bin/sh -c, on timeout', async () => {
    const { run } = shell({ policy: undefined });
    const err = await rejects(run({ command: 'sleep 30 & echo $!; sleep 30', timeout: 0.7 }), 'timeout');
    const [grandchild] = pids(err.details?.stdout);
    assert.ok(await eventually(() => !alive(grandchild)));
  });
  test('a later step does not start after a timeout', async () => {
    const { run, host } = shell();
    await rejects(run({ command: 'sleep 5 ; echo late', timeout: '300ms' }), 'timeout');
    assert.equal(host.requests.length, 1);
  });
  test('a program that leaves a background child behind: the leftover is killed when it exits', async () => {
    const { run } = shell();
    const r = await run({ command: 'sh scripts/leftover.sh' });
    const [grandchild] = pids(r.stdout);
    assert.equal(r.exit_code, 0);
    assert.ok(await eventually(() => !alive(grandchild)));
  });
});

test('a command printing 50 MB is ended once it passes the cap, without holding its output in memory', async () => {
  const limit = 256 * 1024;
  const { run } = shell({ outputLimit: limit, policy: undefined });
  const producer = (bytes: number) => `yes 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM | head -c ${bytes}`;
  await run({ command: producer(5_000_000) }); // warm-up: first-use allocations are not what is measured
  const before = process.memoryUsage().rss;
  let peak = before;
  const probe = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const r = await run({ command: producer(50_000_000) });
  clearInterval(probe);
  assert.equal(r.exit_code, null);
  assert.equal(r.signal, 'SIGKILL');
  assert.equal(r.truncated, true);
  assert.match(r.stderr, new RegExp(`was ended once its output passed ${limit} bytes`));
  const kept = Buffer.byteLength(r.stdout);
  assert.ok(kept <= limit + 200, `kept ${kept} bytes`);
  const cut = Number(/\[\.\.\. (\d+) bytes of output cut/.exec(r.stdout)?.[1]);
  // what was read past the cap before the end took hold (a pipe's worth or a few), not the 50 MB
  assert.ok(cut > 0 && cut < 10_000_000, `cut ${cut}`);
  assert.ok(r.stdout.startsWith('0123456789abc'));
  const grew = (peak - before) / 1e6;
  assert.ok(grew < 75, `rss grew ${grew.toFixed(1)} MB`);
});

test('the environment is an allowlist, widened by envAllow, or whole with keepSecrets', async () => {
  const env = {
    PATH: process.env.PATH,
    PLAIN_VALUE: 'kept',
    GITHUB_TOKEN: 'x',
    OPENAI_API_KEY: 'x',
    ANTHROPIC_API_KEY: 'x',
    DB_PASSWORD: 'x',
    AWS_SECRET_ACCESS_KEY: 'x',
    MY_SECRET: 'x',
    SSH_KEY: 'x',
  };
  const { run } = shell({ env, policy: undefined });
  const r = await run({ command: 'env' });
  const names = r.stdout.split('\n').map((l) => l.split('=')[0]);
  assert.ok(names.includes('PATH'));
  assert.ok(!names.includes('PLAIN_VALUE'), 'not on the allowlist');
  const widened = shell({ env, policy: undefined, envAllow: ['PLAIN_*'] });
  assert.match((await widened.run({ command: 'env' })).stdout, /^PLAIN_VALUE=kept$/m);
  for (const secret of ['GITHUB_TOKEN', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'DB_PASSWORD', 'AWS_SECRET_ACCESS_KEY', 'MY_SECRET', 'SSH_KEY']) {
    assert.ok(!names.includes(secret), `${secret} scrubbed`);
  }
  assert.ok(names.includes('GIT_TERMINAL_PROMPT'));
  const open = shell({ env, policy: undefined, keepSecrets: true });
  assert.match((await open.run({ command: 'env' })).stdout, /GITHUB_TOKEN=x/);
});

describe('without a policy', () => {
  test('the line goes to /bin/sh -c', async () => {
    const { run, host } = shell({ policy: undefined });
    const r = await run({ command: 'echo a | tr a b; exit 4' });
    assert.equal(r.stdout, 'b\n');
    assert.equal(r.exit_code, 4);
    assert.deepEqual([host.requests[0].command, host.requests[0].args[0]], ['/bin/sh', '-c']);
  });
  test('shell: false splits the line with the same grammar and runs steps without a shell', async () => {
    const { run, host } = shell({ policy: undefined });
    const r = await run({ command: 'echo a && echo b', shell: false });
    assert.equal(r.stdout, 'a\nb\n');
    assert.equal(host.requests.length, 2);
    await rejects(run({ command: 'echo a | cat', shell: false }), 'policy_refused');
  });
  test('the argv form runs the program directly', async () => {
    const { run } = shell({ policy: undefined });
    assert.equal((await run({ command: 'echo', args: ['$HOME'] })).stdout, '$HOME\n');
  });
  test('a missing program is exit 127 with a message, not a crash', async () => {
    const { run } = shell({ policy: undefined });
    const r = await run({ command: 'definitely-not-a-program-xyz', args: [] });
    assert.equal(r.exit_code, 127);
    assert.match(r.stderr, /not found/);
  });
});

test('timeouts parse as durations or seconds', () => {
  assert.equal(parseTimeout(undefined), 600_000);
  assert.equal(parseTimeout('30s'), 30_000);
  assert.equal(parseTimeout('5m'), 300_000);
  assert.equal(parseTimeout('1h30m'), 5_400_000);
  assert.equal(parseTimeout('250ms'), 250);
  assert.equal(parseTimeout(2), 2000);
  assert.equal(parseTimeout('2'), 2000);
  assert.throws(() => parseTimeout('-1'));
  assert.throws(() => parseTimeout('0'));
  assert.throws(() => parseTimeout('1d'));
});

test('the toolset lists one execute tool with a closed schema', () => {
  const { sh } = shell();
  const [spec] = sh.list();
  assert.equal(sh.name, 'local_shell');
  assert.equal(spec.name, 'local_shell');
  assert.equal(spec.kind, 'execute');
  assert.deepEqual(spec.inputSchema.required, ['command']);
  assert.equal(spec.inputSchema.additionalProperties, false);
  assert.deepEqual(Object.keys(spec.inputSchema.properties).sort(), ['args', 'command', 'cwd', 'shell', 'timeout']);
});

test('a file planted in the workspace is never run by name', async () => {
  writeFileSync(path.join(ROOT, 'echo'), '#!/bin/sh\necho planted\n', { mode: 0o755 });
  const { run, host } = shell({ pathEnv: `.:${process.env.PATH}` });
  const r = await run({ command: 'echo real' });
  assert.equal(r.stdout, 'real\n');
  assert.notEqual(host.requests[0].command, path.join(ROOT, 'echo'));
});

describe('where a line starts', () => {
  test('with a policy but no _allowed_dir, lines start at the session root, not the process cwd', async () => {
    const { run } = shell({ policy: { _allowed_commands: ALLOWED } });
    assert.notEqual(process.cwd(), ROOT);
    const r = await run({ command: 'pwd' });
    assert.equal(r.stdout.trim(), ROOT);
    const sub = await run({ command: 'cd sub && pwd' });
    assert.equal(sub.stdout.trim(), path.join(ROOT, 'sub'));
  });
});
