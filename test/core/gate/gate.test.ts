import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildEnvelope, type EnvelopeSpec } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { isToolError, type ToolError } from '../../../src/core/errors.ts';
import { WorkspaceFileIO, type FileIO } from '../../../src/core/local_fs/file_io.ts';
import { shellDecision } from '../../../src/cli/line_verdict.ts';
import { Gate, type ApprovalAnswer, type ApprovalRequest, type Approver } from '../../../src/core/gate/gate.ts';
import { LocalFsToolset } from '../../../src/core/local_fs/toolset.ts';
import { SessionAllows } from '../../../src/core/gate/session_allows.ts';
import { checkLine, type Allowed } from '../../../src/core/shell/checker.ts';
import { LocalShell } from '../../../src/core/shell/local_shell.ts';
import { DEFAULT_SHELL_POLICY, SHIPPED_SHELL_POLICY } from '../../../src/core/shell/shell_policy.ts';
import { stubBin } from '../shell/helpers.ts';
import type { Toolset } from '../../../src/core/contract/toolset.ts';
import type { ToolSpec } from '../../../src/core/tool.ts';

const tmpRoots: string[] = [];
after(() => {
  for (const d of tmpRoots) fs.rmSync(d, { recursive: true, force: true });
});

function workspace(files: Record<string, string> = {}): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-gate-')));
  tmpRoots.push(root);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

/** A toolset of another kind (what an MCP server's tools look like to the gate). */
class EchoToolset implements Toolset {
  readonly calls: Record<string, unknown>[] = [];
  constructor(readonly name: string) {}
  list(): ToolSpec[] {
    return [{ toolset: this.name, name: 'create_issue', description: 'echo', inputSchema: { type: 'object', properties: {} }, kind: 'other' }];
  }
  async call(_tool: string, args: Record<string, unknown>): Promise<unknown> {
    this.calls.push(args);
    return { ok: true, args };
  }
}

/** An approver that records each request and answers from a script. */
function scripted(...answers: (ApprovalAnswer | 'never')[]): Approver & { requests: ApprovalRequest[]; signals: AbortSignal[] } {
  const requests: ApprovalRequest[] = [];
  const signals: AbortSignal[] = [];
  const fn = async (req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> => {
    requests.push(req);
    signals.push(signal);
    const a = answers.shift() ?? { outcome: 'reject' };
    if (a === 'never') return new Promise(() => {});
    return a;
  };
  return Object.assign(fn, { requests, signals });
}

function gateFor(root: string, opts: { envelope?: string; specs?: Record<string, EnvelopeSpec>; approver?: Approver; yes?: boolean; shellPolicy?: Record<string, string>; session?: SessionAllows; extra?: Toolset[] } = {}) {
  const specs = { ...SHIPPED_ENVELOPES, ...(opts.specs ?? {}) };
  const gate = new Gate({ envelope: buildEnvelope(opts.envelope ?? 'default', specs, FLOOR_RULES), approver: opts.approver, autoApprove: opts.yes, session: opts.session });
  gate.add(new LocalFsToolset({ root, approvals: 'ask', grepEngine: 'builtin' }));
  gate.add(new LocalShell({ root, policy: opts.shellPolicy }));
  for (const t of opts.extra ?? []) gate.add(t);
  return gate;
}

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (isToolError(err)) return err.code;
    throw err;
  }
  return 'ok';
}

