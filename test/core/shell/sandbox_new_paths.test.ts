// The write wall for names that do not exist yet, and every git dir in the workspace, tried as an
// attacker would: an approved command (a project's script a person said yes to) creates each
// wall and always-ask name of the table, appends an fsmonitor line to a submodule's git config,
// plants a hook, repoints a gitfile and a linked worktree's commondir. Afterwards the person's
// own `git status`, run outside cxl, must run nothing: its fsmonitor marker never appears.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, describe, test } from 'node:test';
import { buildEnvelope } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { Gate, type ApprovalAnswer, type ApprovalRequest, type Approver } from '../../../src/core/gate/gate.ts';
import { entriesOf, type ProtectionTier } from '../../../src/core/protect/table.ts';
import type { ShellResult } from '../../../src/core/shell/runner.ts';
import { LocalShell } from '../../../src/core/shell/local_shell.ts';
import { protectedNow, settle } from '../../../src/core/shell/sandbox/left_behind.ts';
import { hasBwrap } from '../../helpers/system_tools.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'cxl-newpath-')));
  dirs.push(d);
  return d;
}

/** An approver that says yes to the command, then answers each later question with `keep`'s answer. */
function approver(keep: (req: ApprovalRequest) => boolean): Approver & { asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  let first = true;
  const fn = async (req: ApprovalRequest): Promise<ApprovalAnswer> => {
    if (first) {
      first = false;
      return { outcome: 'allow_once' };
    }
    asked.push(req);
    return keep(req) ? { outcome: 'allow_once' } : { outcome: 'reject' };
  };
  return Object.assign(fn, { asked });
}

/** cxl's data dir for these tests, where what is taken away is moved */
const dataHome = tempDir();

function gateFor(root: string, a: Approver): Gate {
  const gate = new Gate({ envelope: buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES), approver: a });
  gate.add(new LocalShell({ root, env: { ...process.env, XDG_DATA_HOME: dataHome } }));
  return gate;
}

/** The workspace names of one tier: `[name, isDir]` (a glob ending in `/**` names a directory). */
function namesOf(tier: ProtectionTier): [string, boolean][] {
  return entriesOf(tier)
    .filter((e) => !e.home)
    .flatMap((e) => (e.at ?? []).map((n): [string, boolean] => [n, e.glob.endsWith('/**')]));
}

/** A script that creates each name (a file inside a directory name) and prints what it managed. */
function planter(root: string, names: [string, boolean][]): string {
  writeFileSync(
    path.join(root, 'plant.js'),
    `const fs = require('node:fs'); const path = require('node:path');
for (const [n, dir] of ${JSON.stringify(names)}) {
  try {
    const file = dir ? path.join(n, 'planted') : n;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '#!/bin/sh\\ntouch /tmp/pwned\\n');
    console.log('CREATED ' + n);
  } catch (e) { console.log('REFUSED ' + n + ' ' + e.code); }
}\n`,
  );
  return 'node plant.js';
}

const haveBwrap = hasBwrap('the new-path wall tests (test/core/shell/sandbox_new_paths.test.ts)');

