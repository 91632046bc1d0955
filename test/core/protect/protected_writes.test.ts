// Writes into places that run code later, through the real gate and local_fs as the model would
// try them: the always-ask tier asks in every envelope (auto_edit included) with no session
// option and no session allow covering it, and is refused where nobody can answer; git dirs are
// walled by shape, whatever their name; the hooks dir core.hooksPath names asks; an executable
// keeps its mode only after an approval that showed it. Ordinary project files stay ordinary.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { buildEnvelope, decide, type EnvelopeSpec } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { isToolError } from '../../../src/core/errors.ts';
import { shellDecision } from '../../../src/cli/line_verdict.ts';
import { Gate, type ApprovalAnswer, type ApprovalRequest, type Approver } from '../../../src/core/gate/gate.ts';
import { gitDirAround, hooksDirs, hooksPathValues, isGitDirByShape } from '../../../src/core/protect/git_dirs.ts';
import { LocalFsToolset } from '../../../src/core/local_fs/toolset.ts';
import { IdentityIndex } from '../../../src/core/protect/identity.ts';
import { SessionAllows } from '../../../src/core/gate/session_allows.ts';
import { checkLine, type Allowed } from '../../../src/core/shell/checker.ts';
import { LocalShell } from '../../../src/core/shell/local_shell.ts';

const roots: string[] = [];
after(() => {
  for (const d of roots) fs.rmSync(d, { recursive: true, force: true });
});

function workspace(files: Record<string, string | { text: string; mode: number }> = {}): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-prot-')));
  roots.push(root);
  for (const [rel, f] of Object.entries(files)) {
    const p = path.join(root, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    if (typeof f === 'string') fs.writeFileSync(p, f);
    else {
      fs.writeFileSync(p, f.text);
      fs.chmodSync(p, f.mode);
    }
  }
  return root;
}

function scripted(...answers: ApprovalAnswer[]): Approver & { requests: ApprovalRequest[] } {
  const requests: ApprovalRequest[] = [];
  const fn = async (req: ApprovalRequest): Promise<ApprovalAnswer> => {
    requests.push(req);
    return answers.shift() ?? { outcome: 'reject' };
  };
  return Object.assign(fn, { requests });
}

const emptyHome = () => workspace();