describe('quarantine through the real gate and local_fs', () => {
  test('a symlink named notes pointing at .ssh/id_ed25519 is still quarantined', async () => {
    const root = workspace({ '.ssh/id_ed25519': 'PRIVATE KEY' });
    fs.symlinkSync('.ssh/id_ed25519', path.join(root, 'notes'));
    const approver = scripted({ outcome: 'allow_once' });
    const gate = gateFor(root, { envelope: 'auto_edit', approver });
    assert.equal(await code(gate.call('read_file', { path: 'notes' })), 'quarantined');
    assert.equal(await code(gate.call('local_fs.stat_file', { path: 'notes' })), 'quarantined');
    assert.equal(approver.requests.length, 0, 'refused before anyone is asked');
  });
  test('the shell sees it too: `cat notes` is refused by the command policy, and denied by the envelope without one', async () => {
    const root = workspace({ '.ssh/id_ed25519': 'PRIVATE KEY' });
    fs.symlinkSync('.ssh/id_ed25519', path.join(root, 'notes'));
    const open = gateFor(root, { approver: scripted({ outcome: 'allow_once' }) });
    const ev = await open.evaluate('local_shell', { command: 'cat notes' });
    assert.deepEqual([ev.decision.action, ev.decision.rule], ['deny', 'always_deny']);
    assert.equal(await code(open.call('local_shell', { command: 'cat notes' })), 'envelope_denied');
    const policed = gateFor(root, { shellPolicy: { ...DEFAULT_SHELL_POLICY, _allowed_dir: root }, approver: scripted({ outcome: 'allow_once' }) });
    await assert.rejects(policed.call('local_shell', { command: 'cat notes' }), (e: ToolError) => e.code === 'policy_refused' && e.details?.rule === 'path-quarantine');
  });
  test('`cxl check`\'s decision (shellDecision) resolves argument words through symlinks from each step\'s cwd, as the gate does', () => {
    const root = workspace({ '.ssh/id_ed25519': 'PRIVATE KEY', 'sub/readme': 'x' });
    fs.symlinkSync('../.ssh/id_ed25519', path.join(root, 'sub', 'notes'));
    const env = buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES);
    // the command policy refuses it itself (no deny list: the quarantine is a path rule)
    const refused = checkLine('cd sub && cat notes', { allowedCommands: ['cat'], allowedDir: root }, { cwd: root });
    assert.deepEqual([refused.verdict, refused.verdict === 'refuse' && refused.rule], ['refuse', 'path-quarantine']);
    const decision = (line: string) => {
      const v = checkLine(line, { allowedCommands: ['cat'], allowedDir: root }, { cwd: root });
      assert.equal(v.verdict, 'allow', line);
      return shellDecision(env, line, v as Allowed, root);
    };
    assert.equal(decision('cat notes').rule, 'shell.prefix_allowlist', 'no notes at the root: nothing to resolve');
    assert.equal(decision('cd sub && cat readme').action, 'allow');
  });
  test('an MCP tool with a quarantined path argument is denied by the floor', async () => {
    const root = workspace();
    const gh = new EchoToolset('github');
    const gate = gateFor(root, { extra: [gh], specs: { open: { tools: { github: { grant: 'allow' } } } }, envelope: 'open' });
    assert.equal(await code(gate.call('github.create_issue', { path: 'home/u/.ssh/id_rsa' })), 'envelope_denied');
    assert.equal(gh.calls.length, 0);
  });
});

