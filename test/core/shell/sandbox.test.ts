// The leaks a command policy cannot close, closed by the OS sandbox: real commands through the
// real gate (default envelope) and real bubblewrap. Each test is an attack as a program would
// make it: walking into a directory itself, reading another process's /proc, a flag that writes,
// a write outside the workspace, a hook planted for later, and processes that try to outlive
// their command. Plus the sandbox that cannot start: reported, never assumed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, describe, test } from 'node:test';
import { buildEnvelope, type EnvelopeSpec } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { isToolError, type ToolError } from '../../../src/core/errors.ts';
import { Gate, type ApprovalAnswer, type ApprovalRequest, type Approver } from '../../../src/core/gate/gate.ts';
import { LocalShell } from '../../../src/core/shell/local_shell.ts';
import { LocalTerminalHost } from '../../../src/core/shell/local_terminal.ts';
import type { SandboxCall } from '../../../src/core/shell/sandbox/settings.ts';
import type { ShellResult } from '../../../src/core/shell/runner.ts';
import { DEFAULT_SHELL_POLICY } from '../../../src/core/shell/shell_policy.ts';
import { findOnPath, hasBwrap } from '../../helpers/system_tools.ts';
import { eventually, processesWith, uniqueSleep } from './helpers.ts';

const KEY = '-----BEGIN OPENSSH PRIVATE KEY----- sandbox-test-key';
const ENV_SECRET = 'DB_PASSWORD=sandbox-test-dotenv';
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(base = os.tmpdir(), prefix = 'cxl-sandbox-'): string {
  const d = realpathSync(mkdtempSync(path.join(base, prefix)));
  dirs.push(d);
  return d;
}

/** A workspace holding a key, a .env, a README, and a git repository with hooks and config. */
function workspace(): string {
  const ws = tempDir();
  mkdirSync(path.join(ws, '.ssh'));
  writeFileSync(path.join(ws, '.ssh', 'id_rsa'), `${KEY}\n`);
  mkdirSync(path.join(ws, 'deploy'));
  writeFileSync(path.join(ws, 'deploy', 'id_ed25519'), `${KEY}\n`);
  writeFileSync(path.join(ws, '.env'), `${ENV_SECRET}\n`);
  writeFileSync(path.join(ws, 'README'), 'hello PRIVATE readme\n');
  mkdirSync(path.join(ws, '.git', 'hooks'), { recursive: true });
  writeFileSync(path.join(ws, '.git', 'config'), '[core]\n\tbare = false\n');
  return ws;
}

function scripted(...answers: ApprovalAnswer[]): Approver & { requests: ApprovalRequest[] } {
  const requests: ApprovalRequest[] = [];
  const fn = async (req: ApprovalRequest): Promise<ApprovalAnswer> => {
    requests.push(req);
    return answers.shift() ?? { outcome: 'reject' };
  };
  return Object.assign(fn, { requests });
}

// `policy: false`: no command policy, only the envelope. The command policy's argument rules
// refuse much of what these tests run (a path outside the workspace, `sh -c`, `--output`), and
// the point here is that the sandbox holds for whatever does run.
function gateFor(root: string, opts: { envelope?: string; specs?: Record<string, EnvelopeSpec>; approver?: Approver; yes?: boolean; host?: LocalTerminalHost; env?: Record<string, string>; policy?: false } = {}) {
  const specs = { ...SHIPPED_ENVELOPES, ...(opts.specs ?? {}) };
  const gate = new Gate({ envelope: buildEnvelope(opts.envelope ?? 'default', specs, FLOOR_RULES), approver: opts.approver, autoApprove: opts.yes, root });
  const policy = opts.policy === false ? undefined : { ...DEFAULT_SHELL_POLICY, _allowed_commands: `${DEFAULT_SHELL_POLICY._allowed_commands},sh,sleep,setsid,true`, _allowed_dir: '.' };
  gate.add(new LocalShell({ root, policy, host: opts.host, env: opts.env }));
  return gate;
}

async function run(gate: Gate, command: string, extra: Record<string, unknown> = {}): Promise<{ result: ShellResult; decision: string; approvedBy?: string }> {
  const r = await gate.call('local_shell', { command, ...extra });
  return { result: r.result as ShellResult, decision: `${r.decision.action}:${r.decision.rule}`, approvedBy: r.approvedBy };
}