function gateFor(root: string, opts: { envelope?: string; specs?: Record<string, EnvelopeSpec>; approver?: Approver; yes?: boolean; session?: SessionAllows } = {}) {
  const gate = new Gate({ envelope: buildEnvelope(opts.envelope ?? 'auto_edit', { ...SHIPPED_ENVELOPES, ...(opts.specs ?? {}) }, FLOOR_RULES), approver: opts.approver, autoApprove: opts.yes, session: opts.session });
  gate.add(new LocalFsToolset({ root, approvals: 'ask', grepEngine: 'builtin', identity: new IdentityIndex({ home: emptyHome() }) }));
  gate.add(new LocalShell({ root }));
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

const mode = (root: string, rel: string) => fs.statSync(path.join(root, rel)).mode & 0o7777;

/** A repository whose git config names `hooks` as core.hooksPath (relative, as husky and teams write it). */
function repoWithHooksPath(value: string, files: Record<string, string> = {}): string {
  const root = workspace({ '.git/HEAD': 'ref: refs/heads/main\n', '.git/config': `[core]\n\trepositoryformatversion = 0\n\thooksPath = ${value}\n`, ...files });
  fs.mkdirSync(path.join(root, '.git/objects'), { recursive: true });
  fs.mkdirSync(path.join(root, '.git/refs'), { recursive: true });
  return root;
}

const ALWAYS_ASK = [
  '.husky/pre-commit', '.husky/_/husky.sh', '.githooks/pre-push', 'sub/project/.githooks/commit-msg', '.envrc', 'app/.envrc', '.yarnrc', '.yarnrc.yml',
  '.devcontainer/devcontainer.json', '.devcontainer/post-create.sh', '.devcontainer.json', '.local/bin/git', '.config/autostart/x.desktop',
  '.config/systemd/user/x.service', 'Library/LaunchAgents/com.x.plist', '.HUSKY/pre-commit', '.envrc.',
];
const ORDINARY = ['Makefile', 'package.json', 'src/a.ts', 'bin/run', 'scripts/hooks.ts', 'husky.md', '.envrc.example', 'yarnrc.txt', 'devcontainer.md', 'local/bin/x', 'docs/.githooks.md'];

describe('always ask: in every envelope, with no session option', () => {
  test('each always-ask path asks under auto_edit; allow once writes it; nothing is offered for the session', async () => {
    const root = workspace();
    for (const rel of ALWAYS_ASK) {
      const approver = scripted({ outcome: 'allow_session' });
      const gate = gateFor(root, { approver });
      const r = await gate.call('write_file', { path: rel, content: 'echo hi\n' });
      assert.equal(approver.requests.length, 1, rel);
      const req = approver.requests[0];
      assert.equal(req.decision.rule, 'always_ask', `${rel}: ${req.decision.sentence}`);
      assert.deepEqual(req.sessionScope, [], `${rel}: no "allow for this session"`);
      assert.equal(r.approvedBy, 'human');
      assert.deepEqual(gate.session.list(), [], 'an allow_session answer remembers nothing');
      assert.ok(fs.existsSync(path.join(root, rel.replace(/\.$/, ''))) || fs.existsSync(path.join(root, rel)), rel);
    }
  });
  test('refused where nobody can answer; rejected when the human says no; nothing written', async () => {
    const root = workspace();
    for (const rel of ALWAYS_ASK) {
      assert.equal(await code(gateFor(root).call('write_file', { path: rel, content: 'x' })), 'approval_required', rel);
      assert.equal(await code(gateFor(root, { approver: scripted({ outcome: 'reject' }) }).call('write_file', { path: rel, content: 'x' })), 'rejected', rel);
      assert.ok(!fs.existsSync(path.join(root, rel)), rel);
    }
  });
  test('true negatives: ordinary project files (Makefile, package.json, a project bin/) are plain writes under auto_edit', async () => {
    const root = workspace();
    const approver = scripted();
    const gate = gateFor(root, { approver });
    for (const rel of ORDINARY) {
      const r = await gate.call('write_file', { path: rel, content: 'all:\n' });
      assert.equal(r.decision.rule, 'files.write', rel);
      assert.equal(r.decision.action, 'allow', rel);
    }
    assert.equal(approver.requests.length, 0);
  });
  test('no session allow, tools pattern or always_allow rule silences it; a deny still denies', async () => {
    const root = workspace({ '.envrc': 'export A=1\n' });
    const session = new SessionAllows([{ kind: 'file', axis: 'files.write', path: '.envrc' }, { kind: 'tool', tool: 'local_fs.write_file' }]);
    const specs: Record<string, EnvelopeSpec> = {
      open: { extends: 'auto_edit', tools: { local_fs: { grant: 'allow' } }, always_allow: [{ tool: '*', path: '**' }] },
    };
    const approver = scripted({ outcome: 'allow_once' }, { outcome: 'allow_once' });
    const gate = gateFor(root, { approver, session, specs, envelope: 'open' });
    await gate.call('read_file', { path: '.envrc' }); // asks too: direnv's exports are read-approve
    assert.equal(approver.requests.length, 1);
    const ev = await gate.evaluate('write_file', { path: '.envrc', content: 'x' });
    assert.equal(ev.decision.action, 'approve');
    assert.equal(ev.coveredBySession, false);
    assert.deepEqual(ev.sessionScope, []);
    await gate.call('edit_file', { path: '.envrc', old_string: 'A=1', new_string: 'A=2' });
    assert.equal(approver.requests.length, 2);
    for (const envelope of ['read_only', 'strict']) {
      assert.equal(await code(gateFor(root, { envelope, yes: true }).call('write_file', { path: '.husky/pre-commit', content: 'x' })), 'envelope_denied', envelope);
    }
  });
  test('every shipped envelope: allow and approve become always_ask, deny stays deny', () => {
    for (const name of Object.keys(SHIPPED_ENVELOPES)) {
      const env = buildEnvelope(name, SHIPPED_ENVELOPES, FLOOR_RULES);
      for (const tool of ['write_file', 'edit_file', 'sed']) {
        const d = decide(env, { toolset: 'local_fs', tool, paths: ['.husky/pre-commit'] });
        if (name === 'read_only' || name === 'strict' || name === 'serve') assert.equal(d.action, 'deny', `${name} ${tool}: ${d.sentence}`);
        else assert.deepEqual([d.action, d.rule], ['approve', 'always_ask'], `${name} ${tool}: ${d.sentence}`);
      }
      // reads of those files are ordinary
      assert.notEqual(decide(env, { toolset: 'local_fs', tool: 'read_file', paths: ['.husky/pre-commit'] }).rule, 'always_ask');
    }
  });
  test('a shell line naming an always-ask path asks, even a prefix-allowed one, and offers no session allow', async () => {
    const root = workspace({ '.envrc': 'x' });
    const env = buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES);
    // the line as the checker reads it (no policy: its argument rules only report)
    const decision = (line: string) => shellDecision(env, line, checkLine(line, {}, { cwd: root, argRules: 'report' }) as Allowed, root);
    const d = decision('cp x .husky/pre-commit');
    assert.deepEqual([d.action, d.rule], ['approve', 'always_ask']);
    assert.equal(decision('cat .envrc').rule, 'always_ask');
    assert.equal(decision('cat Makefile').rule, 'shell.prefix_allowlist');
    const ev = await gateFor(root, { envelope: 'default' }).evaluate('local_shell', { command: 'cp a .local/bin/git' });
    assert.equal(ev.decision.rule, 'always_ask');
    assert.deepEqual(ev.sessionScope, []);
  });
});