describe('the approval pipeline', () => {
  test('a write asks with the diff; allow once writes, and the next write asks again', async () => {
    const root = workspace({ 'a.txt': 'one\ntwo\nthree\n' });
    const approver = scripted({ outcome: 'allow_once' }, { outcome: 'allow_once' });
    const gate = gateFor(root, { approver });
    await gate.call('read_file', { path: 'a.txt' });
    const r = await gate.call('edit_file', { path: 'a.txt', old_string: 'two', new_string: 'TWO' });
    assert.equal(r.approvedBy, 'human');
    assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'one\nTWO\nthree\n');
    const req = approver.requests[0];
    assert.equal(req.title, 'local_fs.edit_file: a.txt');
    assert.equal(req.decision.rule, 'files.write');
    assert.match(req.diff!.diff!, /^-two$/m);
    assert.match(req.diff!.diff!, /^\+TWO$/m);
    assert.deepEqual(req.sessionScope, [{ kind: 'file', axis: 'files.write', path: 'a.txt' }]);
    await gate.call('edit_file', { path: 'a.txt', old_string: 'one', new_string: 'ONE' });
    assert.equal(approver.requests.length, 2);
  });
  test('asking about an edit reads the file once for the contract check and the diff', async () => {
    const root = workspace({ 'a.txt': 'one\ntwo\nthree\n' });
    const approver = scripted({ outcome: 'allow_once' });
    const gate = new Gate({ envelope: buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES), approver });
    const disk = new WorkspaceFileIO(root);
    const reads: string[] = [];
    const io: FileIO = { kind: 'workspace', read: (f, o) => (reads.push(f.rel), disk.read(f, o)), write: (f, d, o) => disk.write(f, d, o) };
    gate.add(new LocalFsToolset({ root, io, approvals: 'ask', grepEngine: 'builtin' }));
    await gate.call('read_file', { path: 'a.txt' });
    reads.length = 0;
    await gate.call('edit_file', { path: 'a.txt', old_string: 'two', new_string: 'TWO' });
    assert.equal(approver.requests[0].diff!.diff, '--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three');
    // one read before the ask (contract and diff), one by the edit itself after the answer
    assert.deepEqual(reads, ['a.txt', 'a.txt']);
    assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'one\nTWO\nthree\n');
  });
  test('a new file shows as all additions', async () => {
    const root = workspace();
    const approver = scripted({ outcome: 'allow_once' });
    await gateFor(root, { approver }).call('write_file', { path: 'src/new.ts', content: 'a\nb\n' });
    assert.equal(approver.requests[0].diff!.isNew, true);
    assert.match(approver.requests[0].diff!.diff!, /^\+a$/m);
    assert.equal(fs.readFileSync(path.join(root, 'src/new.ts'), 'utf8'), 'a\nb\n');
  });
  test('reject, and reject with a reason for the model; nothing is written', async () => {
    const root = workspace({ 'a.txt': 'x\n' });
    const approver = scripted({ outcome: 'reject' }, { outcome: 'reject', reason: 'use b.txt instead' });
    const gate = gateFor(root, { approver });
    await gate.call('read_file', { path: 'a.txt' });
    await assert.rejects(gate.call('write_file', { path: 'a.txt', content: 'y\n' }), (e: Error) => isToolError(e) && e.code === 'rejected' && /Do not retry it unchanged/.test(e.message));
    await assert.rejects(gate.call('write_file', { path: 'a.txt', content: 'y\n' }), (e: Error) => isToolError(e) && e.code === 'rejected' && /Their reason: use b\.txt instead/.test(e.message));
    assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'x\n');
  });
  test('allow for this session is scoped to the file; it is listed and survives serialisation', async () => {
    const root = workspace({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const approver = scripted({ outcome: 'allow_session' }, { outcome: 'allow_once' });
    const gate = gateFor(root, { approver });
    await gate.call('read_file', { path: 'a.txt' });
    await gate.call('write_file', { path: 'a.txt', content: 'a2\n' });
    await gate.call('read_file', { path: 'a.txt' });
    const again = await gate.call('write_file', { path: 'a.txt', content: 'a3\n' });
    assert.equal(again.approvedBy, 'session');
    assert.equal(approver.requests.length, 1);
    await gate.call('read_file', { path: 'b.txt' });
    await gate.call('write_file', { path: 'b.txt', content: 'b2\n' });
    assert.equal(approver.requests.length, 2, 'another file asks again');
    assert.deepEqual(gate.session.describe(), ['write a.txt']);
    const restored = SessionAllows.fromJSON(JSON.parse(JSON.stringify(gate.session)));
    const later = gateFor(root, { session: restored });
    const ev = await later.evaluate('write_file', { path: 'a.txt', content: 'x' });
    assert.equal(ev.coveredBySession, true);
  });
  test('shell: allow for this session covers the program + subcommand, not other programs', async () => {
    const root = workspace({ 'x1': '', 'x2': '', 'x3': '' });
    const approver = scripted({ outcome: 'allow_session' }, { outcome: 'reject' });
    const gate = gateFor(root, { approver, shellPolicy: { ...DEFAULT_SHELL_POLICY, _allowed_dir: root } });
    const r = await gate.call('local_shell', { command: 'ls && rm x1' });
    assert.equal(r.approvedBy, 'human-session');
    assert.deepEqual(approver.requests[0].steps, ['ls', 'rm x1']);
    assert.equal(approver.requests[0].decision.sentence, 'approve: shell program `rm` is in ask_always of envelope default');
    assert.deepEqual(gate.session.describe(), ['run ls …', 'run rm …']);
    assert.equal((await gate.call('local_shell', { command: 'rm x2' })).approvedBy, 'session');
    assert.equal(fs.existsSync(path.join(root, 'x2')), false);
    assert.equal(await code(gate.call('local_shell', { command: 'chmod 600 x3' })), 'rejected');
  });
  test('an unanswered ask times out as deny and the approver is told to stop', async () => {
    const root = workspace();
    const approver = scripted('never');
    const gate = gateFor(root, { approver, envelope: 'quick', specs: { quick: { extends: 'default', files: { write: { grant: { grant: 'approve' }, timeoutMs: 60 } } } } });
    const t0 = Date.now();
    await assert.rejects(gate.call('write_file', { path: 'n.txt', content: 'x' }), (e: Error) => isToolError(e) && e.code === 'approval_required' && e.details?.timedOut === true && /within 0s|within \d+s/.test(e.message));
    assert.ok(Date.now() - t0 < 5000);
    assert.equal(approver.signals[0].aborted, true);
    assert.equal(fs.existsSync(path.join(root, 'n.txt')), false);
  });
  test('an ask whose envelope sets no timeout waits for its answer (no deadline), and a late answer counts', async () => {
    const root = workspace();
    const requests: ApprovalRequest[] = [];
    const approver: Approver = (req) => {
      requests.push(req);
      return new Promise((resolve) => setTimeout(() => resolve({ outcome: 'allow_once' }), 300));
    };
    const r = await gateFor(root, { approver }).call('write_file', { path: 'n.txt', content: 'x' });
    assert.equal(r.approvedBy, 'human');
    assert.equal(requests[0].timeoutMs, Infinity);
    assert.equal(fs.readFileSync(path.join(root, 'n.txt'), 'utf8'), 'x');
  });
  test('without an approver, approve refuses; --yes approves; deny denies whatever', async () => {
    const root = workspace();
    assert.equal(await code(gateFor(root).call('write_file', { path: 'n.txt', content: 'x' })), 'approval_required');
    assert.equal(fs.existsSync(path.join(root, 'n.txt')), false);
    const yes = await gateFor(root, { yes: true }).call('write_file', { path: 'n.txt', content: 'x' });
    assert.equal(yes.approvedBy, 'yes');
    assert.equal(fs.readFileSync(path.join(root, 'n.txt'), 'utf8'), 'x');
    assert.equal(await code(gateFor(root, { yes: true, envelope: 'read_only' }).call('write_file', { path: 'm.txt', content: 'x' })), 'envelope_denied');
    assert.equal(await code(gateFor(root, { yes: true }).call('write_file', { path: '.git/hooks/pre-commit', content: 'x' })), 'envelope_denied');
  });
  test('tools_policies refuse before anyone is asked', async () => {
    const root = workspace();
    const approver = scripted({ outcome: 'allow_once' });
    const gate = gateFor(root, { approver, shellPolicy: DEFAULT_SHELL_POLICY });
    assert.equal(await code(gate.call('local_shell', { command: 'ls | wc -l' })), 'policy_refused');
    assert.equal(await code(gate.call('local_shell', { command: 'sudo ls' })), 'policy_refused');
    assert.equal(await code(gate.call('read_file', { path: '../outside' })), 'escape');
    assert.equal(approver.requests.length, 0);
  });
  test('read-only and test commands of the default envelope run without asking', async () => {
    const root = workspace({ 'f.txt': 'hello\n' });
    const approver = scripted();
    const gate = gateFor(root, { approver, shellPolicy: { ...DEFAULT_SHELL_POLICY, _allowed_dir: root } });
    const r = await gate.call('local_shell', { command: 'cat f.txt && echo done' });
    assert.match(JSON.stringify(r.result), /hello/);
    assert.equal(r.decision.rule, 'shell.prefix_allowlist');
    assert.equal(approver.requests.length, 0);
  });
  test('an opaque line without a policy asks and offers no session allow', async () => {
    const root = workspace();
    const approver = scripted({ outcome: 'allow_session' });
    const gate = gateFor(root, { approver });
    const r = await gate.call('local_shell', { command: 'echo $(echo hi)' });
    assert.equal(approver.requests[0].decision.rule, 'shell');
    assert.deepEqual(approver.requests[0].sessionScope, []);
    assert.equal(r.approvedBy, 'human');
    assert.deepEqual(gate.session.list(), []);
  });
});