async function rejects(p: Promise<unknown>, code: string): Promise<ToolError> {
  try {
    await p;
  } catch (err) {
    assert.ok(isToolError(err), String(err));
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail(`expected ${code}`);
}

const haveBwrap = hasBwrap('the OS sandbox tests (test/core/shell/sandbox.test.ts)');

describe('the credential quarantine holds inside commands', () => {
  test('a recursive grep over a workspace holding .ssh/id_rsa never shows the key (and no longer runs unasked)', async () => {
    if (!haveBwrap) return;
    const ws = workspace();
    // the argument rules see the protected files below `.` and ask; the sandbox hides them anyway
    const asked = await gateFor(ws, { yes: true }).evaluate('local_shell', { command: 'grep -r PRIVATE .' });
    assert.equal(asked.decision.action, 'approve');
    assert.equal(asked.decision.argRule?.rule, 'recursive read of protected files');
    const r = await run(gateFor(ws, { yes: true }), 'grep -r PRIVATE .');
    assert.equal(r.approvedBy, 'yes');
    assert.equal(r.result.sandbox?.state, 'bubblewrap');
    assert.match(r.result.stdout, /hello PRIVATE readme/, 'the grep ran and found the ordinary file');
    assert.doesNotMatch(r.result.stdout + r.result.stderr, /sandbox-test-key/);
    assert.doesNotMatch(r.result.stdout + r.result.stderr, /sandbox-test-dotenv/, 'the unnamed .env is hidden too');
    // unasked, a read-only profile: the workspace cannot be written
    const unasked = await run(gateFor(ws), 'grep -rn PRIVATE README');
    assert.deepEqual(unasked.result.sandbox, { state: 'bubblewrap', profile: 'read-only', network: true });
  });

  test('… and when the call was approved by a human (workspace-write)', async () => {
    if (!haveBwrap) return;
    const ws = workspace();
    const approver = scripted({ outcome: 'allow_once' });
    const r = await run(gateFor(ws, { envelope: 'ask_always', approver }), 'grep -r -e PRIVATE -e DB_PASSWORD .');
    assert.equal(approver.requests.length, 1);
    assert.equal(r.result.sandbox?.profile, 'workspace-write');
    assert.match(r.result.stdout, /hello PRIVATE readme/);
    assert.doesNotMatch(r.result.stdout + r.result.stderr, /sandbox-test-key|sandbox-test-dotenv/, 'an approval that named neither file shows neither');
  });

  test('a read-approve file is visible only to a call whose approval named it', async () => {
    if (!haveBwrap) return;
    const ws = workspace();
    const approver = scripted({ outcome: 'allow_once' }, { outcome: 'allow_once' });
    const gate = gateFor(ws, { approver });
    const named = await run(gate, 'cat .env');
    assert.equal(approver.requests.length, 1, '.env asks in the default envelope');
    assert.equal(named.result.stdout, `${ENV_SECRET}\n`, 'the human said yes to reading .env');
    // a recursive read over .env asks too (argument rules); approved, it did not name .env
    const unnamed = await run(gate, 'grep -r DB_PASSWORD .');
    assert.equal(unnamed.approvedBy, 'human');
    assert.doesNotMatch(unnamed.result.stdout, /sandbox-test-dotenv/);
  });

  test('credential names under $HOME are hidden from commands (absolute paths, the program reading them itself)', async () => {
    if (!haveBwrap) return;
    const ws = workspace();
    // outside /tmp, which the sandbox already replaces with an empty one
    const home = tempDir(existsSync('/var/tmp') ? '/var/tmp' : os.homedir(), 'cxl-sandbox-home-');
    mkdirSync(path.join(home, '.ssh'));
    writeFileSync(path.join(home, '.ssh', 'id_ed25519'), `${KEY}\n`);
    mkdirSync(path.join(home, '.aws'));
    writeFileSync(path.join(home, '.aws', 'credentials'), 'aws_secret_access_key = sandbox-test-aws\n');
    writeFileSync(path.join(home, '.netrc'), 'machine x password sandbox-test-netrc\n');
    writeFileSync(path.join(home, 'notes.txt'), 'ordinary home file\n');
    // no command policy: a line the strict lexer cannot read ($HOME) asks, and the human says yes
    const approver = scripted({ outcome: 'allow_once' });
    const gate = new Gate({ envelope: buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES), approver, root: ws });
    gate.add(new LocalShell({ root: ws, env: { ...process.env, HOME: home } }));
    // the words name no credential path (the envelope would deny those): grep walks into them itself
    const r = (await gate.call('local_shell', { command: 'grep -r -e sandbox-test -e ordinary "$HOME"' })).result as ShellResult;
    assert.equal(approver.requests.length, 1);
    assert.match(r.stdout, /ordinary home file/, 'the rest of $HOME is readable');
    assert.doesNotMatch(r.stdout + r.stderr, /sandbox-test-(aws|netrc)|sandbox-test-key/);
    // named by absolute path, without the envelope in between: the kernel refuses
    const direct = (await new LocalShell({ root: ws, env: { ...process.env, HOME: home } }).call('local_shell', { command: 'cat', args: [path.join(home, '.netrc'), path.join(home, '.ssh', 'id_ed25519'), path.join(home, 'notes.txt')] })) as ShellResult;
    assert.match(direct.stdout, /ordinary home file/);
    assert.doesNotMatch(direct.stdout, /sandbox-test/);
    assert.match(direct.stderr, /\.netrc: Permission denied/);
    assert.match(direct.stderr, /id_ed25519: No such file or directory/, '~/.ssh is an empty directory inside');
  });

  test("another process's /proc/<pid>/environ is unreadable", async () => {
    if (!haveBwrap) return;
    const ws = workspace();
    const marker = uniqueSleep();
    const other = spawn('sleep', [marker], { env: { ...process.env, OTHER_PROCESS_SECRET: 'sandbox-test-environ' }, stdio: 'ignore' });
    try {
      assert.ok(await eventually(() => processesWith(`sleep ${marker}`).length === 1));
      const pid = other.pid!;
      assert.match(readFileSync(`/proc/${pid}/environ`, 'utf8'), /sandbox-test-environ/, 'readable from outside: the test is real');
      // a path outside the workspace: the command policy refuses it, the envelope alone asks
      const refused = await gateFor(ws).evaluate('local_shell', { command: `cat /proc/${pid}/environ` }).catch((e) => e);
      assert.equal(isToolError(refused) && refused.details?.rule, 'path-outside');
      const gate = gateFor(ws, { policy: false, approver: scripted({ outcome: 'allow_once' }, { outcome: 'allow_once' }) });
      const unasked = await run(gate, `cat /proc/${pid}/environ /proc/${pid}/cmdline`);
      assert.equal(unasked.approvedBy, 'human');
      assert.doesNotMatch(unasked.result.stdout, /sandbox-test-environ|sleep/);
      assert.notEqual(unasked.result.exit_code, 0);
      const approved = await run(gate, `sh -c 'cat /proc/*/environ'`);
      assert.equal(approved.approvedBy, 'human');
      assert.doesNotMatch(approved.result.stdout, /sandbox-test-environ/);
    } finally {
      other.kill('SIGKILL');
    }
  });
});