describe('core.hooksPath', () => {
  test('its config syntax: case, quotes, comments, one-line sections, other sections', () => {
    assert.deepEqual(hooksPathValues('[core]\n\thooksPath = .githooks\n'), ['.githooks']);
    assert.deepEqual(hooksPathValues('[Core]\n  HOOKSPATH=" my hooks "  # set by setup.sh\n'), [' my hooks ']);
    assert.deepEqual(hooksPathValues('[core] hookspath = a ; x\n[alias]\nhooksPath = b\n[core "x"]\nhooksPath = c\n'), ['a', 'c']);
    assert.deepEqual(hooksPathValues('[core]\nbare = false\n'), []);
    assert.deepEqual(hooksPathValues('[core]\nhooksPath = "a\\"b"\n'), ['a"b']);
  });
  test('writes into the dir it names ask in every envelope; the rest of the repo does not', async () => {
    for (const value of ['scripts/git-hooks', './scripts/git-hooks', '"scripts/git-hooks"']) {
      const root = repoWithHooksPath(value, { 'scripts/git-hooks/pre-commit': '#!/bin/sh\n', 'scripts/build.sh': '#!/bin/sh\n' });
      const approver = scripted({ outcome: 'allow_once' });
      const gate = gateFor(root, { approver });
      const ev = await gate.evaluate('write_file', { path: 'scripts/git-hooks/post-checkout', content: 'x' });
      assert.equal(ev.decision.rule, 'always_ask', `${value}: ${ev.decision.sentence}`);
      assert.match(ev.decision.sentence, /core\.hooksPath/);
      assert.equal(await code(gateFor(root).call('write_file', { path: 'scripts/git-hooks/post-checkout', content: 'x' })), 'approval_required');
      await gate.call('read_file', { path: 'scripts/git-hooks/pre-commit' });
      await gate.call('edit_file', { path: 'scripts/git-hooks/pre-commit', old_string: 'sh', new_string: 'bash' });
      assert.equal(approver.requests.length, 1);
      assert.equal((await gate.evaluate('write_file', { path: 'scripts/build.sh', content: 'x' })).decision.action, 'allow');
    }
  });
  test('a subdirectory root, a worktree .git file and the global config are followed', () => {
    const home = workspace({ '.gitconfig': '[core]\n\thooksPath = ~/global-hooks\n' });
    const main = repoWithHooksPath('hooks');
    fs.mkdirSync(path.join(main, 'pkg/sub'), { recursive: true });
    const dirs = hooksDirs(path.join(main, 'pkg/sub'), home).map((h) => h.dir);
    assert.ok(dirs.includes(path.join(main, 'hooks')), 'relative to the working tree top, not the root');
    assert.ok(dirs.includes(path.join(home, 'global-hooks')));
    const wt = workspace({ '.git': `gitdir: ${path.join(main, '.git/worktrees/wt')}\n` });
    fs.mkdirSync(path.join(main, '.git/worktrees/wt'), { recursive: true });
    fs.writeFileSync(path.join(main, '.git/worktrees/wt/commondir'), '../..\n');
    assert.ok(hooksDirs(wt, home).some((h) => h.dir === path.join(wt, 'hooks')), 'the common config, resolved in the worktree');
  });
});

