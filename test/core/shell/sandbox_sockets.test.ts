// Unix sockets are how a command reaches what holds keys without reading a file: an ssh-agent
// signs with a key nobody can read, the session bus hands out Secret Service passwords, docker's
// socket is root. Each test is the attack as a cloned repository's test code makes it, unasked
// (`node --test` of the default envelope) and approved: a socket file outside /tmp, an abstract
// name (no file to hide), one in the per-user runtime dir, io_uring (which makes sockets without
// socket()), and a datagram socketpair (which socket() never sees) sending to a datagram socket
// of the host by path, as journald's is. The kernel keyring is out of reach too. The same
// program run unsandboxed reaches each one, so the test is real; and what a command's own
// processes use stays: stream and seqpacket pairs, TCP to a local server.
// Plus the filter itself, read instruction by instruction for every ABI it covers.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, describe, test } from 'node:test';
import { buildEnvelope } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { Gate } from '../../../src/core/gate/gate.ts';
import type { ShellResult } from '../../../src/core/shell/runner.ts';
import { LocalShell } from '../../../src/core/shell/local_shell.ts';
import { socketFilter } from '../../../src/core/shell/sandbox/seccomp.ts';
import { findOnPath, hasBwrap, note } from '../../helpers/system_tools.ts';

const dirs: string[] = [];
const agents: ChildProcess[] = [];
after(() => {
  for (const a of agents) a.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

// outside /tmp, which every sandboxed command already sees as its own empty one
const base = existsSync('/var/tmp') ? '/var/tmp' : os.homedir();
function tempDir(prefix: string, under = os.tmpdir()): string {
  const d = realpathSync(mkdtempSync(path.join(under, prefix)));
  dirs.push(d);
  return d;
}

/**
 * A fake agent in its own process, as a real one is (and Node can name abstract sockets, which
 * not every runtime's net module can): answers `marker` on each of `where`.
 */
async function listen(where: string, marker: string): Promise<void> {
  assert.ok(node, 'node is needed on PATH for this test');
  const script = `const net = require('node:net'); net.createServer((c) => c.end(${JSON.stringify(`${marker}\n`)})).listen(${JSON.stringify(where)}, () => console.log('ready'));`;
  const child = spawn(node, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  agents.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the fake agent on ${JSON.stringify(where)} exited (${code})`)));
  });
}

/** This process's environment without the test runner's own variables (a `node --test` inside would report to it). */
function cleanEnv(extra: Record<string, string>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, ...extra };
  for (const k of Object.keys(env)) if (k.startsWith('NODE_TEST')) delete env[k];
  return env;
}

const haveBwrap = hasBwrap('the unix-socket tests (test/core/shell/sandbox_sockets.test.ts)');
const node = findOnPath('node', process.env.PATH);

describe('a command reaches no unix socket', () => {
  test('a test file run unasked by `node --test` gets nothing from an agent socket, an abstract socket or the runtime dir', async () => {
    if (!haveBwrap) return;
    assert.ok(node, 'node is needed on PATH for this test');
    const outside = tempDir('cxl-agent-', base);
    const agent = path.join(outside, 'agent.sock');
    const runtime = path.join(outside, 'run');
    mkdirSync(runtime, { mode: 0o700 });
    const bus = path.join(runtime, 'bus');
    const abstract = `\0cxl-test-abstract-${process.pid}-${Date.now()}`;
    await listen(agent, 'AGENT-ANSWER-sandbox-test');
    await listen(abstract, 'ABSTRACT-ANSWER-sandbox-test');
    await listen(bus, 'BUS-ANSWER-sandbox-test');
    const ws = tempDir('cxl-sockets-');
    mkdirSync(path.join(ws, 'test'));
    const probe = `const net = require('node:net');
const { test } = require('node:test');
for (const [name, p] of ${JSON.stringify([['agent', agent], ['abstract', abstract], ['bus', bus]])}) {
  test(name, () => new Promise((done) => {
    net.connect(p).on('data', (d) => { console.log('REACHED ' + name + ' ' + String(d).trim()); done(); })
      .on('error', (e) => { console.log('REFUSED ' + name + ' ' + e.code); done(); });
  }));
}
`;
    writeFileSync(path.join(ws, 'test', 'agent.test.js'), probe);
    const env = cleanEnv({ XDG_RUNTIME_DIR: runtime, SSH_AUTH_SOCK: agent });
    const gate = new Gate({ envelope: buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES), root: ws });
    gate.add(new LocalShell({ root: ws, env }));
    const r = await gate.call('local_shell', { command: 'node --test test/agent.test.js' });
    const out = (r.result as ShellResult).stdout;
    assert.equal(r.decision.rule, 'shell.prefix_allowlist', 'it ran unasked');
    assert.deepEqual((r.result as ShellResult).sandbox, { state: 'bubblewrap', profile: 'read-only', network: true });
    assert.doesNotMatch(out, /REACHED|ANSWER-sandbox-test/);
    assert.match(out, /REFUSED agent EPERM/);
    assert.match(out, /REFUSED abstract EPERM/);
    assert.match(out, /REFUSED bus (EPERM|ENOENT)/);
    // the same line unsandboxed reaches all three: the sockets are real
    const open = (await new LocalShell({ root: ws, env }).call('local_shell', { command: node!, args: ['--test', 'test/agent.test.js'] }, { sandbox: { mode: 'off', network: true, profile: 'read-only' } })) as ShellResult;
    for (const name of ['AGENT', 'ABSTRACT', 'BUS']) assert.match(open.stdout, new RegExp(`${name}-ANSWER-sandbox-test`));
  });

  test('approved (workspace-write) and with the network off, still nothing; the runtime dir is an empty directory', async () => {
    if (!haveBwrap) return;
    assert.ok(node);
    const outside = tempDir('cxl-agent-', base);
    const agent = path.join(outside, 'S.gpg-agent');
    await listen(agent, 'GPG-ANSWER-sandbox-test');
    const runtime = path.join(outside, 'run');
    mkdirSync(runtime);
    writeFileSync(path.join(runtime, 'keyring-control'), 'runtime-secret-sandbox-test\n');
    const ws = tempDir('cxl-sockets-');
    const script = `require('node:net').connect(${JSON.stringify(agent)}).on('data', (d) => console.log('REACHED ' + d)).on('error', (e) => console.log('REFUSED ' + e.code));
console.log('RUNTIME ' + JSON.stringify(require('node:fs').readdirSync(${JSON.stringify(runtime)})));`;
    const sh = new LocalShell({ root: ws, env: cleanEnv({ XDG_RUNTIME_DIR: runtime }) });
    for (const network of [true, false]) {
      const r = (await sh.call('local_shell', { command: node!, args: ['-e', script] }, { sandbox: { mode: 'auto', network, profile: 'workspace-write' } })) as ShellResult;
      assert.match(r.stdout, /REFUSED EPERM/, `network ${network}: ${r.stdout}${r.stderr}`);
      assert.match(r.stdout, /RUNTIME \[\]/);
      assert.doesNotMatch(r.stdout, /ANSWER-sandbox-test|runtime-secret/);
    }
  });

  test('io_uring, which makes sockets without socket(), is refused; socketpair (child-process pipes) still works', async () => {
    if (!haveBwrap) return;
    const python = findOnPath('python3', process.env.PATH);
    assert.ok(python, 'python3 is needed on PATH for this test');
    const ws = tempDir('cxl-sockets-');
    // io_uring_setup(1, params) by number (x86_64, arm64 and riscv64 share 425); socketpair by name
    const script = [
      'import ctypes, os, socket',
      'libc = ctypes.CDLL(None, use_errno=True)',
      'params = ctypes.create_string_buffer(120)',
      'fd = libc.syscall(425, 1, params)',
      'print("IO_URING", fd, os.strerror(ctypes.get_errno()) if fd < 0 else "ok")',
      'a, b = socket.socketpair(); a.sendall(b"x"); print("PAIR", b.recv(1))',
      'try:\n    socket.socket(socket.AF_UNIX)\n    print("UNIX ok")\nexcept OSError as e:\n    print("UNIX", e.strerror)',
      'socket.socket(socket.AF_INET).close(); print("INET ok")',
    ].join('\n');
    const sh = new LocalShell({ root: ws });
    const boxed = (await sh.call('local_shell', { command: python!, args: ['-c', script] }, { sandbox: { mode: 'auto', network: true, profile: 'read-only' } })) as ShellResult;
    assert.match(boxed.stdout, /IO_URING -1 Function not implemented/, boxed.stdout + boxed.stderr);
    assert.match(boxed.stdout, /PAIR b'x'/);
    assert.match(boxed.stdout, /UNIX Operation not permitted/);
    assert.match(boxed.stdout, /INET ok/);
    const open = (await sh.call('local_shell', { command: python!, args: ['-c', script] }, { sandbox: { mode: 'off', network: true, profile: 'read-only' } })) as ShellResult;
    assert.match(open.stdout, /UNIX ok/);
    if (process.arch === 'x64' || process.arch === 'arm64') assert.doesNotMatch(open.stdout, /IO_URING -1 Function not implemented/, 'io_uring works here outside the sandbox');
  });
});

/** A datagram socket of the host bound at `where` by its own process (as journald's is): collects what arrives. */
async function datagramListener(where: string): Promise<{ received: () => Promise<string> }> {
  const python = findOnPath('python3', process.env.PATH);
  assert.ok(python, 'python3 is needed on PATH for this test');
  const script = 'import socket, sys\ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\ns.bind(sys.argv[1])\nprint("ready", flush=True)\nwhile True:\n    d = s.recv(4096)\n    if d == b"END": break\n    print("GOT " + d.decode(), flush=True)';
  const child = spawn(python!, ['-c', script, where], { stdio: ['ignore', 'pipe', 'inherit'] });
  agents.push(child);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the datagram listener on ${where} exited (${code})`)));
  });
  // ended by a datagram of its own, sent after everything else: whatever came before it has arrived
  const received = async () => {
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    spawn(python!, ['-c', 'import socket, sys\nsocket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"END", sys.argv[1])', where], { stdio: 'ignore' });
    await closed;
    return out;
  };
  return { received };
}