describe('names that do not exist yet', () => {
  test('an approved command that creates each write-wall name: each creation is undone and reported', async () => {
    if (!haveBwrap) return;
    const root = tempDir();
    const names = namesOf('write_wall');
    const a = approver(() => true);
    const r = await gateFor(root, a).call('local_shell', { command: planter(root, names) });
    const res = r.result as ShellResult;
    assert.equal(res.sandbox?.profile, 'workspace-write');
    const created = [...res.stdout.matchAll(/^CREATED (.*)$/gm)].map((m) => m[1]);
    assert.ok(created.length >= names.length / 2, `the command really created them inside (${created.length} of ${names.length}): ${res.stdout}`);
    for (const [n] of names) {
      assert.equal(existsSync(path.join(root, n)), false, `${n} was left behind`);
    }
    const removed = new Set((res.left_behind ?? []).map((l) => l.path));
    for (const n of created) {
      const reported = [...removed].some((p) => path.join(root, n) === p || path.join(root, n).startsWith(`${p}/`));
      assert.ok(reported, `${n} is reported as removed`);
    }
    assert.ok((res.left_behind ?? []).every((l) => l.outcome === 'removed' && l.tier === 'write_wall'));
    assert.match(res.stderr, /cxl: removed .*\.mcp\.json, which the command created: no command may create it/);
    // nothing is lost: each went to the data dir, where commands cannot reach it
    const mcp = res.left_behind!.find((l) => l.path === path.join(root, '.mcp.json'))!;
    assert.ok(mcp.movedTo!.startsWith(path.join(dataHome, 'cxl', 'left-behind') + path.sep), mcp.movedTo);
    assert.equal(readFileSync(mcp.movedTo!, 'utf8'), '#!/bin/sh\ntouch /tmp/pwned\n');
    assert.equal(a.asked.length, 0, 'a wall is not a question');
  });

  test('always-ask names created by an approved command ask once more; a no removes them', async () => {
    if (!haveBwrap) return;
    const root = tempDir();
    const names = namesOf('always_ask');
    const a = approver(() => false);
    const r = await gateFor(root, a).call('local_shell', { command: planter(root, names) });
    const res = r.result as ShellResult;
    const created = [...res.stdout.matchAll(/^CREATED (.*)$/gm)].map((m) => m[1]);
    assert.ok(created.includes('.envrc') && created.includes('.husky'), res.stdout);
    for (const [n] of names) assert.equal(existsSync(path.join(root, n)), false, `${n} was left behind`);
    const asked = a.asked.map((q) => q.locations[0]);
    for (const n of created) assert.ok(asked.some((p) => path.join(root, n).startsWith(p)), `keeping ${n} was asked about`);
    assert.ok(a.asked.every((q) => q.decision.rule === 'always_ask'));
  });

  test('a yes to the second question keeps the file, and only that one', async () => {
    if (!haveBwrap) return;
    const root = tempDir();
    const a = approver((req) => req.locations[0].endsWith('/.envrc'));
    const r = await gateFor(root, a).call('local_shell', { command: planter(root, [['.envrc', false], ['.husky', true]]) });
    const res = r.result as ShellResult;
    assert.equal(existsSync(path.join(root, '.envrc')), true);
    assert.equal(existsSync(path.join(root, '.husky')), false);
    const outcomes = (res.left_behind ?? []).map((l) => `${path.basename(l.path)} ${l.outcome}`).sort();
    assert.deepEqual(outcomes, ['.envrc kept', '.husky removed']);
  });

  test('a created name is removed, never what a link of that name points to', async () => {
    if (!haveBwrap) return;
    const root = tempDir();
    const outside = path.join(root, 'keep');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'precious'), 'mine\n');
    const a = approver(() => false);
    writeFileSync(path.join(root, 'link.js'), "require('node:fs').symlinkSync('keep', '.vscode');\n");
    const r = await gateFor(root, a).call('local_shell', { command: 'node link.js' });
    assert.deepEqual((r.result as ShellResult).left_behind?.map((l) => l.path), [path.join(root, '.vscode')]);
    assert.equal(existsSync(path.join(root, '.vscode')), false, 'the link is gone');
    assert.equal(readFileSync(path.join(outside, 'precious'), 'utf8'), 'mine\n', 'its target is untouched');
  });

  test('an ordinary new file stays, a project bin/ too, and nothing is asked', async () => {
    if (!haveBwrap) return;
    const root = tempDir();
    const a = approver(() => false);
    // `bin` is protected in the home only (~/bin is on PATH): a project's build output there is ordinary
    const r = await gateFor(root, a).call('local_shell', { command: planter(root, [['src/app.js', false], ['docs', true], ['bin', true], ['cmd/bin', true]]) });
    assert.equal((r.result as ShellResult).left_behind, undefined);
    for (const p of ['src/app.js', 'docs/planted', 'bin/planted', 'cmd/bin/planted']) assert.ok(existsSync(path.join(root, p)), p);
    assert.equal(a.asked.length, 0);
  });
});