describe('read-approve paths', () => {
  test('.env asks once in the default envelope; the tool does not ask again', async () => {
    const root = workspace({ '.env': 'TOKEN=1\n' });
    const approver = scripted({ outcome: 'allow_once' });
    const r = await gateFor(root, { approver }).call('read_file', { path: '.env' });
    assert.match(String(r.result), /TOKEN=1/);
    assert.equal(approver.requests.length, 1);
    assert.equal(approver.requests[0].decision.rule, 'files.read.approve_paths');
  });
  test('an envelope that allows every read still meets the built-in list: the approver is asked', async () => {
    const root = workspace({ 'k.pem': 'KEY\n' });
    const approver = scripted({ outcome: 'reject' });
    const gate = gateFor(root, { approver, envelope: 'open', specs: { open: { files: { read: { bare: true, grant: { grant: 'allow' } } } } } });
    assert.equal(await code(gate.call('read_file', { path: 'k.pem' })), 'rejected');
    assert.equal(approver.requests.length, 1);
    assert.match(approver.requests[0].decision.sentence, /built-in read-approve list/);
    assert.equal(await code(gateFor(root, { envelope: 'open', specs: { open: { files: { read: { bare: true, grant: { grant: 'allow' } } } } } }).call('read_file', { path: 'k.pem' })), 'approval_required');
  });
});