describe('the write wall and the workspace hold inside commands', () => {
  // no command policy: its argument rules would refuse `sh -c`, `--output`, a path outside; the
  // sandbox must hold for whatever runs
  const call = (ws: string, command: string, profile: SandboxCall['profile'], extra: Partial<SandboxCall> = {}) =>
    new LocalShell({ root: ws }).call('local_shell', { command }, { sandbox: { mode: 'auto', network: true, profile, ...extra } }) as Promise<ShellResult>;

  test('`git diff --output=x` under the read-only profile cannot write x', async () => {
    if (!haveBwrap) return;
    const ws = tempDir();
    const git = (...a: string[]) => new Promise<void>((res) => spawn('git', ['-C', ws, '-c', 'user.name=t', '-c', 'user.email=t@t', ...a], { stdio: 'ignore' }).on('close', () => res()));
    await git('init', '-q');
    writeFileSync(path.join(ws, 'app.py'), 'print(1)\n');
    await git('add', 'app.py');
    await git('commit', '-qm', 'one');
    writeFileSync(path.join(ws, 'app.py'), 'print(2)\n');
    const r = await call(ws, 'git diff --output=app.py', 'read-only');
    assert.notEqual(r.exit_code, 0, r.stderr);
    assert.equal(readFileSync(path.join(ws, 'app.py'), 'utf8'), 'print(2)\n', 'app.py is not overwritten');
    const r2 = await call(ws, 'git log --output=made.txt', 'read-only');
    assert.notEqual(r2.exit_code, 0);
    assert.equal(existsSync(path.join(ws, 'made.txt')), false);
    // through the gate: the prefix allowlist no longer runs it unasked (--output is an argument
    // rule), so with nobody to answer nothing runs
    const specs = { mine: { shell: { grant: { grant: 'approve' as const }, prefix_allowlist: ['git diff'] } } };
    const gate = new Gate({ envelope: buildEnvelope('mine', specs, FLOOR_RULES), root: ws });
    gate.add(new LocalShell({ root: ws }));
    await rejects(gate.call('local_shell', { command: 'git diff --output=app.py' }), 'approval_required');
    assert.equal(readFileSync(path.join(ws, 'app.py'), 'utf8'), 'print(2)\n');
  });

  test('an approved `touch made.txt` lands in the workspace; `touch /tmp/<random>` and /var/tmp outside it do not', async () => {
    if (!haveBwrap) return;
    const ws = workspace();
    const name = `cxl-outside-${process.pid}-${Date.now()}`;
    const approver = scripted({ outcome: 'allow_once' }, { outcome: 'allow_once' });
    const gate = gateFor(ws, { envelope: 'ask_always', approver, policy: false });
    const r = await run(gate, `touch made.txt /tmp/${name}`);
    assert.equal(r.result.sandbox?.profile, 'workspace-write');
    assert.equal(existsSync(path.join(ws, 'made.txt')), true, 'the workspace is writable');
    assert.equal(existsSync(`/tmp/${name}`), false, "the command's /tmp is its own");
    if (existsSync('/var/tmp')) {
      const v = await run(gate, `touch /var/tmp/${name}`);
      assert.notEqual(v.result.exit_code, 0);
      assert.match(v.result.stderr, /Read-only file system/);
      assert.equal(existsSync(`/var/tmp/${name}`), false);
    }
  });

  test('the read-only profile cannot write the workspace at all', async () => {
    if (!haveBwrap) return;
    const ws = workspace();
    const r = await call(ws, 'touch made.txt', 'read-only');
    assert.notEqual(r.exit_code, 0);
    assert.equal(existsSync(path.join(ws, 'made.txt')), false);
  });

  test('.git/hooks/pre-commit and .git/config cannot be written by an approved command; .git/objects can', async () => {
    if (!haveBwrap) return;
    const ws = tempDir();
    const git = (...a: string[]) => new Promise<void>((res) => spawn('git', ['-C', ws, ...a], { stdio: 'ignore' }).on('close', () => res()));
    await git('init', '-q');
    const config = readFileSync(path.join(ws, '.git', 'config'), 'utf8');
    writeFileSync(path.join(ws, 'a.txt'), 'a\n');
    const hook = await call(ws, "sh -c 'echo touch /tmp/pwned > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit'", 'workspace-write');
    assert.notEqual(hook.exit_code, 0);
    assert.equal(existsSync(path.join(ws, '.git', 'hooks', 'pre-commit')), false);
    const cfg = await call(ws, 'git config core.fsmonitor "touch /tmp/pwned"', 'workspace-write');
    assert.notEqual(cfg.exit_code, 0);
    assert.equal(readFileSync(path.join(ws, '.git', 'config'), 'utf8'), config);
    // an approved commit still works: the wall is hooks and config, not the repository
    const commit = await call(ws, 'git add a.txt && git -c user.name=t -c user.email=t@t commit -qm one', 'workspace-write');
    assert.equal(commit.exit_code, 0, commit.stderr);
    assert.equal(existsSync(path.join(ws, '.git', 'refs', 'heads')), true);
  });

  test('files that run on every shell start, and agent configs, stay read-only inside the workspace', async () => {
    if (!haveBwrap) return;
    const ws = tempDir();
    writeFileSync(path.join(ws, '.bashrc'), '# mine\n');
    mkdirSync(path.join(ws, '.vscode'));
    mkdirSync(path.join(ws, 'sub', '.contenox'), { recursive: true });
    const r = await call(ws, "sh -c 'echo evil >> .bashrc; touch .vscode/tasks.json; touch sub/.contenox/agents.toml; touch ok.txt'", 'workspace-write');
    assert.match(r.stderr, /\.bashrc: Read-only file system/);
    assert.equal(readFileSync(path.join(ws, '.bashrc'), 'utf8'), '# mine\n');
    assert.equal(existsSync(path.join(ws, '.vscode', 'tasks.json')), false);
    assert.equal(existsSync(path.join(ws, 'sub', '.contenox', 'agents.toml')), false);
    assert.equal(existsSync(path.join(ws, 'ok.txt')), true);
  });

  test('a key added after the first command is hidden from the next one (the scan sees new files)', async () => {
    if (!haveBwrap) return;
    const ws = tempDir();
    writeFileSync(path.join(ws, 'a.txt'), 'PRIVATE a\n');
    const first = await call(ws, 'sh -c "grep -r PRIVATE ."', 'read-only');
    assert.match(first.stdout, /PRIVATE a/);
    mkdirSync(path.join(ws, 'nested', 'deeper'), { recursive: true });
    writeFileSync(path.join(ws, 'nested', 'deeper', 'server.pem'), `${KEY}\n`);
    writeFileSync(path.join(ws, 'id_rsa.bak'), `${KEY}\n`);
    const second = await call(ws, 'sh -c "grep -r PRIVATE ."', 'read-only');
    assert.match(second.stdout, /PRIVATE a/);
    assert.doesNotMatch(second.stdout, /sandbox-test-key/);
  });

  test('a symlink named like a key is hidden by what it points to', async () => {
    if (!haveBwrap) return;
    const ws = tempDir();
    const elsewhere = tempDir(existsSync('/var/tmp') ? '/var/tmp' : os.homedir(), 'cxl-sandbox-else-');
    writeFileSync(path.join(elsewhere, 'plain.txt'), `${KEY}\n`);
    const { symlinkSync } = await import('node:fs');
    symlinkSync(path.join(elsewhere, 'plain.txt'), path.join(ws, 'deploy.pem'));
    symlinkSync(path.join(ws, 'missing'), path.join(ws, 'dangling.pem')); // must not break the mounts
    const r = await call(ws, 'cat deploy.pem', 'workspace-write');
    assert.doesNotMatch(r.stdout, /sandbox-test-key/);
    assert.notEqual(r.exit_code, 0);
  });
});