/** git as a person runs it, outside cxl, with file:// submodules allowed for the set-up. */
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'protocol.file.allow=always', '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('every git dir in the workspace', () => {
  test("an approved command cannot write a submodule's config, a hook, a gitfile or a worktree's commondir; the person's git status runs nothing", async () => {
    if (!haveBwrap) return;
    const base = tempDir();
    const sub = path.join(base, 'sub');
    mkdirSync(sub);
    git(sub, 'init', '-q');
    writeFileSync(path.join(sub, 'a.txt'), 'a\n');
    git(sub, 'add', '.');
    git(sub, 'commit', '-qm', 'sub');
    const root = path.join(base, 'ws');
    mkdirSync(root);
    git(root, 'init', '-q');
    writeFileSync(path.join(root, 'b.txt'), 'b\n');
    git(root, 'add', '.');
    git(root, 'commit', '-qm', 'ws');
    git(root, 'submodule', 'add', '-q', sub, 'x');
    git(root, 'commit', '-qm', 'x');
    git(root, 'worktree', 'add', '-q', 'wt');
    mkdirSync(path.join(root, 'nested'));
    git(path.join(root, 'nested'), 'init', '-q');
    const marker = path.join(base, 'fsmonitor-ran');
    const evil = `[core]\n\tfsmonitor = touch ${marker}\n`;
    const attacks: [string, string][] = [
      ['.git/modules/x/config', `fs.appendFileSync('.git/modules/x/config', ${JSON.stringify(evil)})`],
      ['.git/modules/x/hooks', `fs.writeFileSync('.git/modules/x/hooks/post-checkout', '#!/bin/sh\\ntouch ${marker}\\n', { mode: 0o755 })`],
      ['x/.git', `fs.writeFileSync('x/.git', 'gitdir: ../evil.git\\n')`],
      ['.git/worktrees/wt/commondir', `fs.writeFileSync('.git/worktrees/wt/commondir', '../../../evil.git\\n')`],
      ['wt/.git', `fs.writeFileSync('wt/.git', 'gitdir: ../evil.git\\n')`],
      ['nested/.git/config', `fs.appendFileSync('nested/.git/config', ${JSON.stringify(evil)})`],
      ['.git/config', `fs.appendFileSync('.git/config', ${JSON.stringify(evil)})`],
    ];
    writeFileSync(
      path.join(root, 'attack.js'),
      `const fs = require('node:fs');\n${attacks.map(([n, code]) => `try { ${code}; console.log('WROTE ${n}'); } catch (e) { console.log('REFUSED ${n} ' + e.code); }`).join('\n')}\n`,
    );
    const before = Object.fromEntries(attacks.map(([n]) => [n, existsSync(path.join(root, n)) && !n.endsWith('hooks') ? readFileSync(path.join(root, n), 'utf8') : null]));
    const r = await gateFor(root, approver(() => false)).call('local_shell', { command: 'node attack.js' });
    const out = (r.result as ShellResult).stdout;
    for (const [n] of attacks) assert.match(out, new RegExp(`^REFUSED ${n.replace(/[.]/g, '\\.')} E(ROFS|ACCES|PERM)`, 'm'), out);
    for (const [n] of attacks) if (before[n] !== null) assert.equal(readFileSync(path.join(root, n), 'utf8'), before[n], `${n} is unchanged`);
    // the person, afterwards, in each repository
    git(root, 'status', '--short');
    git(path.join(root, 'x'), 'status', '--short');
    git(path.join(root, 'wt'), 'status', '--short');
    git(path.join(root, 'nested'), 'status', '--short');
    assert.equal(existsSync(marker), false, 'an fsmonitor the command planted ran');
  });

  test('a git dir an approved command makes is asked about once, as one; a no removes it', async () => {
    if (!haveBwrap) return;
    const base = tempDir();
    const root = path.join(base, 'ws');
    mkdirSync(root);
    git(root, 'init', '-q');
    // a new git dir, made the way a script would, with an fsmonitor in its config
    writeFileSync(path.join(root, 'mk.js'), `const fs = require('node:fs');\nfor (const d of ['inner/.git/objects', 'inner/.git/refs']) fs.mkdirSync(d, { recursive: true });\nfs.writeFileSync('inner/.git/HEAD', 'ref: refs/heads/main\\n');\nfs.writeFileSync('inner/.git/config', '[core]\\n\\tfsmonitor = touch ${path.join(base, 'ran')}\\n');\n`);
    const a = approver(() => false);
    const r = await gateFor(root, a).call('local_shell', { command: 'node mk.js' });
    assert.deepEqual(a.asked.map((q) => q.locations[0]), [path.join(root, 'inner/.git')]);
    assert.equal(existsSync(path.join(root, 'inner/.git')), false);
    assert.match((r.result as ShellResult).stderr, /removed .*inner\/\.git.*a new git repository/);
  });
});

/** A gate whose shell's $HOME is `home` (the workspace may be the home itself). */
function gateAtHome(root: string, home: string, a: Approver): Gate {
  const gate = new Gate({ envelope: buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES), approver: a });
  gate.add(new LocalShell({ root, env: { ...process.env, HOME: home, XDG_DATA_HOME: dataHome } }));
  return gate;
}