describe('MCP-style tools', () => {
  test('fall to default_action until named under tools', async () => {
    const root = workspace();
    const gh = new EchoToolset('github');
    const approver = scripted({ outcome: 'allow_session' });
    const gate = gateFor(root, { approver, extra: [gh] });
    const r = await gate.call('github.create_issue', { title: 't' });
    assert.equal(r.decision.rule, 'default_action');
    assert.deepEqual(approver.requests[0].sessionScope, [{ kind: 'tool', tool: 'github.create_issue' }]);
    assert.equal((await gate.call('github.create_issue', { title: 'u' })).approvedBy, 'session');
    const strict = gateFor(root, { envelope: 'strict', extra: [gh] });
    assert.equal(await code(strict.call('github.create_issue', {})), 'envelope_denied');
    const named = gateFor(root, { envelope: 'gh', specs: { gh: { extends: 'strict', tools: { 'github.create_issue': { grant: 'allow' } } } }, extra: [gh] });
    assert.equal((await named.call('github.create_issue', { title: 'v' })).decision.rule, 'tools');
    assert.equal(gh.calls.length, 3);
  });
});

test('session scopes: program + subcommand where the program has subcommands, else the program', async () => {
  const { commandScope } = await import('../../../src/core/gate/session_allows.ts');
  assert.deepEqual(commandScope(['git', 'commit', '-m', 'x']), { kind: 'command', program: 'git', subcommand: 'commit' });
  assert.equal(commandScope(['git', '-C', 'x', 'push']), null);
  assert.equal(commandScope(['git']), null);
  assert.deepEqual(commandScope(['rm', 'x1']), { kind: 'command', program: 'rm' });
  const s = new SessionAllows([commandScope(['git', 'commit', '-m', 'x'])!]);
  assert.equal(s.coversArgv(['git', 'commit', '--amend']), true);
  assert.equal(s.coversArgv(['git', 'push']), false);
  assert.equal(s.coversArgv(['git']), false);
  assert.deepEqual(SessionAllows.fromJSON([{ kind: 'command', program: '' }, { kind: 'tool', tool: '*' }, { kind: 'file', axis: 'files.write', path: 'a' }]).list(), [{ kind: 'file', axis: 'files.write', path: 'a' }]);
});