describe('network', () => {
  test('shell.network = false: a command cannot reach a server on this machine', async () => {
    if (!haveBwrap) return;
    const node = findOnPath('node', process.env.PATH);
    if (!node) return assert.fail('node is needed on PATH for this test');
    const server = createServer((s) => s.end('hello\n'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const ws = tempDir();
    const script = `require('net').connect(${port},'127.0.0.1').on('data',d=>{process.stdout.write('got '+d);process.exit(0)}).on('error',e=>{console.log(e.code);process.exit(1)})`;
    const sh = new LocalShell({ root: ws });
    try {
      const on = (await sh.call('local_shell', { command: node, args: ['-e', script] }, { sandbox: { mode: 'auto', network: true, profile: 'read-only' } })) as ShellResult;
      assert.equal(on.stdout, 'got hello\n', 'reachable with the network on');
      const off = (await sh.call('local_shell', { command: node, args: ['-e', script] }, { sandbox: { mode: 'auto', network: false, profile: 'read-only' } })) as ShellResult;
      assert.equal(off.exit_code, 1);
      assert.match(off.stdout, /ECONNREFUSED|ENETUNREACH/);
      assert.equal(off.sandbox?.network, false);
    } finally {
      server.close();
    }
  });
});

describe('a sandbox that cannot start is reported, never assumed', () => {
  // a PATH whose bwrap fails as a restricted user namespace makes it fail
  const brokenHost = () => {
    const bin = tempDir();
    writeFileSync(path.join(bin, 'bwrap'), '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n');
    chmodSync(path.join(bin, 'bwrap'), 0o755);
    return new LocalTerminalHost({ probe: { pathEnv: `${bin}:${process.env.PATH}`, platform: 'linux' } });
  };

  test('`required`: the command is refused with sandbox_unavailable, saying how to install bubblewrap', async () => {
    const ws = workspace();
    const host = brokenHost();
    assert.equal(host.sandboxState().state, 'unavailable');
    assert.match(host.sandboxState().reason ?? '', /uid map: Permission denied.*user namespaces/);
    const specs = { locked: { extends: 'default', shell: { grant: { grant: 'approve' as const }, prefix_allowlist: ['ls', 'touch'], sandbox: 'required' as const } } };
    const gate = gateFor(ws, { envelope: 'locked', specs, host, yes: true });
    const err = await rejects(gate.call('local_shell', { command: 'touch made.txt' }), 'sandbox_unavailable');
    assert.match(err.message, /apt-get install bubblewrap/);
    assert.match(err.message, /uid map/);
    assert.equal(existsSync(path.join(ws, 'made.txt')), false, 'nothing ran');
  });

  test('`auto`: commands still run, but the prefix allowlist is ignored and the line asks, saying why', async () => {
    const ws = workspace();
    const host = brokenHost();
    const unattended = gateFor(ws, { host });
    const err = await rejects(unattended.call('local_shell', { command: 'ls' }), 'approval_required');
    assert.match(err.message, /no sandbox is working .*uid map/);
    const approver = scripted({ outcome: 'allow_once' });
    const asked = await run(gateFor(ws, { host, approver }), 'ls');
    assert.equal(approver.requests.length, 1);
    assert.match(approver.requests[0].decision.sentence, /prefix_allowlist.*no sandbox is working/);
    assert.equal(asked.result.sandbox?.state, 'unavailable');
    assert.match(asked.result.stdout, /README/);
  });

  test('`off`: no sandbox, and the result says so', async () => {
    const ws = workspace();
    const r = (await new LocalShell({ root: ws }).call('local_shell', { command: 'cat README' }, { sandbox: { mode: 'off', network: true, profile: 'read-only' } })) as ShellResult;
    assert.deepEqual(r.sandbox, { state: 'off' });
  });
});

describe('timeouts and cancels under the sandbox leave no process behind', () => {
  // Each line starts a background child and a daemon that leaves the process group (setsid),
  // which the process-group kill alone cannot reach; the sandbox's PID namespace does.
  // no command policy (`sh -c` is code from the line, which its argument rules refuse)
  const sh = (ws: string) => new LocalShell({ root: ws });
  const line = (m: string) => `sh -c 'sleep ${m} & setsid sleep ${m} & echo started; wait'`;

  test('on timeout', async () => {
    if (!haveBwrap) return;
    const ws = tempDir();
    const m = uniqueSleep();
    const t0 = Date.now();
    const err = await rejects(sh(ws).call('local_shell', { command: line(m), timeout: '1s' }, { sandbox: { mode: 'auto', network: true, profile: 'workspace-write' } }), 'timeout');
    assert.ok(Date.now() - t0 < 8000);
    assert.match(String(err.details?.stdout), /started/);
    assert.ok(await eventually(() => processesWith(`sleep ${m}`).length === 0), `left running: ${processesWith(`sleep ${m}`).join(' ')}`);
  });

  test('on cancel', async () => {
    if (!haveBwrap) return;
    const ws = tempDir();
    const m = uniqueSleep();
    const ac = new AbortController();
    const p = sh(ws).call('local_shell', { command: line(m) }, { signal: ac.signal, sandbox: { mode: 'auto', network: true, profile: 'read-only' } });
    assert.ok(await eventually(() => processesWith(`sleep ${m}`).length >= 2, 8000), 'the line started');
    ac.abort();
    await rejects(p, 'cancelled');
    assert.ok(await eventually(() => processesWith(`sleep ${m}`).length === 0), `left running: ${processesWith(`sleep ${m}`).join(' ')}`);
  });

  test('a daemon left behind by a command that exited is killed with the sandbox', async () => {
    if (!haveBwrap) return;
    const ws = tempDir();
    const m = uniqueSleep();
    const r = (await sh(ws).call('local_shell', { command: `sh -c 'setsid sleep ${m} & sleep 0.5; echo left'` }, { sandbox: { mode: 'auto', network: true, profile: 'read-only' } })) as ShellResult;
    assert.equal(r.exit_code, 0);
    assert.ok(await eventually(() => processesWith(`sleep ${m}`).length === 0), `left running: ${processesWith(`sleep ${m}`).join(' ')}`);
  });
});

test('a kill that lands while bwrap is still setting up leaves nothing behind', async () => {
  if (!haveBwrap) return;
  const ws = tempDir();
  const host = new LocalTerminalHost();
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  const markers: string[] = [];
  for (let i = 0; i < 10; i++) {
    const m = uniqueSleep();
    markers.push(m);
    const t = host.createSync({ command: '/bin/sh', args: ['-c', `setsid sleep ${m} & sleep ${m}`], cwd: ws, env, outputByteLimit: 4096, sandbox: { profile: 'read-only', network: true, roots: [ws] } });
    // i = 0: at once, before bwrap forks; later: as soon as bwrap's child exists (its command
    // line is bwrap's), before that child has armed its die-with-parent
    if (i > 0) await eventually(() => processesWith(`sleep ${m}`).length >= 2, 5000);
    t.killNow();
    assert.equal((await t.waitForExit()).signal, 'SIGKILL');
  }
  for (const m of markers) assert.ok(await eventually(() => processesWith(`sleep ${m}`).length === 0, 5000), `left running: ${processesWith(`sleep ${m}`).join(' ')}`);
});