describe('every tier, the credential quarantine included', () => {
  test('the workspace is the home with no .ssh: an approved step that makes .ssh/authorized_keys has it moved aside and reported; build/out.txt beside it stays', async () => {
    if (!haveBwrap) return;
    const home = tempDir();
    const a = approver(() => true);
    // a build step whose script does it (a line naming .ssh would be refused before it ran)
    writeFileSync(path.join(home, 'build.sh'), 'mkdir -p .ssh build && printf ssh-ed25519-marker > .ssh/authorized_keys && printf built > build/out.txt\n');
    const r = await gateAtHome(home, home, a).call('local_shell', { command: 'sh build.sh' });
    const res = r.result as ShellResult;
    assert.equal(res.sandbox?.profile, 'workspace-write');
    assert.equal(res.exit_code, 0, res.stderr);
    assert.equal(existsSync(path.join(home, '.ssh')), false, '.ssh/authorized_keys was left behind');
    assert.equal(readFileSync(path.join(home, 'build/out.txt'), 'utf8'), 'built', 'the ordinary output stays');
    const left = res.left_behind ?? [];
    assert.deepEqual(left.map((l) => [l.path, l.tier, l.outcome]), [[path.join(home, '.ssh'), 'quarantine', 'removed']]);
    assert.match(res.stderr, /cxl: removed .*\/\.ssh, which the command created: it is in the credential quarantine/);
    assert.equal(readFileSync(path.join(left[0].movedTo!, 'authorized_keys'), 'utf8'), 'ssh-ed25519-marker', 'nothing is lost: it is in the data dir');
    assert.ok(left[0].movedTo!.startsWith(path.join(dataHome, 'cxl', 'left-behind') + path.sep));
    assert.equal(a.asked.length, 0, 'the quarantine is not a question');
  });

  test("each of the quarantine's names, and its glob-only ones (a key anywhere), made by an approved command: each is moved aside; an ordinary file beside them stays", async () => {
    if (!haveBwrap) return;
    const root = tempDir();
    const names: [string, boolean][] = [...namesOf('quarantine'), ['keys/id_rsa', false], ['deploy/id_ed25519.pub', false], ['vault.kdbx', false], ['tools/putty.ppk', false], ['src/ok.txt', false]];
    const a = approver(() => true);
    const r = await gateFor(root, a).call('local_shell', { command: planter(root, names) });
    const res = r.result as ShellResult;
    const created = [...res.stdout.matchAll(/^CREATED (.*)$/gm)].map((m) => m[1]);
    for (const n of ['.aws', '.netrc', '.npmrc', '.docker', '.kube', 'keys/id_rsa', 'src/ok.txt']) assert.ok(created.includes(n), `${n} was really created inside: ${res.stdout}`);
    for (const [n] of names.slice(0, -1)) assert.equal(existsSync(path.join(root, n)), false, `${n} was left behind`);
    assert.equal(existsSync(path.join(root, 'src/ok.txt')), true, 'the control stays');
    const removed = (res.left_behind ?? []).filter((l) => l.outcome === 'removed').map((l) => l.path);
    for (const n of created.filter((c) => c !== 'src/ok.txt')) assert.ok(removed.some((p) => path.join(root, n) === p || path.join(root, n).startsWith(`${p}/`)), `${n} is reported as removed`);
    // `.claude/.credentials.json` goes with `.claude`, a wall
    assert.ok((res.left_behind ?? []).every((l) => l.outcome === 'removed' && (l.tier === 'quarantine' || l.tier === 'write_wall')), JSON.stringify(res.left_behind));
    assert.ok((res.left_behind ?? []).filter((l) => l.tier === 'quarantine').length >= 40);
    assert.equal(a.asked.length, 0);
  });

  test('read-approve names an approved command makes (.env, a .pem) are its own: kept, reported in one line, nothing asked', async () => {
    if (!haveBwrap) return;
    const root = tempDir();
    const a = approver(() => false);
    const r = await gateFor(root, a).call('local_shell', { command: planter(root, [['.env', false], ['certs/dev.pem', false]]) });
    const res = r.result as ShellResult;
    assert.ok(existsSync(path.join(root, '.env')) && existsSync(path.join(root, 'certs/dev.pem')));
    assert.deepEqual((res.left_behind ?? []).map((l) => `${path.relative(root, l.path)} ${l.tier} ${l.outcome}`).sort(), ['.env read_approve kept', 'certs/dev.pem read_approve kept']);
    assert.match(res.stderr, /cxl: the command created 2 files under read-approve names .*: kept, and hidden from later commands unless an approval names them/);
    assert.equal(a.asked.length, 0);
  });
});

describe('settling what a command left', () => {
  test("a quarantined dir that holds cxl's own stash (its data dir, made by the command) is moved whole, not into itself", async () => {
    const root = tempDir();
    const before = protectedNow([root]);
    mkdirSync(path.join(root, '.aws'));
    writeFileSync(path.join(root, '.aws', 'credentials'), 'planted\n');
    const left = await settle(before, [root], async () => true, path.join(root, '.aws', 'left-behind'));
    assert.equal(left.length, 1);
    assert.equal(left[0].tier, 'quarantine');
    assert.ok(left[0].movedTo!.startsWith(path.join(root, '.aws', 'left-behind') + path.sep), left[0].movedTo);
    assert.equal(readFileSync(path.join(left[0].movedTo!, 'credentials'), 'utf8'), 'planted\n');
    assert.deepEqual(readdirSync(root).sort(), ['.aws'], 'nothing is left beside it');
  });
});