describe('git dirs by shape', () => {
  test('a bare repository under another name is walled for every writer, in every envelope', async () => {
    const root = workspace({ 'backup.git/HEAD': 'ref: refs/heads/main\n', 'backup.git/config': '[core]\n', 'backup.git/hooks/README': 'x', 'src/a.ts': 'x' });
    fs.mkdirSync(path.join(root, 'backup.git/objects/pack'), { recursive: true });
    fs.mkdirSync(path.join(root, 'backup.git/refs/heads'), { recursive: true });
    for (const rel of ['backup.git/hooks/post-update', 'backup.git/config', 'backup.git/HEAD', 'backup.git/refs/heads/main', 'backup.git/new/dir/file']) {
      for (const envelope of ['auto_edit', 'ask_always', 'default']) {
        const gate = gateFor(root, { envelope, yes: true });
        const ev = await gate.evaluate('write_file', { path: rel, content: 'x' });
        assert.deepEqual([ev.decision.action, ev.decision.rule], ['deny', 'always_deny'], `${envelope} ${rel}: ${ev.decision.sentence}`);
        assert.match(ev.decision.sentence, /inside the git dir `backup\.git`/);
        assert.equal(await code(gate.call('write_file', { path: rel, content: 'x' })), 'envelope_denied');
      }
    }
    assert.equal(fs.readFileSync(path.join(root, 'backup.git/config'), 'utf8'), '[core]\n');
    // a linked worktree's git dir (HEAD + commondir) too
    const wt = workspace({ 'gd/HEAD': 'x', 'gd/commondir': '../main/.git\n' });
    assert.equal(isGitDirByShape(path.join(wt, 'gd')), true);
    assert.equal(await code(gateFor(wt, { yes: true }).call('write_file', { path: 'gd/index', content: 'x' })), 'envelope_denied');
  });
  test('a shell line naming a path inside one is walled like `.git/…`; naming the git dir itself is not', async () => {
    const root = workspace({ 'backup.git/HEAD': 'x', 'backup.git/hooks/README': 'x', 'docs/HEAD': 'x' });
    fs.mkdirSync(path.join(root, 'backup.git/objects'), { recursive: true });
    fs.mkdirSync(path.join(root, 'backup.git/refs'), { recursive: true });
    const gate = gateFor(root, { envelope: 'default' });
    const cp = await gate.evaluate('local_shell', { command: 'cp evil.sh backup.git/hooks/README' });
    assert.deepEqual([cp.decision.action, cp.decision.rule], ['deny', 'always_deny'], cp.decision.sentence);
    assert.equal((await gate.evaluate('local_shell', { command: 'ls backup.git' })).decision.action, 'allow');
    assert.equal((await gate.evaluate('local_shell', { command: 'cat docs/HEAD' })).decision.action, 'allow');
    const hooks = repoWithHooksPath('tools/hooks', { 'tools/hooks/pre-commit': '#!/bin/sh\n' });
    const h = await gateFor(hooks, { envelope: 'default' }).evaluate('local_shell', { command: 'cat tools/hooks/pre-commit' });
    assert.deepEqual([h.decision.action, h.decision.rule], ['approve', 'always_ask'], h.decision.sentence);
    assert.deepEqual(h.sessionScope, []);
  });
  test('true negatives: HEAD, objects or refs alone, or files named like them, are ordinary', async () => {
    const root = workspace({ 'docs/HEAD': 'x', 'a/objects/x': '', 'b/refs/x': '', 'c/HEAD/x': '', 'c/objects/y': '', 'c/refs/z': '', 'd/HEAD': '', 'd/objects': 'file', 'd/refs/x': '' });
    fs.mkdirSync(path.join(root, 'e/objects'), { recursive: true });
    fs.writeFileSync(path.join(root, 'e/HEAD'), '');
    for (const dir of ['docs', 'a', 'b', 'c', 'd', 'e']) assert.equal(isGitDirByShape(path.join(root, dir)), false, dir);
    assert.equal(gitDirAround(path.join(root, 'c/objects')), null);
    const gate = gateFor(root);
    for (const rel of ['docs/HEAD', 'a/objects/x', 'b/refs/y', 'c/HEAD/x', 'd/refs/x', 'e/objects/x']) {
      assert.equal((await gate.evaluate('write_file', { path: rel, content: 'x' })).decision.action, 'allow', rel);
    }
  });
});