describe('datagram socketpairs, the keyring, and what a command\'s own processes still use', () => {
  test('a datagram socketpair (and SOCK_RAW, and with SOCK_NONBLOCK | SOCK_CLOEXEC) cannot sendto or connect to a host datagram socket, unasked or approved', async () => {
    if (!haveBwrap) return;
    const python = findOnPath('python3', process.env.PATH);
    assert.ok(python, 'python3 is needed on PATH for this test');
    const where = path.join(tempDir('cxl-dgram-', base), 'journal.sock');
    const listener = await datagramListener(where);
    const script = [
      'import socket, sys',
      'where, tag = sys.argv[1], sys.argv[2]',
      'for name, t in [("DGRAM", socket.SOCK_DGRAM), ("RAW", socket.SOCK_RAW), ("DGRAM_FLAGS", socket.SOCK_DGRAM | socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC)]:',
      '    try:\n        a, b = socket.socketpair(socket.AF_UNIX, t)\n    except OSError as e:\n        print("PAIR", name, e.strerror)\n        continue',
      '    try:\n        a.sendto((tag + "-" + name + "-sendto").encode(), where)\n        print("SENT", name)\n    except OSError as e:\n        print("SENDTO", name, e.strerror)',
      '    try:\n        a.connect(where)\n        a.send((tag + "-" + name + "-connect").encode())\n        print("CONNECTED", name)\n    except OSError as e:\n        print("CONNECT", name, e.strerror)',
    ].join('\n');
    const ws = tempDir('cxl-sockets-');
    const sh = new LocalShell({ root: ws });
    for (const profile of ['read-only', 'workspace-write'] as const) {
      const boxed = (await sh.call('local_shell', { command: python!, args: ['-c', script, where, `boxed-${profile}`] }, { sandbox: { mode: 'auto', network: true, profile } })) as ShellResult;
      for (const name of ['DGRAM', 'RAW', 'DGRAM_FLAGS']) assert.match(boxed.stdout, new RegExp(`^PAIR ${name} Operation not permitted$`, 'm'), `${profile}: ${boxed.stdout}${boxed.stderr}`);
    }
    // control: unsandboxed, the same program reaches the listener both ways (the socket is real)
    const open = (await sh.call('local_shell', { command: python!, args: ['-c', script, where, 'open'] }, { sandbox: { mode: 'off', network: true, profile: 'read-only' } })) as ShellResult;
    assert.match(open.stdout, /SENT DGRAM/, open.stdout + open.stderr);
    const got = await listener.received();
    assert.match(got, /GOT open-DGRAM-sendto/);
    assert.match(got, /GOT open-DGRAM-connect/);
    assert.doesNotMatch(got, /boxed-/, 'nothing sent from the sandbox arrived');
  });

  test('the kernel keyring (keyctl, add_key, request_key) is refused inside; outside it answers', async () => {
    if (!haveBwrap) return;
    const numbers: Record<string, [number, number, number]> = { x64: [248, 249, 250], arm64: [217, 218, 219] };
    const nrs = numbers[process.arch];
    if (!nrs) {
      note(`the keyring test has no syscall numbers for ${process.arch}: it did not run`);
      return;
    }
    const python = findOnPath('python3', process.env.PATH);
    assert.ok(python, 'python3 is needed on PATH for this test');
    // harmless calls: read the session and user keyrings' ids without creating them, add a key of
    // a type that does not exist, request a key nobody has (no callout: no upcall runs)
    const [addKey, requestKey, keyctl] = nrs;
    const script = [
      'import ctypes, os',
      'libc = ctypes.CDLL(None, use_errno=True)',
      'def say(name, r): print(name, r if r >= 0 else os.strerror(ctypes.get_errno()))',
      `say("SESSION", libc.syscall(${keyctl}, 0, ctypes.c_long(-3), 0))`,
      `say("USER", libc.syscall(${keyctl}, 0, ctypes.c_long(-4), 0))`,
      `say("ADD_KEY", libc.syscall(${addKey}, b"cxl-no-such-type", b"cxl-test", b"x", 1, ctypes.c_long(-3)))`,
      `say("REQUEST_KEY", libc.syscall(${requestKey}, b"user", b"cxl-test-no-such-key", None, 0))`,
    ].join('\n');
    const sh = new LocalShell({ root: tempDir('cxl-keys-') });
    const boxed = (await sh.call('local_shell', { command: python!, args: ['-c', script] }, { sandbox: { mode: 'auto', network: true, profile: 'read-only' } })) as ShellResult;
    for (const name of ['SESSION', 'USER', 'ADD_KEY', 'REQUEST_KEY']) assert.match(boxed.stdout, new RegExp(`^${name} Operation not permitted$`, 'm'), boxed.stdout + boxed.stderr);
    const open = (await sh.call('local_shell', { command: python!, args: ['-c', script] }, { sandbox: { mode: 'off', network: true, profile: 'read-only' } })) as ShellResult;
    if (/^SESSION Operation not permitted$/m.test(open.stdout)) note('the keyring is refused on this machine outside the sandbox too (a container\'s own filter): the keyring test\'s control shows nothing here');
    else assert.match(open.stdout, /^USER \d+$/m, open.stdout + open.stderr);
  });

  test('control: a test that uses stream and seqpacket socketpairs and TCP to a local server still runs unasked', async () => {
    if (!haveBwrap) return;
    assert.ok(node, 'node is needed on PATH for this test');
    const server = createServer((c) => c.end('TCP-ANSWER-sandbox-test\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = (server.address() as AddressInfo).port;
      const ws = tempDir('cxl-sockets-');
      mkdirSync(path.join(ws, 'test'));
      // a child's stdio pipes are a stream socketpair (libuv); python3 makes a seqpacket pair itself
      const file = `const { test } = require('node:test');
const { spawnSync } = require('node:child_process');
test('a child over pipes', () => {
  const r = spawnSync(process.execPath, ['-e', "process.stdout.write('STREAM ' + require('node:fs').fstatSync(0).isSocket() + ' ' + require('node:fs').readFileSync(0, 'utf8'))"], { input: 'x' });
  console.log(String(r.stdout));
});
test('a seqpacket pair', () => {
  const r = spawnSync('python3', ['-c', 'import socket\\na, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET | socket.SOCK_CLOEXEC)\\na.send(b"y")\\nprint("SEQPACKET", b.recv(1).decode())']);
  console.log(String(r.stdout).trim() || String(r.stderr));
});
test('tcp to the dev server', () => new Promise((done) => {
  require('node:net').connect(${port}, '127.0.0.1').on('data', (d) => { console.log(String(d).trim()); done(); }).on('error', (e) => { console.log('TCP ' + e.code); done(); });
}));
`;
      writeFileSync(path.join(ws, 'test', 'local.test.js'), file);
      const gate = new Gate({ envelope: buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES), root: ws });
      gate.add(new LocalShell({ root: ws, env: cleanEnv({}) }));
      const r = await gate.call('local_shell', { command: 'node --test test/local.test.js' });
      const out = r.result as ShellResult;
      assert.equal(r.decision.rule, 'shell.prefix_allowlist', 'it ran unasked');
      assert.deepEqual(out.sandbox, { state: 'bubblewrap', profile: 'read-only', network: true });
      assert.match(out.stdout, /STREAM true x/, out.stdout + out.stderr);
      assert.match(out.stdout, /SEQPACKET y/);
      assert.match(out.stdout, /TCP-ANSWER-sandbox-test/);
    } finally {
      server.close();
    }
  });
});

