// A test runner the prefix allowlist runs unasked sees the workspace read-only. When it fails
// writing there (a cache, a snapshot), the failure is never silent: the person is asked whether to
// run it again writable; a yes runs it again and the write lands, a no or nobody to ask leaves the
// workspace as it was and tells the model the failure was the sandbox's. Real bubblewrap, a stub
// `pytest` that writes its cache in the workspace (a temp dir), and controls: a runner that fails
// for another reason, and one that passes, are never asked about.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { buildEnvelope } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { isToolError } from '../../../src/core/errors.ts';
import { Gate, type ApprovalAnswer, type ApprovalRequest, type Approver } from '../../../src/core/gate/gate.ts';
import { SessionAllows } from '../../../src/core/gate/session_allows.ts';
import { LocalShell } from '../../../src/core/shell/local_shell.ts';
import { hasBwrap } from '../../helpers/system_tools.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const WRITES_CACHE = '#!/bin/sh\nmkdir -p .pytest_cache && echo ok > .pytest_cache/v && echo "1 passed"\n';
const FAILS_PLAINLY = '#!/bin/sh\necho "1 failed: assert 1 == 2"; exit 1\n';
const PASSES = '#!/bin/sh\necho "1 passed"\n';

/** A workspace with a stub `pytest` (on the default envelope's prefix allowlist) in its own .bin. */
function workspace(script: string): { root: string; bin: string } {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'cxl-rowrite-')));
  dirs.push(root);
  const bin = path.join(root, '.bin');
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'pytest'), script);
  chmodSync(path.join(bin, 'pytest'), 0o755);
  return { root, bin };
}

function answering(...answers: ApprovalAnswer[]): Approver & { asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  const fn = async (req: ApprovalRequest): Promise<ApprovalAnswer> => {
    asked.push(req);
    return answers.shift() ?? { outcome: 'reject' };
  };
  return Object.assign(fn, { asked });
}

function gateFor(w: { root: string; bin: string }, approver?: Approver, session?: SessionAllows): Gate {
  const gate = new Gate({ envelope: buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES), ...(approver ? { approver } : {}), ...(session ? { session } : {}) });
  const PATH = `${w.bin}:${process.env.PATH}`;
  gate.add(new LocalShell({ root: w.root, pathEnv: PATH, env: { ...process.env, PATH, XDG_DATA_HOME: path.join(w.root, '.data') } }));
  return gate;
}

type Result = { exit_code: number; stdout: string; stderr: string; note?: string };

test('a yes runs the test again writable: its cache is written and the model reads that it was the second run', async () => {
  if (!hasBwrap('the read-only retry test')) return;
  const w = workspace(WRITES_CACHE);
  const a = answering({ outcome: 'allow_once' });
  const r = await gateFor(w, a).call('local_shell', { command: 'pytest -q' });
  assert.equal(r.decision.rule, 'shell.prefix_allowlist', 'it ran unasked first');
  assert.equal(a.asked.length, 1);
  assert.match(a.asked[0].title, /run `pytest -q` again with the workspace writable\?/);
  assert.match(a.asked[0].decision.sentence, /EROFS/);
  const res = r.result as Result;
  assert.equal(res.exit_code, 0, JSON.stringify(res));
  assert.match(res.note ?? '', /second run, with the workspace writable/);
  assert.equal(existsSync(path.join(w.root, '.pytest_cache', 'v')), true);
});

test('a no leaves the workspace read-only and tells the model the failure is the sandbox\'s, not the code\'s', async () => {
  if (!hasBwrap('the read-only retry test')) return;
  const w = workspace(WRITES_CACHE);
  const a = answering({ outcome: 'reject' });
  const res = (await gateFor(w, a).call('local_shell', { command: 'pytest -q' })).result as Result;
  assert.equal(a.asked.length, 1);
  assert.notEqual(res.exit_code, 0);
  assert.match(res.stderr, /Read-only file system/);
  assert.match(res.note ?? '', /the failure is the sandbox's, not the code's/);
  assert.match(res.note ?? '', /declined/);
  assert.equal(existsSync(path.join(w.root, '.pytest_cache')), false);
});

test('with nobody to ask the first result comes back with the note, at once', async () => {
  if (!hasBwrap('the read-only retry test')) return;
  const w = workspace(WRITES_CACHE);
  const res = (await gateFor(w).call('local_shell', { command: 'pytest -q' })).result as Result;
  assert.match(res.note ?? '', /nobody is here to approve/i);
  assert.equal(existsSync(path.join(w.root, '.pytest_cache')), false);
});

test('allow for this session: the next writable run is not asked again', async () => {
  if (!hasBwrap('the read-only retry test')) return;
  const w = workspace(WRITES_CACHE);
  const a = answering({ outcome: 'allow_session' });
  const gate = gateFor(w, a);
  await gate.call('local_shell', { command: 'pytest -q' });
  rmSync(path.join(w.root, '.pytest_cache'), { recursive: true });
  const res = (await gate.call('local_shell', { command: 'pytest -q' })).result as Result;
  assert.equal(a.asked.length, 1, 'asked once');
  assert.equal(res.exit_code, 0);
  assert.equal(existsSync(path.join(w.root, '.pytest_cache', 'v')), true);
});

test('controls: a test that fails for its own reason, and one that passes, are never asked about and carry no note', async () => {
  if (!hasBwrap('the read-only retry test')) return;
  for (const script of [FAILS_PLAINLY, PASSES]) {
    const w = workspace(script);
    const a = answering({ outcome: 'allow_once' });
    const res = (await gateFor(w, a).call('local_shell', { command: 'pytest -q' })).result as Result;
    assert.equal(a.asked.length, 0);
    assert.equal(res.note, undefined);
  }
});

test('a cancelled turn while the retry is asked is a cancel, not a note', async () => {
  if (!hasBwrap('the read-only retry test')) return;
  const w = workspace(WRITES_CACHE);
  const ac = new AbortController();
  const a: Approver = async (_req, signal) => {
    ac.abort();
    return await new Promise<ApprovalAnswer>((resolve) => signal.addEventListener('abort', () => resolve({ outcome: 'cancelled' })));
  };
  await assert.rejects(gateFor(w, a).call('local_shell', { command: 'pytest -q' }, { signal: ac.signal }), (e: unknown) => isToolError(e) && e.code === 'cancelled');
  assert.equal(existsSync(path.join(w.root, '.pytest_cache')), false);
});