describe('modes of always-ask files', () => {
  test('an approval that showed the mode keeps it; --yes does not, and says so', async () => {
    const root = workspace({ '.githooks/pre-commit': { text: '#!/bin/sh\nexit 0\n', mode: 0o755 }, '.husky/pre-push': { text: '#!/bin/sh\n', mode: 0o750 } });
    const approver = scripted({ outcome: 'allow_once' });
    const gate = gateFor(root, { approver });
    await gate.call('read_file', { path: '.githooks/pre-commit' });
    const r = await gate.call('edit_file', { path: '.githooks/pre-commit', old_string: 'exit 0', new_string: 'exit 1' });
    const req = approver.requests[0];
    assert.equal(req.fileMode, '0755');
    assert.match(req.title, /mode 0755, executable/);
    assert.equal(mode(root, '.githooks/pre-commit'), 0o755);
    assert.equal((r.result as { note?: string }).note, undefined);
    const yes = gateFor(root, { yes: true });
    await yes.call('read_file', { path: '.githooks/pre-commit' });
    const y = await yes.call('edit_file', { path: '.githooks/pre-commit', old_string: 'exit 1', new_string: 'exit 2' });
    assert.equal(mode(root, '.githooks/pre-commit'), 0o644);
    assert.match((y.result as { note: string }).note, /mode 0755 became 0644/);
    await yes.call('read_file', { path: '.husky/pre-push' });
    await yes.call('write_file', { path: '.husky/pre-push', content: '#!/bin/sh\necho\n' });
    assert.equal(mode(root, '.husky/pre-push'), 0o640);
  });
  test('a mode changed after the approval is not the one approved: its exec bits are dropped', async () => {
    const root = workspace({ '.local/bin/tool': { text: 'a\n', mode: 0o644 } });
    const approver: Approver = async () => {
      fs.chmodSync(path.join(root, '.local/bin/tool'), 0o4755); // setuid, behind the human's back
      return { outcome: 'allow_once' };
    };
    const gate = gateFor(root, { approver });
    await gate.call('read_file', { path: '.local/bin/tool' });
    await gate.call('edit_file', { path: '.local/bin/tool', old_string: 'a', new_string: 'b' });
    assert.equal(mode(root, '.local/bin/tool'), 0o644);
  });
  test('true negative: an executable outside the always-ask tier keeps its mode with no approval', async () => {
    const root = workspace({ 'scripts/run.sh': { text: '#!/bin/sh\n', mode: 0o755 } });
    const gate = gateFor(root);
    await gate.call('read_file', { path: 'scripts/run.sh' });
    const r = await gate.call('edit_file', { path: 'scripts/run.sh', old_string: 'sh', new_string: 'bash' });
    assert.equal(r.decision.action, 'allow');
    assert.equal(mode(root, 'scripts/run.sh'), 0o755);
  });
});

describe('hard links through the gate', () => {
  test('read_file of a second name of .env asks under auto_edit, naming the file it links to', async () => {
    const root = workspace({ '.env': 'A=1\n' });
    fs.linkSync(path.join(root, '.env'), path.join(root, 'settings.txt'));
    const approver = scripted({ outcome: 'allow_once' });
    const r = await gateFor(root, { approver }).call('read_file', { path: 'settings.txt' });
    assert.equal(r.result, 'A=1\n');
    assert.equal(approver.requests.length, 1);
    assert.equal(approver.requests[0].decision.rule, 'files.read.approve_paths');
    assert.match(approver.requests[0].decision.sentence, /another name \(a hard link\) of \.env/);
    assert.equal(await code(gateFor(root).call('read_file', { path: 'settings.txt' })), 'approval_required');
  });
});

describe('hard links seen by the shell', () => {
  test('`cat notes` where notes is a second name of a key is denied; of .env asks; of a plain file runs', async () => {
    const root = workspace({ '.ssh/id_rsa': 'KEY', '.env': 'A=1', 'a.txt': 'plain' });
    fs.linkSync(path.join(root, '.ssh/id_rsa'), path.join(root, 'notes'));
    fs.linkSync(path.join(root, '.env'), path.join(root, 'settings'));
    fs.linkSync(path.join(root, 'a.txt'), path.join(root, 'b.txt'));
    const gate = gateFor(root, { envelope: 'default' });
    const deny = await gate.evaluate('local_shell', { command: 'cat notes' });
    assert.deepEqual([deny.decision.action, deny.decision.rule], ['deny', 'always_deny']);
    assert.match(deny.decision.sentence, /\.ssh\/id_rsa/);
    const ask = await gate.evaluate('local_shell', { command: 'cat settings' });
    assert.deepEqual([ask.decision.action, ask.decision.rule], ['approve', 'files.read.approve_paths']);
    assert.equal((await gate.evaluate('local_shell', { command: 'cat b.txt' })).decision.action, 'allow');
  });
  test('a link made by a command counts at the next call: the gate drops the cached scan after every shell call', async () => {
    const root = workspace({ 'a.txt': 'x', 'b.txt': 'y' });
    fs.linkSync(path.join(root, 'a.txt'), path.join(root, 'a2.txt'));
    const gate = gateFor(root, { yes: true });
    assert.equal(await code(gate.call('read_file', { path: 'a2.txt' })), 'ok'); // builds the index
    fs.writeFileSync(path.join(root, 'id_ed25519'), 'KEY'); // as `tar xf` would leave them
    fs.linkSync(path.join(root, 'id_ed25519'), path.join(root, 'b2.txt'));
    await gate.call('local_shell', { command: 'true' });
    assert.equal(await code(gate.call('read_file', { path: 'b2.txt' })), 'quarantined');
  });
});