/** A classic-BPF interpreter for the filter's few instructions: what it answers one syscall. */
function decide(program: Uint8Array, arch: number, nr: number, arg0 = 0, arg1 = 0): string {
  const v = new DataView(program.buffer, program.byteOffset, program.byteLength);
  const data = new DataView(new ArrayBuffer(64));
  data.setInt32(0, nr, true);
  data.setUint32(4, arch, true);
  data.setUint32(16, arg0, true);
  data.setUint32(24, arg1, true);
  let a = 0;
  for (let pc = 0; pc < program.length / 8; pc++) {
    const code = v.getUint16(pc * 8, true);
    const jt = v.getUint8(pc * 8 + 2);
    const jf = v.getUint8(pc * 8 + 3);
    const k = v.getUint32(pc * 8 + 4, true);
    if (code === 0x20) a = data.getUint32(k, true);
    else if (code === 0x54) a = (a & k) >>> 0;
    else if (code === 0x15) pc += a === k ? jt : jf;
    else if (code === 0x35) pc += a >= k ? jt : jf;
    else if (code === 0x06) return k === 0x7fff0000 ? 'allow' : (k & 0xffff0000) === 0x00050000 ? `errno ${k & 0xffff}` : `ret ${k.toString(16)}`;
    else throw new Error(`unknown instruction ${code.toString(16)}`);
  }
  throw new Error('fell off the end');
}