test('a cancelled call stops waiting for its approval; a failing approver counts as a rejection', async () => {
  const root = workspace();
  const approver = scripted('never');
  const gate = gateFor(root, { approver });
  const ac = new AbortController();
  const pending = gate.call('write_file', { path: 'n.txt', content: 'x' }, { signal: ac.signal });
  setTimeout(() => ac.abort(), 30);
  assert.equal(await code(pending), 'cancelled');
  assert.equal(approver.signals[0].aborted, true);
  const broken = gateFor(root, { approver: async () => { throw new Error('client went away'); } });
  await assert.rejects(broken.call('write_file', { path: 'n.txt', content: 'x' }), /client went away\); it counts as rejected/);
  assert.equal(fs.existsSync(path.join(root, 'n.txt')), false);
});

test('a cd into the quarantine, or a file reached through one, is refused by a policy and denied without one', async () => {
  const root = workspace({ '.ssh/known_hosts': 'h\n', 'src/a.txt': 'a\n' });
  const open = gateFor(root, { yes: true });
  assert.equal((await open.evaluate('local_shell', { command: 'cd .ssh && ls' })).decision.rule, 'always_deny');
  assert.equal((await open.evaluate('local_shell', { command: 'cd src && cd ../.ssh && cat known_hosts' })).decision.rule, 'always_deny');
  assert.equal((await open.evaluate('local_shell', { command: 'cd src && cat a.txt' })).decision.action, 'allow');
  const policed = gateFor(root, { shellPolicy: { ...DEFAULT_SHELL_POLICY, _allowed_dir: root }, yes: true });
  for (const command of ['cd .ssh && ls', 'cd src && cd ../.ssh && cat known_hosts']) {
    await assert.rejects(policed.evaluate('local_shell', { command }), (e: ToolError) => e.code === 'policy_refused' && e.details?.rule === 'path-quarantine', command);
  }
  assert.equal((await policed.evaluate('local_shell', { command: 'cd src && cat a.txt' })).decision.action, 'allow');
});

test('a write the read-before-write contract would refuse is refused before anyone is asked', async () => {
  const root = workspace({ 'a.txt': 'one\ntwo\n' });
  const approver = scripted({ outcome: 'allow_once' }, { outcome: 'allow_once' });
  const gate = gateFor(root, { approver });
  assert.equal(await code(gate.call('edit_file', { path: 'a.txt', old_string: 'one', new_string: '1' })), 'not_read');
  await gate.call('read_file_range', { path: 'a.txt', start_line: 1, end_line: 1 });
  assert.equal(await code(gate.call('write_file', { path: 'a.txt', content: 'x' })), 'range_only');
  fs.writeFileSync(path.join(root, 'a.txt'), 'changed\n');
  assert.equal(await code(gate.call('edit_file', { path: 'a.txt', old_string: 'changed', new_string: 'c' })), 'stale');
  assert.equal(approver.requests.length, 0);
  await gate.call('read_file', { path: 'a.txt' });
  await gate.call('edit_file', { path: 'a.txt', old_string: 'changed', new_string: 'c' });
  assert.equal(approver.requests.length, 1);
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'c\n');
});

