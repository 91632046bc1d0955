// The gate's order and its session allows for the argument rules: a call with unknown or
// missing arguments is bad_args before anything (never shown to a human), and "allow for this
// session" covers exactly what asked: a path for a line that asked because of a path, a program
// with the argument rules it was asked about otherwise.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { buildEnvelope, type EnvelopeSpec } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { isToolError } from '../../../src/core/errors.ts';
import { Gate, type ApprovalAnswer, type ApprovalRequest, type Approver } from '../../../src/core/gate/gate.ts';
import { LocalFsToolset } from '../../../src/core/local_fs/toolset.ts';
import { describeAllow, SessionAllows } from '../../../src/core/gate/session_allows.ts';
import { LocalShell } from '../../../src/core/shell/local_shell.ts';
import { DEFAULT_SHELL_POLICY } from '../../../src/core/shell/shell_policy.ts';
import type { Toolset } from '../../../src/core/contract/toolset.ts';
import type { ToolSpec } from '../../../src/core/tool.ts';

const roots: string[] = [];
after(() => {
  for (const d of roots) fs.rmSync(d, { recursive: true, force: true });
});

function workspace(files: Record<string, string>): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-gate-args-')));
  roots.push(root);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

function recorder(...answers: ApprovalAnswer[]): Approver & { requests: ApprovalRequest[] } {
  const requests: ApprovalRequest[] = [];
  return Object.assign(async (req: ApprovalRequest) => {
    requests.push(req);
    return answers.shift() ?? { outcome: 'reject' as const };
  }, { requests });
}

class Tools implements Toolset {
  readonly name = 'issues';
  calls = 0;
  list(): ToolSpec[] {
    return [{ toolset: 'issues', name: 'create', description: 'x', kind: 'other', inputSchema: { type: 'object', properties: { title: { type: 'string' }, n: { type: 'integer' } }, required: ['title'], additionalProperties: false } }];
  }
  async call() {
    this.calls++;
    return {};
  }
}

function gateFor(root: string, o: { approver?: Approver; policy?: boolean; envelope?: string; specs?: Record<string, EnvelopeSpec>; session?: SessionAllows } = {}) {
  const specs = { ...SHIPPED_ENVELOPES, ...(o.specs ?? {}) };
  const gate = new Gate({ envelope: buildEnvelope(o.envelope ?? 'default', specs, FLOOR_RULES), approver: o.approver, session: o.session });
  gate.add(new LocalFsToolset({ root, approvals: 'ask', grepEngine: 'builtin' }));
  gate.add(new LocalShell({ root, policy: o.policy === false ? undefined : { ...DEFAULT_SHELL_POLICY, _allowed_dir: '.' } }));
  return gate;
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (isToolError(err)) return err.code;
    throw err;
  }
}

describe('arguments are checked before the envelope: bad_args is never an ask', () => {
  const cases: [string, string, Record<string, unknown>][] = [
    ['edit_file with old_text for old_string', 'edit_file', { path: 'a.txt', old_text: 'a', new_string: 'b' }],
    ['edit_file without new_string', 'edit_file', { path: 'a.txt', old_string: 'a' }],
    ['write_file with a number for content', 'write_file', { path: 'n.txt', content: { x: 1 } }],
    ['write_file without a path', 'write_file', { content: 'x' }],
    ['local_shell with an unknown argument', 'local_shell', { command: 'rm -rf x', sudo: true }],
    ['local_shell without a command', 'local_shell', { cwd: '.' }],
    ['another toolset: an argument its schema does not have', 'issues.create', { title: 'x', body: 'y' }],
    ['another toolset: a missing required argument', 'issues.create', { n: 1 }],
    ['another toolset: the wrong type', 'issues.create', { title: 'x', n: 'one' }],
  ];
  for (const [what, tool, args] of cases) {
    test(what, async () => {
      const root = workspace({ 'a.txt': 'a\n' });
      const approver = recorder({ outcome: 'allow_once' });
      const gate = gateFor(root, { approver, envelope: 'ask_always' });
      const issues = new Tools();
      gate.add(issues);
      await gate.call('read_file', { path: 'a.txt' });
      assert.equal(await codeOf(gate.call(tool, args)), 'bad_args');
      assert.equal(approver.requests.length, 0, 'nobody was asked');
      assert.equal(issues.calls, 0);
      assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'a\n');
    });
  }
});