describe('the filter, instruction by instruction', () => {
  const X86_64 = 0xc000003e;
  const I386 = 0x40000003;
  const AARCH64 = 0xc00000b7;
  const ARM = 0x40000028;
  const prog = (arch: string) => {
    const f = socketFilter(arch);
    assert.ok('program' in f);
    return f.program;
  };

  test('x86_64: socket(AF_UNIX) is EPERM, other families pass, io_uring is ENOSYS, the x32 ABI is ENOSYS', () => {
    const p = prog('x64');
    assert.equal(decide(p, X86_64, 41, 1), 'errno 1');
    assert.equal(decide(p, X86_64, 41, 2), 'allow', 'AF_INET');
    assert.equal(decide(p, X86_64, 41, 10), 'allow', 'AF_INET6');
    assert.equal(decide(p, X86_64, 53, 1, 1), 'allow', 'socketpair(AF_UNIX, SOCK_STREAM)');
    assert.equal(decide(p, X86_64, 53, 1, 1 | 0x80000 | 0x800), 'allow', 'socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK)');
    assert.equal(decide(p, X86_64, 53, 1, 5), 'allow', 'socketpair(AF_UNIX, SOCK_SEQPACKET)');
    assert.equal(decide(p, X86_64, 53, 1, 2), 'errno 1', 'socketpair(AF_UNIX, SOCK_DGRAM)');
    assert.equal(decide(p, X86_64, 53, 1, 2 | 0x80000), 'errno 1', 'socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC)');
    assert.equal(decide(p, X86_64, 53, 1, 3), 'errno 1', 'socketpair(AF_UNIX, SOCK_RAW): a datagram socket to unix sockets');
    for (const n of [248, 249, 250]) assert.equal(decide(p, X86_64, n), 'errno 1', `keyring call ${n}`);
    assert.equal(decide(p, X86_64, 42, 1), 'allow', 'connect: refused by never having the socket');
    for (const n of [425, 426, 427]) assert.equal(decide(p, X86_64, n), 'errno 38');
    assert.equal(decide(p, X86_64, 0x40000000 + 41, 1), 'errno 38', 'x32 socket');
    assert.equal(decide(p, X86_64, 0), 'allow', 'read');
  });

  test('the 32-bit ABIs: socket(AF_UNIX) is EPERM and socketcall, whose arguments a filter cannot read, is refused whole', () => {
    const p = prog('x64');
    assert.equal(decide(p, I386, 359, 1), 'errno 1');
    assert.equal(decide(p, I386, 359, 2), 'allow');
    assert.equal(decide(p, I386, 102, 1), 'errno 1');
    assert.equal(decide(p, I386, 425), 'errno 38');
    assert.equal(decide(p, I386, 3), 'allow');
    const q = prog('arm64');
    assert.equal(decide(q, AARCH64, 198, 1), 'errno 1');
    assert.equal(decide(q, AARCH64, 199, 1, 1), 'allow', 'socketpair stream');
    assert.equal(decide(q, AARCH64, 199, 1, 2), 'errno 1', 'socketpair dgram');
    for (const n of [217, 218, 219]) assert.equal(decide(q, AARCH64, n), 'errno 1', `arm64 keyring call ${n}`);
    assert.equal(decide(q, ARM, 281, 1), 'errno 1');
    assert.equal(decide(q, ARM, 102, 1), 'errno 1');
    assert.equal(decide(q, ARM, 288, 1, 5), 'allow', 'arm socketpair seqpacket');
    assert.equal(decide(q, ARM, 288, 1, 2), 'errno 1', 'arm socketpair dgram');
    for (const n of [309, 310, 311]) assert.equal(decide(q, ARM, n), 'errno 1', `arm keyring call ${n}`);
    assert.equal(decide(p, I386, 360, 1, 2), 'errno 1', 'i386 socketpair dgram');
    assert.equal(decide(p, I386, 360, 1, 1), 'allow', 'i386 socketpair stream');
    for (const n of [286, 287, 288]) assert.equal(decide(p, I386, n), 'errno 1', `i386 keyring call ${n}`);
    const rv = prog('riscv64');
    assert.equal(decide(rv, 0xc00000f3, 199, 1, 2), 'errno 1', 'riscv64 socketpair dgram');
    for (const n of [217, 218, 219]) assert.equal(decide(rv, 0xc00000f3, n), 'errno 1', `riscv64 keyring call ${n}`);
  });

  test('an ABI the table does not know is refused, and an architecture without a table has no filter (the probe then says why)', () => {
    assert.equal(decide(prog('x64'), AARCH64, 1), 'errno 38');
    assert.equal(decide(prog('riscv64'), I386, 1), 'errno 38');
    const none = socketFilter('s390x');
    assert.ok('unsupported' in none && /no syscall table for s390x/.test(none.unsupported));
  });
});
