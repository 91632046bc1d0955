// The bounds of a command nobody approved, met the way a cloned repository's test suite would
// meet them when run unasked by `node --test`: a fork bomb (depth-bounded, so that without the
// limit it would make ~4,000 processes, not take the machine; its leaves sleep until the test has
// seen a fork refused, so a slow machine that builds the tree slowly still reaches the limit), an allocation past the memory
// bound, a busy loop past the CPU bound, and a test that outlives the wall-clock bound it
// cannot raise. The host must stay responsive throughout: this process's own timer keeps ticking.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, describe, test } from 'node:test';
import { buildEnvelope } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { isToolError } from '../../../src/core/errors.ts';
import { Gate } from '../../../src/core/gate/gate.ts';
import type { ShellResult } from '../../../src/core/shell/runner.ts';
import { LocalShell } from '../../../src/core/shell/local_shell.ts';
import { prlimitArgs, ulimitLines, UNASKED_LIMITS, type Limits } from '../../../src/core/shell/sandbox/limits.ts';
import { findOnPath, hasBwrap } from '../../helpers/system_tools.ts';
import { processesWith } from './helpers.ts';

const ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'cxl-limits-')));
after(() => rmSync(ws, { recursive: true, force: true }));
mkdirSync(path.join(ws, 'test'));

function testFile(name: string, body: string): string {
  writeFileSync(path.join(ws, 'test', name), `const { execFileSync, spawn, spawnSync } = require('node:child_process');\nrequire('node:test').test('${name}', () => {\n${body}\n});\n`);
  return `node --test test/${name}`;
}

function gateFor(limits: Partial<Limits> = {}) {
  const gate = new Gate({ envelope: buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES), root: ws });
  gate.add(new LocalShell({ root: ws, unaskedLimits: limits }));
  return gate;
}

/**
 * Runs `run` while watching this process's timer: the longest wait past its 100 ms period for a
 * tick (the time `each` itself takes, a look at /proc, is not counted).
 */
async function watched<T>(run: () => Promise<T>, each?: () => void): Promise<{ value: T; worstTickMs: number }> {
  let last = Date.now();
  let worst = 0;
  const timer = setInterval(() => {
    worst = Math.max(worst, Date.now() - last - 100);
    each?.();
    last = Date.now();
  }, 100);
  try {
    return { value: await run(), worstTickMs: worst };
  } finally {
    clearInterval(timer);
  }
}

const haveBwrap = hasBwrap('the limits tests (test/core/shell/sandbox_limits.test.ts)');
const havePrlimit = findOnPath('prlimit', process.env.PATH) !== undefined;