test('an interpreter allowed for the session covers that exact line only: `sh a.sh` again runs, `sh b.sh` asks', async () => {
  const root = workspace({ 'a.sh': 'echo from-a\n', 'b.sh': 'echo from-b\n' });
  const approver = scripted({ outcome: 'allow_session' }, { outcome: 'reject' });
  const gate = gateFor(root, { approver, shellPolicy: { _allowed_dir: root } });
  const first = await gate.call('local_shell', { command: 'sh a.sh' });
  assert.equal(first.approvedBy, 'human-session');
  assert.deepEqual(approver.requests[0].sessionScope, [{ kind: 'command', program: 'sh', exact: ['sh', 'a.sh'] }]);
  assert.deepEqual(gate.session.describe(), ['run exactly `sh a.sh`, no other sh line']);
  assert.equal((await gate.call('local_shell', { command: 'sh a.sh' })).approvedBy, 'session');
  assert.equal(await code(gate.call('local_shell', { command: 'sh b.sh' })), 'rejected');
  assert.equal(approver.requests.length, 2, 'another script of the same interpreter asks again');
  assert.equal(await code(gate.call('local_shell', { command: 'sh', args: ['a.sh', 'extra'] })), 'rejected', 'more arguments are another line');
  // an allow of the whole program (one stored before lines were exact) does not cover a line either
  const legacy = gateFor(root, { session: SessionAllows.fromJSON([{ kind: 'command', program: 'sh' }]), shellPolicy: { _allowed_dir: root } });
  assert.equal((await legacy.evaluate('local_shell', { command: 'sh b.sh' })).coveredBySession, false);
  for (const argv of [['python3', 'x.py'], ['node', 'x.js'], ['npx', 'tsc'], ['make', 'test'], ['deno', 'run', 'x.ts'], ['bash', 'x.sh'], ['uv', 'run', 'x'], ['/usr/bin/python3.12', 'x.py']]) {
    const { commandScope } = await import('../../../src/core/gate/session_allows.ts');
    assert.deepEqual(commandScope(argv), { kind: 'command', program: argv[0], exact: argv }, argv.join(' '));
  }
});

test('an args element holding newlines is shown whole, on one line, every operand on it; hidden characters are refused before anyone is asked', async () => {
  const root = workspace({ 'src/keep.txt': 'keep\n' });
  const approver = scripted({ outcome: 'reject' }, { outcome: 'reject' });
  for (const policy of [{ ...DEFAULT_SHELL_POLICY, _allowed_dir: root }, undefined]) {
    const gate = gateFor(root, { approver, shellPolicy: policy });
    const at = approver.requests.length;
    assert.equal(await code(gate.call('local_shell', { command: 'rm', args: ['-rf', `build${'\n'.repeat(60)}`, 'src'] })), 'rejected');
    const req = approver.requests[at];
    assert.deepEqual(req.steps, [`rm -rf $'build${'\\n'.repeat(60)}' src`]);
    assert.equal(req.title, `local_shell: rm -rf $'build${'\\n'.repeat(60)}' src`);
    assert.ok(fs.existsSync(path.join(root, 'src/keep.txt')), 'nothing ran');
  }
  // the command form: a quoted argument of newlines hides no later operand either
  const lineApprover = scripted({ outcome: 'reject' });
  const lineGate = gateFor(root, { approver: lineApprover, shellPolicy: { ...DEFAULT_SHELL_POLICY, _allowed_dir: root } });
  assert.equal(await code(lineGate.call('local_shell', { command: `rm -rf 'build${'\n'.repeat(60)}' src` })), 'rejected');
  assert.deepEqual(lineApprover.requests[0].steps, [`rm -rf $'build${'\\n'.repeat(60)}' src`]);
  assert.ok(fs.existsSync(path.join(root, 'src/keep.txt')), 'nothing ran');
  const gate = gateFor(root, { approver });
  const before = approver.requests.length;
  for (const hidden of ['\u202e', '\u200b', '\r', '\u001b[2K', '\u0000', '\u2066']) {
    const c = await code(gate.call('local_shell', { command: 'echo', args: ['safe', `x${hidden}y`] }));
    assert.equal(c, 'bad_args', JSON.stringify(hidden));
  }
  assert.equal(await code(gate.call('local_shell', { command: 'ec\u200bho', args: ['x'] })), 'bad_args');
  assert.equal(approver.requests.length, before, 'nobody is asked about a command that cannot be shown as it is');
});

