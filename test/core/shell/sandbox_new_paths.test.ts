// The write wall for names that do not exist yet, and every git dir in the workspace, tried as an
// attacker would: an approved command (a project's script a person said yes to) creates each
// wall and always-ask name of the table, appends an fsmonitor line to a submodule's git config,
// plants a hook, repoints a gitfile and a linked worktree's commondir. Afterwards the person's
// own `git status`, run outside cxl, must run nothing: its fsmonitor marker never appears.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
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