describe('an unasked command is bounded', () => {
  test('a fork bomb in a test run stops at the process limit, and the host stays responsive', async () => {
    if (!haveBwrap) return;
    assert.ok(havePrlimit, 'prlimit (util-linux) is needed on PATH for this test');
    const marker = `600.${process.pid}${Math.floor(Math.random() * 1e5)}`;
    // 2^11 leaves, each a subshell that forks two more below it: ~4,000 processes unbounded
    const bomb = `b() { if [ "$1" -eq 0 ]; then exec sleep ${marker}; fi; b $(($1 - 1)) & b $(($1 - 1)) & wait; }; b 11; echo bomb-ended`;
    // The test program waits for the shell's own "cannot fork" (or gives up after 60 s), lets the
    // watcher see the full tree for a second, then ends the whole process group.
    const line = testFile(
      'bomb.test.js',
      `  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', ${JSON.stringify(bomb)}], { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    const end = (seen) => { clearTimeout(giveUp); setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch {} console.log('BOMB ' + JSON.stringify(seen)); resolve(); }, 1000); };
    const giveUp = setTimeout(() => end(''), 60000);
    child.stderr.setEncoding('utf8').on('data', (d) => { const had = /fork/i.test(err); err += d; const l = err.split('\\n').find((x) => /fork/i.test(x)); if (l && !had) end(l); });
  });`,
    );
    let peak = 0;
    const { value: r, worstTickMs } = await watched(
      () => gateFor().call('local_shell', { command: line }),
      () => (peak = Math.max(peak, processesWith(`sleep ${marker}`).length)),
    );
    const out = (r.result as ShellResult).stdout;
    assert.equal(r.decision.rule, 'shell.prefix_allowlist', 'it ran unasked');
    assert.ok(peak > 50, `the bomb ran (${peak} sleeping leaves seen)`);
    assert.ok(peak < UNASKED_LIMITS.processes, `at most ${UNASKED_LIMITS.processes} tasks: saw ${peak} leaves`);
    assert.match(out, /BOMB ".*([Cc]annot fork|Resource temporarily unavailable)/, out);
    assert.ok(worstTickMs < 5000, `this process went ${worstTickMs} ms without a timer tick`);
    assert.equal(processesWith(`sleep ${marker}`).length, 0, 'nothing is left running');
  });

  test('memory past the bound fails in the command; the bound is per process and says so in /proc/self/limits', async () => {
    if (!haveBwrap) return;
    assert.ok(havePrlimit, 'prlimit (util-linux) is needed on PATH for this test');
    const mib = 256;
    const line = testFile(
      'alloc.test.js',
      `  console.log('LIMIT ' + require('node:fs').readFileSync('/proc/self/limits', 'utf8').split('\\n').find((l) => l.startsWith('Max data size')));
  const held = [];
  try { for (let i = 0; i < 16; i++) held.push(Buffer.alloc(64 * 1024 * 1024, 1)); console.log('ALLOCATED ' + held.length * 64 + ' MiB'); }
  catch (e) { console.log('REFUSED at ' + held.length * 64 + ' MiB: ' + e.message); }`,
    );
    const r = await gateFor({ dataBytes: mib * 1024 * 1024 }).call('local_shell', { command: line });
    const out = (r.result as ShellResult).stdout;
    assert.match(out, new RegExp(`LIMIT Max data size\\s+${mib * 1024 * 1024}\\s+${mib * 1024 * 1024}`));
    assert.match(out, /REFUSED at \d+ MiB/, out);
    assert.doesNotMatch(out, /ALLOCATED/);
  });

  test('a busy loop is killed at the CPU bound, long before its timeout', async () => {
    if (!haveBwrap) return;
    assert.ok(havePrlimit, 'prlimit (util-linux) is needed on PATH for this test');
    const line = testFile('spin.test.js', "  const r = spawnSync(process.execPath, ['-e', 'for (;;) {}']);\n  console.log('SPIN ' + r.signal);");
    const t0 = Date.now();
    const r = await gateFor({ cpuSeconds: 1 }).call('local_shell', { command: line, timeout: '2m' });
    assert.match((r.result as ShellResult).stdout, /SPIN SIG(XCPU|KILL)/);
    assert.ok(Date.now() - t0 < 60_000, `ended after ${Date.now() - t0} ms`);
  });

  test('the wall-clock bound cannot be raised by asking for a longer timeout; the message says why', async () => {
    if (!haveBwrap) return;
    const line = testFile('slow.test.js', "  execFileSync('sleep', ['30']);");
    const t0 = Date.now();
    const err = await gateFor({ timeoutMs: 3000 }).call('local_shell', { command: line, timeout: '1h' }).catch((e: unknown) => e);
    assert.ok(isToolError(err) && err.code === 'timeout', String(err));
    assert.match(err.message, /runs unasked is limited \(.*3 s in all\); one a human approves may run longer/);
    assert.ok(Date.now() - t0 < 20_000, `killed after ${Date.now() - t0} ms`);
  });
});

test('the limits as prlimit and as ulimit lines: never above this process\'s hard limit, memory in KiB for ulimit', () => {
  const limitsText = [
    'Limit                     Soft Limit           Hard Limit           Units',
    'Max cpu time              unlimited            unlimited            seconds',
    'Max data size             unlimited            1073741824           bytes',
    'Max processes             62987                62987                processes',
  ].join('\n');
  const l: Limits = { ...UNASKED_LIMITS, processes: 100_000, dataBytes: 4 * 1024 ** 3, cpuSeconds: 30 };
  assert.deepEqual(prlimitArgs('/usr/bin/prlimit', l, limitsText), ['/usr/bin/prlimit', '--nproc=62987', '--data=1073741824', '--cpu=30', '--']);
  assert.equal(ulimitLines(l, limitsText), 'ulimit -d 1048576 && ulimit -t 30');
});

test('a pids group whose name is taken (another copy of the module in this process) is made under the next name, not given up', async () => {
  const { pidsGroup } = await import('../../../src/core/shell/sandbox/cgroup.ts');
  const { note } = await import('../../helpers/system_tools.ts');
  const first = pidsGroup(8);
  if (!first) {
    note('no writable pids cgroup here (not root, or no delegated pids controller): the pids group naming test did not run');
    return;
  }
  const dir = path.dirname(first.procs);
  const [, stem, n] = /^(.*-)(\d+)$/.exec(dir)!;
  // what another copy of cgroup.ts in this process would hold: the next two free names (a name
  // above ours may already be held by such a copy, or be a group still being removed)
  const freeAbove = (k: number): number => (existsSync(`${stem}${k + 1}`) ? freeAbove(k + 1) : k + 1);
  const a = freeAbove(Number(n));
  const taken = [a, freeAbove(a)].map((k) => `${stem}${k}`);
  for (const t of taken) mkdirSync(t);
  try {
    const expected = `${stem}${freeAbove(Number(n))}`;
    const next = pidsGroup(8);
    assert.ok(next, 'a group is still made');
    assert.equal(path.dirname(next.procs), expected);
    assert.ok(!taken.includes(path.dirname(next.procs)));
    next.remove();
  } finally {
    first.remove();
    for (const t of taken) rmdirSync(t);
  }
});