test('the shipped command policy lets every program the envelope would ask about reach the ask; escalation and raw disks stay refused', async () => {
  const root = workspace();
  const bin = stubBin(path.join(root, '.bin'), ['pytest', 'uv', 'yarn', 'pnpm', 'bun', 'ruby', 'docker', 'sudo', 'doas', 'pkexec', 'mkfs.ext4', 'wipefs', 'dd']);
  const approver = scripted(...Array.from({ length: 8 }, () => ({ outcome: 'reject' }) as ApprovalAnswer));
  const gate = new Gate({ envelope: buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES), approver });
  gate.add(new LocalShell({ root, policy: { ...SHIPPED_SHELL_POLICY, _allowed_dir: '.' }, pathEnv: bin }));
  for (const line of ['uv run app.py', 'yarn test', 'pnpm test', 'bun test', 'ruby app.rb', 'docker ps']) {
    assert.equal(await code(gate.call('local_shell', { command: line })), 'rejected', `${line}: asked (and rejected), not refused`);
  }
  assert.equal(approver.requests.length, 6);
  // pytest is on the default envelope's prefix allowlist: it is not refused by the policy either
  assert.equal((await gate.evaluate('local_shell', { command: 'pytest -q' })).decision.rule, 'shell.prefix_allowlist');
  for (const line of ['sudo ls', 'doas ls', 'pkexec ls', 'mkfs.ext4 img', 'wipefs img', 'dd if=img of=x']) {
    assert.equal(await code(gate.call('local_shell', { command: line })), 'policy_refused', line);
  }
  assert.equal(approver.requests.length, 6, 'nobody is asked about what the policy refuses');
});

test('session allows are saved with their folder: restored only there, kept aside elsewhere, and one saved with no folder is dropped', () => {
  const a = new SessionAllows([], '/work/A');
  a.add({ kind: 'file', axis: 'files.write', path: 'a.txt' });
  a.add({ kind: 'command', program: 'rm' });
  const saved = [...JSON.parse(JSON.stringify(a.toJSON())), { kind: 'tool', tool: 'notes.search' }];
  const inB = SessionAllows.fromJSON(saved, '/work/B');
  assert.equal(inB.hasFile('files.write', 'a.txt'), false);
  assert.equal(inB.coversArgv(['rm', 'x']), false);
  assert.equal(inB.hasTool('notes.search'), false, 'an allow saved with no folder answers nowhere');
  inB.add({ kind: 'tool', tool: 'notes.search' });
  const back = SessionAllows.fromJSON(JSON.parse(JSON.stringify(inB.toJSON())), '/work/A');
  assert.equal(back.hasFile('files.write', 'a.txt'), true, "A's allows came through B unchanged");
  assert.equal(back.coversArgv(['rm', 'x']), true);
  assert.equal(back.hasTool('notes.search'), false, "B's allow is B's");
});

describe('what a call reports travels with the call (RunContext.reports), not in a slot the session shares', () => {
  test('two reads at once each hear only their own ledger records', async () => {
    const root = workspace({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const gate = gateFor(root);
    const heard: Record<string, string[]> = { a: [], b: [] };
    const call = (name: 'a' | 'b') => gate.call('read_file', { path: `${name}.txt` }, { reports: { ledger: (p, how) => heard[name].push(`${how} ${path.basename(p)}`) } });
    await Promise.all([call('a'), call('b')]);
    assert.deepEqual(heard, { a: ['read a.txt'], b: ['read b.txt'] });
  });
  test('a terminal on this machine is not reported: its id means nothing to a client', async () => {
    const root = workspace();
    const gate = gateFor(root, { envelope: 'auto_edit', yes: true });
    const terminals: string[] = [];
    const r = await gate.call('local_shell', { command: 'true' }, { reports: { terminal: async (id) => void terminals.push(id) } });
    assert.equal((r.result as { exit_code: number }).exit_code, 0);
    assert.deepEqual(terminals, []);
  });
});