describe('allow for this session is as narrow as the ask', () => {
  test('`cat .env` allowed for the session covers .env, not `cat server.pem`', async () => {
    const root = workspace({ '.env': 'A=1\n', 'server.pem': 'x\n', 'a.txt': 'a\n' });
    const approver = recorder({ outcome: 'allow_session' }, { outcome: 'reject' });
    const gate = gateFor(root, { approver });
    const first = await gate.call('local_shell', { command: 'cat .env' });
    assert.equal(first.approvedBy, 'human-session');
    assert.deepEqual(approver.requests[0].sessionScope, [{ kind: 'file', axis: 'files.read', path: '.env' }]);
    assert.deepEqual(gate.session.describe(), ['read .env']);
    assert.equal((await gate.call('local_shell', { command: 'cat .env' })).approvedBy, 'session', 'the same path: covered');
    assert.equal(await codeOf(gate.call('local_shell', { command: 'cat server.pem' })), 'rejected', 'another read-approve path asks again');
    assert.equal(approver.requests.length, 2);
    assert.equal((await gate.call('local_shell', { command: 'cat a.txt' })).decision.rule, 'shell.prefix_allowlist');
  });
  test('a link to .env is .env: one allow covers both names', async () => {
    const root = workspace({ '.env': 'A=1\n' });
    fs.symlinkSync('.env', path.join(root, 'notes'));
    const gate = gateFor(root, { approver: recorder({ outcome: 'allow_session' }) });
    await gate.call('local_shell', { command: 'cat .env' });
    const ev = await gate.evaluate('local_shell', { command: 'cat notes' });
    assert.deepEqual([ev.decision.action, ev.coveredBySession], ['approve', true]);
  });
  test('a program asked about because of a flag: the session covers that flag, not another', async () => {
    const root = workspace({ 'a.txt': 'a\n' });
    const specs: Record<string, EnvelopeSpec> = { finder: { shell: { grant: { grant: 'approve' }, prefix_allowlist: ['find', 'ls'] } } };
    const gate = gateFor(root, { policy: false, specs, envelope: 'finder' });
    const plain = await gate.evaluate('local_shell', { command: 'find . -newer a.txt -ls' });
    assert.equal(plain.decision.rule, 'shell.prefix_allowlist', 'only harmless primaries: read-only');
    const ev = await gate.evaluate('local_shell', { command: 'find . -delete' });
    assert.equal(ev.decision.argRule?.rule, 'find -delete');
    assert.deepEqual(ev.sessionScope, [{ kind: 'command', program: 'find', notes: ['find -delete'] }]);
    // the human's "allow for this session" (added as the gate adds it; the line is never run here)
    for (const s of ev.sessionScope) gate.session.add(s);
    assert.equal((await gate.evaluate('local_shell', { command: 'find src -name x -delete' })).coveredBySession, true);
    const exec = await gate.evaluate('local_shell', { command: "find . -exec sh x ';'" });
    assert.deepEqual([exec.decision.action, exec.coveredBySession], ['approve', false], 'find -exec was never allowed');
    assert.equal((await gate.evaluate('local_shell', { command: 'find . -delete -fprint out' })).coveredBySession, false);
    assert.deepEqual(gate.session.describe(), ['run find … (with find -delete)']);
  });
  test('a plain ask for a program (rm in ask_always) is program-wide, but a path outside the root still asks', async () => {
    const root = workspace({ 'a.txt': 'a\n' });
    const gate = gateFor(root, { policy: false });
    const ev = await gate.evaluate('local_shell', { command: 'rm a.txt' });
    assert.deepEqual(ev.sessionScope.map(describeAllow), ['run rm …']);
    for (const s of ev.sessionScope) gate.session.add(s);
    assert.equal((await gate.evaluate('local_shell', { command: 'rm other.txt' })).coveredBySession, true);
    assert.equal((await gate.evaluate('local_shell', { command: 'rm /etc/hosts' })).coveredBySession, false);
  });
  test('allows saved by an older session (no argument rules) still load and cover only plain uses', () => {
    const s = SessionAllows.fromJSON([{ kind: 'command', program: 'git', subcommand: 'push' }, { kind: 'command', program: 'x', notes: [1] }]);
    assert.deepEqual(s.describe(), ['run git push …']);
    assert.equal(s.covers({ kind: 'command', program: 'git', subcommand: 'push' }), true);
    assert.equal(s.covers({ kind: 'command', program: 'git', subcommand: 'push', notes: ['git push --receive-pack'] }), false);
  });
});

describe('the built-in read-approve list asks for shell lines in every envelope, as for the file tools', () => {
  test('an envelope that allows every command still asks before `cat .env` runs', async () => {
    const root = workspace({ '.env': 'A=1\n' });
    const specs: Record<string, EnvelopeSpec> = { open: { shell: { bare: true, grant: { grant: 'allow' } } } };
    const approver = recorder({ outcome: 'reject' });
    const gate = gateFor(root, { specs, envelope: 'open', approver });
    assert.equal((await gate.evaluate('local_shell', { command: 'cat a.txt' })).decision.action, 'allow');
    assert.equal(await codeOf(gate.call('local_shell', { command: 'cat .env' })), 'rejected');
    assert.equal(approver.requests[0].decision.from, 'built-in');
    assert.deepEqual(approver.requests[0].locations, ['.env']);
  });
  test('nobody to ask: the command policy refuses what would need a human', async () => {
    const root = workspace({ '.env': 'A=1\n' });
    const gate = gateFor(root);
    await assert.rejects(gate.call('local_shell', { command: 'cat .env' }), (e: { code: string; details?: Record<string, unknown> }) => e.code === 'approval_required' && e.details?.rule === 'needs-approval');
  });
});
