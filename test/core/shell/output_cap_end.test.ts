// A command whose output passes its cap is ended, as `| head -c` would end it: what nobody will
// read is not worth running for. `cat /dev/zero` run unasked used to go on until its CPU limit
// (minutes) while only the first and last bytes of its output were kept. Tried with real
// processes, unasked (read-only) and approved (workspace-write), through local_shell and through
// the client's terminal host; beside each, a command under the cap runs to its own end.
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { TerminalHost } from '../../../src/client/hosts/terminal_host.ts';
import { buildEnvelope } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { Gate } from '../../../src/core/gate/gate.ts';
import { META_OUTPUT_LIMIT } from '../../../src/core/protocol_names.ts';
import type { ShellResult } from '../../../src/core/shell/runner.ts';
import { ClientTerminalHost, type AcpTerminalClient } from '../../../src/core/shell/client_terminal.ts';
import { LocalShell } from '../../../src/core/shell/local_shell.ts';
import { stopSandboxesAhead } from '../../../src/core/shell/local_terminal.ts';
import { hasBwrap } from '../../helpers/system_tools.ts';
import { eventually, processesWith } from './helpers.ts';

const ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'cxl-outcap-')));
after(() => {
  stopSandboxesAhead();
  rmSync(ws, { recursive: true, force: true });
});

const CAP = 64 * 1024;

/** The default envelope: its prefix allowlist runs `cat`, `yes`, `ls` unasked; `approve` says yes to whatever asks. */
function gateFor(approve = false): Gate {
  const gate = new Gate({ envelope: buildEnvelope(approve ? 'ask_always' : 'default', SHIPPED_ENVELOPES, FLOOR_RULES), root: ws, approver: async () => ({ outcome: approve ? 'allow_once' : 'reject' }) });
  gate.add(new LocalShell({ root: ws, outputLimit: CAP }));
  return gate;
}

/** A marker no other process has, for `yes` to print (and to find it by in /proc). */
const marker = () => `cxl-outcap-${process.pid}-${Math.floor(Math.random() * 1e9)}`;

const haveBwrap = hasBwrap('the output-cap tests (test/core/shell/output_cap_end.test.ts)');

describe('a command whose output passes its cap is ended', () => {
  test('unasked, `cat /dev/zero` is ended within moments of passing the cap, and says so', async () => {
    if (!haveBwrap) return;
    const t0 = Date.now();
    const r = await gateFor().call('local_shell', { command: 'cat /dev/zero', timeout: '20s' });
    const elapsed = Date.now() - t0;
    const res = r.result as ShellResult;
    assert.equal(res.sandbox?.profile, 'read-only', 'it ran unasked');
    assert.ok(elapsed < 5000, `it ran ${elapsed} ms`);
    assert.equal(res.exit_code, null);
    assert.equal(res.signal, 'SIGKILL');
    assert.equal(res.truncated, true);
    assert.match(res.stdout, /bytes of output cut/);
    assert.match(res.stderr, new RegExp(`cxl: \`cat /dev/zero\` was ended once its output passed ${CAP} bytes \\(the cap\\): the output is cut, and nothing it started is left running`));
  });

  test('approved, `yes` is ended the same way, and no process of it is left', async () => {
    if (!haveBwrap) return;
    const m = marker();
    const t0 = Date.now();
    const r = await gateFor(true).call('local_shell', { command: `yes ${m}`, timeout: '20s' });
    const res = r.result as ShellResult;
    assert.equal(res.sandbox?.profile, 'workspace-write');
    assert.ok(Date.now() - t0 < 5000, `it ran ${Date.now() - t0} ms`);
    assert.equal(res.signal, 'SIGKILL');
    assert.ok(res.stdout.startsWith(`${m}\n${m}\n`));
    assert.ok(await eventually(() => processesWith(m).length === 0), 'yes is still running');
  });

  test('a line goes on as sh would after a step that was ended: `;` runs the next, `&&` does not', async () => {
    if (!haveBwrap) return;
    const r = await gateFor().call('local_shell', { command: 'cat /dev/zero ; echo after-semicolon && echo after-and' });
    const res = r.result as ShellResult;
    assert.deepEqual(res.steps?.map((s) => [s.command, s.exit_code, s.signal ?? null]), [
      ['cat /dev/zero', null, 'SIGKILL'],
      ['echo after-semicolon', 0, null],
      ['echo after-and', 0, null],
    ]);
    const r2 = await gateFor().call('local_shell', { command: 'cat /dev/zero && echo never-runs' });
    assert.doesNotMatch((r2.result as ShellResult).stdout, /never-runs/);
  });

  test('control: output under the cap runs to its end with its own exit code, uncut', async () => {
    if (!haveBwrap) return;
    writeFileSync(path.join(ws, 'lines.txt'), Array.from({ length: 5000 }, (_, i) => `${i + 1}\n`).join(''));
    const r = await gateFor().call('local_shell', { command: 'cat lines.txt' });
    const res = r.result as ShellResult;
    assert.equal(res.sandbox?.profile, 'read-only');
    assert.equal(res.exit_code, 0);
    assert.equal(res.truncated, undefined);
    assert.equal(res.signal, undefined);
    assert.equal(res.stdout.split('\n').filter(Boolean).length, 5000);
    assert.doesNotMatch(res.stderr, /was ended/);
    const fail = await gateFor().call('local_shell', { command: 'ls no-such-file' });
    assert.equal((fail.result as ShellResult).exit_code, 2);
  });
});

