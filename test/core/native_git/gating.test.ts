// native-git behind the gate: the shipped envelopes decide the read tools as reads and the four
// writes as writes (default allows status, asks before add; read_only denies add; strict denies
// everything; auto_edit writes), a [tools] pattern overrides, what a human is shown (the staged
// diff of a commit, the changes a restore discards), and what a branch switch or restore would
// write: the write wall denies, a hook script or .envrc asks in every envelope.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { buildEnvelope } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { Gate, type ApprovalRequest } from '../../../src/core/gate/gate.ts';
import { gate, git, refusal, repo, toolset, write } from './fixture.ts';

const base = () => repo([{ files: { 'a.txt': 'one\n', 'b.txt': 'bee\n' }, message: 'first' }]);

test('shipped envelopes: reads where files.read allows, writes where files.write allows, asks where it asks', async () => {
  const dir = base();
  write(dir, { 'a.txt': 'changed\n' });
  const ts = toolset(dir);
  const d = await gate(ts, 'default').evaluate('native-git.git_status');
  assert.equal(d.decision.action, 'allow');
  assert.equal(d.decision.rule, 'files.read');
  for (const [env, tool, want] of [
    ['default', 'git_log', 'allow'], ['default', 'git_add', 'approve'], ['default', 'git_commit', 'approve'], ['default', 'git_restore', 'approve'],
    ['read_only', 'git_diff', 'allow'], ['read_only', 'git_add', 'deny'], ['read_only', 'git_checkout_branch', 'deny'],
    ['strict', 'git_status', 'deny'], ['strict', 'git_add', 'deny'],
    ['auto_edit', 'git_add', 'allow'], ['ask_always', 'git_add', 'approve'], ['ask_always', 'git_blame', 'allow'],
  ] as const) {
    write(dir, { 'a.txt': `${env} ${tool}\n` });
    const args = tool === 'git_add' || tool === 'git_restore' ? { paths: 'a.txt' } : tool === 'git_checkout_branch' ? { branch: 'x', create: true } : tool === 'git_blame' ? { path: 'a.txt' } : tool === 'git_commit' ? { message: 'm' } : {};
    if (tool === 'git_commit') git(dir, 'add', 'a.txt');
    const e = await gate(ts, env).evaluate(`native-git.${tool}`, args);
    assert.equal(e.decision.action, want, `${env} ${tool}: ${e.decision.sentence}`);
  }
});