describe("the client's terminal host", () => {
  test('ends a terminal at its cap when the agent asks (cxl/outputLimit), and says so on wait_for_exit; without the ask it keeps running (ACP: the output is cut from the start)', async () => {
    const h = new TerminalHost(ws, () => {}, { mode: 'off' });
    const asked = marker();
    const t0 = Date.now();
    const id = h.create({ command: 'yes', args: [asked], outputByteLimit: CAP, _meta: { [META_OUTPUT_LIMIT]: true } });
    const exit = await h.waitForExit(id);
    assert.ok(Date.now() - t0 < 5000, `it ran ${Date.now() - t0} ms`);
    assert.equal(exit.signal, 'SIGKILL');
    assert.deepEqual(exit._meta, { [META_OUTPUT_LIMIT]: CAP });
    assert.equal(h.output(id).truncated, true);
    h.release(id);

    const plain = marker();
    const id2 = h.create({ command: 'yes', args: [plain], outputByteLimit: CAP });
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(h.output(id2).truncated, true, 'it passed the cap');
    assert.equal(h.output(id2).exitStatus, undefined, 'and still runs, as ACP has it');
    h.release(id2);
    assert.ok(await eventually(() => processesWith(plain).length === 0));
  });
});

/** cxl's agent side (ClientTerminalHost) talking to cxl's client side (TerminalHost) directly, as ACP would carry it. */
function wired(h: TerminalHost): AcpTerminalClient {
  return {
    create: async (p) => ({ terminalId: h.create(p) }),
    output: async (p) => h.output(p.terminalId),
    waitForExit: (p) => h.waitForExit(p.terminalId),
    kill: async (p) => h.kill(p.terminalId),
    release: async (p) => h.release(p.terminalId),
  };
}

test("local_shell on the client's terminals: the agent asks for the end at the cap, the client ends it and says so, and the result says it was ended", async () => {
  const h = new TerminalHost(ws, () => {}, { mode: 'off' });
  const m = marker();
  const shell = new LocalShell({ root: ws, host: new ClientTerminalHost(wired(h), { sessionId: 's' }), outputLimit: CAP });
  const t0 = Date.now();
  const r = (await shell.call('local_shell', { command: 'yes', args: [m], timeout: '20s' })) as ShellResult;
  assert.ok(Date.now() - t0 < 5000, `it ran ${Date.now() - t0} ms`);
  assert.equal(r.signal, 'SIGKILL');
  assert.match(r.stderr, new RegExp(`was ended once its output passed ${CAP} bytes`));
  assert.ok(await eventually(() => processesWith(m).length === 0));
  // control: under the cap, the client's terminal runs to its own end
  const ok = (await shell.call('local_shell', { command: 'ls', args: ['no-such-file'] })) as ShellResult;
  assert.equal(ok.exit_code, 2);
  assert.doesNotMatch(ok.stderr, /was ended/);
});