test('a denied or rejected git_add leaves the index alone; an approved one stages', async () => {
  const dir = base();
  write(dir, { 'a.txt': 'changed\n' });
  const ts = toolset(dir);
  assert.match(await refusal(gate(ts, 'read_only').call('native-git.git_add', { paths: 'a.txt' }), 'envelope_denied'), /native-git\.git_add was denied by the session envelope/);
  assert.match(await refusal(gate(ts, 'default').call('native-git.git_add', { paths: 'a.txt' }), 'approval_required'), /needs a human's approval/);
  const asked: ApprovalRequest[] = [];
  assert.match(await refusal(gate(ts, 'default', async (r) => (asked.push(r), { outcome: 'reject' })).call('native-git.git_add', { paths: 'a.txt' }), 'rejected'), /rejected/);
  assert.equal(asked[0].title, 'native-git.git_add: a.txt');
  assert.deepEqual(asked[0].detail, ['will stage 1 file(s):', '  modified: a.txt']);
  assert.equal(git(dir, 'diff', '--cached', '--name-only'), '');
  await gate(ts, 'default', async () => ({ outcome: 'allow_once' })).call('native-git.git_add', { paths: 'a.txt' });
  assert.equal(git(dir, 'diff', '--cached', '--name-only'), 'a.txt\n');
});

test('a [tools] pattern names the toolset or one tool, ahead of the axes', async () => {
  const ts = toolset(base());
  const specs = { ...SHIPPED_ENVELOPES, mine: { extends: 'default', tools: { 'native-git': { grant: 'deny' as const }, 'native-git.git_log': { grant: 'allow' as const } } } };
  const g = new Gate({ envelope: buildEnvelope('mine', specs, FLOOR_RULES), toolsets: [ts] });
  assert.equal((await g.evaluate('native-git.git_status')).decision.action, 'deny');
  assert.equal((await g.evaluate('native-git.git_log')).decision.action, 'allow');
});

test('what a human is shown: a commit with its author, message and staged diff; a restore with what it discards', async () => {
  const dir = base();
  write(dir, { 'a.txt': 'one\ntwo\n' });
  git(dir, 'add', 'a.txt');
  const ts = toolset(dir);
  const asked: ApprovalRequest[] = [];
  const approver = async (r: ApprovalRequest) => (asked.push(r), { outcome: 'reject' as const });
  await refusal(gate(ts, 'default', approver).call('native-git.git_commit', { message: 'add two' }), 'rejected');
  assert.deepEqual(asked[0].detail, ['author: Test Author <test@example.com>', 'message:', '  add two', 'staged (1 file(s)):', 'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n one\n+two']);
  write(dir, { 'b.txt': 'my precious edit\n' });
  await refusal(gate(ts, 'default', approver).call('native-git.git_restore', { paths: 'b.txt' }), 'rejected');
  assert.deepEqual(asked[1].detail, ['restore 1 file(s) to HEAD; these uncommitted changes are DISCARDED:', 'diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-my precious edit\n+bee']);
  assert.equal(fs.readFileSync(path.join(dir, 'b.txt'), 'utf8'), 'my precious edit\n');
});

test('a branch that would write behind the write wall is denied in every envelope; one writing .envrc or a hook asks', async () => {
  const dir = base();
  git(dir, 'checkout', '-q', '-b', 'walled');
  write(dir, { '.vscode/tasks.json': '{"tasks":[{"runOptions":{"runOn":"folderOpen"}}]}\n' });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'tasks');
  git(dir, 'checkout', '-q', '-b', 'hooked', 'main');
  write(dir, { '.envrc': 'echo hi\n', '.husky/pre-commit': 'echo hook\n' });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'hooks');
  git(dir, 'checkout', '-q', 'main');
  const ts = toolset(dir);
  const m = await refusal(gate(ts, 'auto_edit').call('native-git.git_checkout_branch', { branch: 'walled' }), 'envelope_denied');
  assert.match(m, /\.vscode\/tasks\.json.*write wall/);
  assert.equal(git(dir, 'branch', '--show-current'), 'main\n');
  assert.equal(fs.existsSync(path.join(dir, '.vscode')), false);
  const e = await gate(ts, 'auto_edit').evaluate('native-git.git_checkout_branch', { branch: 'hooked' });
  assert.equal(e.decision.action, 'approve');
  assert.equal(e.decision.rule, 'always_ask');
  assert.equal(e.sessionScope.length, 0);
  await gate(ts, 'auto_edit', async () => ({ outcome: 'allow_once' })).call('native-git.git_checkout_branch', { branch: 'hooked' });
  assert.equal(fs.readFileSync(path.join(dir, '.envrc'), 'utf8'), 'echo hi\n');
  // restoring a walled file is a write of it too
  git(dir, 'checkout', '-q', 'walled');
  write(dir, { '.vscode/tasks.json': '{}\n' });
  assert.match(await refusal(gate(toolset(dir), 'auto_edit').call('native-git.git_restore', { paths: '.vscode/tasks.json' }), 'envelope_denied'), /write wall/);
  assert.equal(fs.readFileSync(path.join(dir, '.vscode/tasks.json'), 'utf8'), '{}\n');
});

test('the quarantine holds in the envelope too: a git read naming a credential path is denied', async () => {
  const dir = base();
  const e = await gate(toolset(dir), 'default').evaluate('native-git.git_log', { path: '.ssh/id_rsa' });
  assert.equal(e.decision.action, 'deny');
  assert.match(e.decision.sentence, /credential quarantine/);
});
