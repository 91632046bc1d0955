// native-git against repositories that attack: a .git/config and .gitattributes that name
// programs for every read and write git makes (fsmonitor, pager, external diff, textconv, clean
// and smudge filters, hooks), credentials in the history and the working tree, a .git pointer or
// link out of the workspace, a linked worktree, an index that is a link to a file outside. Every
// git tool runs and none of those programs does; no credential byte is printed or staged; no
// hook or git config is ever written.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { test } from 'node:test';
import { guardedFs } from '../../../src/core/native_git/guarded_fs.ts';
import { worktreeWall } from '../../../src/core/native_git/withheld.ts';
import { git, refusal, repo, tempDir, text, toolset, write } from './fixture.ts';

test('a repository whose config runs programs on every git step: every native-git tool runs, none of them', async () => {
  const dir = repo([{ files: { 'a.txt': 'one\n', 'b.txt': 'bee\n' }, message: 'first' }]);
  git(dir, 'branch', 'other');
  const marker = path.join(tempDir('cxl-marker-'), 'ran');
  const touch = `touch ${marker}`;
  const hook = `#!/bin/sh\n${touch}\n`;
  for (const h of ['pre-commit', 'post-commit', 'commit-msg', 'post-checkout', 'reference-transaction', 'post-index-change', 'fsmonitor-watchman']) {
    fs.writeFileSync(path.join(dir, '.git/hooks', h), hook, { mode: 0o755 });
  }
  fs.appendFileSync(path.join(dir, '.git/config'), [
    '[core]',
    `\tfsmonitor = ${touch}`,
    `\tpager = ${touch}`,
    `\thooksPath = .git/hooks`,
    '[diff]',
    `\texternal = ${touch}`,
    '[diff "evil"]',
    `\ttextconv = ${touch}`,
    '[filter "evil"]',
    `\tclean = ${touch}`,
    `\tsmudge = ${touch}`,
    '\trequired = true',
    '',
  ].join('\n'));
  write(dir, { '.gitattributes': '* filter=evil diff=evil\n', 'a.txt': 'one\ntwo\n', 'c.txt': 'sea\n' });
  const ts = toolset(dir);
  await text(ts, 'git_status');
  await text(ts, 'git_diff');
  await text(ts, 'git_log');
  await text(ts, 'git_show', { ref: 'HEAD' });
  await text(ts, 'git_branch_list');
  await text(ts, 'git_blame', { path: 'a.txt' });
  await text(ts, 'git_add', { paths: '.' });
  await text(ts, 'git_commit', { message: 'second' });
  await text(ts, 'git_checkout_branch', { branch: 'other' });
  await text(ts, 'git_checkout_branch', { branch: 'main' });
  await text(ts, 'git_checkout_branch', { branch: 'made', create: true });
  write(dir, { 'b.txt': 'changed\n' });
  await text(ts, 'git_restore', { paths: 'b.txt' });
  assert.equal(fs.existsSync(marker), false, 'a program named by the repository ran');
  // the trap is armed: the git binary, run as it would be, runs the hook (harmless `touch`)
  write(dir, { 'b.txt': 'again\n' });
  const r = await import('node:child_process').then((cp) => cp.spawnSync('git', ['commit', '-qam', 'by git'], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' } }));
  assert.equal(r.status, 0, String(r.stderr));
  assert.equal(fs.existsSync(marker), true, 'the fixture does not arm what it claims to');
});

const SECRET_ENV = 'API_TOKEN=hunter2-env-secret';
const SECRET_KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nhunter2-key-material\n';
const SECRET_PEM = 'hunter2-pem-material';
const SECRETS = /hunter2/;

function leaky(): string {
  return repo([
    { files: { 'app.js': 'console.log(1)\n' }, message: 'app' },
    { files: { '.env': `${SECRET_ENV}\n`, 'id_rsa': SECRET_KEY, 'certs/server.pem': `${SECRET_PEM}\n`, '.ssh/id_ed25519': SECRET_KEY, 'app.js': 'console.log(2)\n' }, message: 'oops: add credentials' },
    { files: { '.env': `${SECRET_ENV}\nMORE=hunter2-more\n`, 'id_rsa': `${SECRET_KEY}more\n` }, message: 'change them' },
  ]);
}

test('credentials in the history: show, log and diff name them and never print a byte; blame refuses them', async () => {
  const dir = leaky();
  const ts = toolset(dir);
  for (const ref of ['HEAD', 'HEAD~1']) {
    const s = await text(ts, 'git_show', { ref });
    assert.doesNotMatch(s, SECRETS, s);
    assert.match(s, /diff --git a\/\.env b\/\.env\n(?:new file\n)?\(content not shown: \.env: it is on the read-approve list/);
    assert.match(s, /diff --git a\/id_rsa b\/id_rsa\n(?:new file\n)?\(content not shown: id_rsa: it is in the credential quarantine\)/);
  }
  const added = await text(ts, 'git_show', { ref: 'HEAD~1' });
  assert.match(added, /certs\/server\.pem: it is on the read-approve list/);
  assert.match(added, /\.ssh\/id_ed25519: it is in the credential quarantine/);
  assert.match(added, /\+console\.log\(2\)/);
  assert.doesNotMatch(await text(ts, 'git_log', { n: 50 }), SECRETS);
  assert.doesNotMatch(await text(ts, 'git_log', { path: '.env' }), SECRETS);
  write(dir, { '.env': 'API_TOKEN=hunter2-new\n', 'id_rsa': 'hunter2-new-key\n' });
  const d = await text(ts, 'git_diff');
  assert.doesNotMatch(d, SECRETS, d);
  assert.match(d, /diff --git a\/\.env b\/\.env\n\(content not shown/);
  assert.doesNotMatch(await text(ts, 'git_diff', { path: '.env' }), SECRETS);
  for (const p of ['.env', 'id_rsa', 'certs/server.pem', '.ssh/id_ed25519']) {
    assert.match(await refusal(ts.call('git_blame', { path: p }), 'quarantined'), /never show the content/);
  }
});

test('git_add never stages a credential: named alone it is refused, under "." it is left out and named', async () => {
  const dir = repo([{ files: { 'app.js': 'x\n' }, message: 'app' }]);
  write(dir, { '.ssh/id_rsa': SECRET_KEY, '.env': `${SECRET_ENV}\n`, 'keys/deploy.key': 'k\n', 'app.js': 'y\n' });
  fs.linkSync(path.join(dir, '.ssh/id_rsa'), path.join(dir, 'innocent.txt'));
  const ts = toolset(dir);
  assert.match(await refusal(ts.call('git_add', { paths: '.ssh/id_rsa' }), 'quarantined'), /\.ssh\/id_rsa is never staged: it is in the credential quarantine/);
  assert.match(await refusal(ts.call('git_add', { paths: ['app.js', '.env'] }), 'quarantined'), /\.env is never staged: it is on the read-approve list/);
  assert.match(await refusal(ts.call('git_add', { paths: 'innocent.txt' }), 'quarantined'), /innocent\.txt is never staged/);
  assert.equal(git(dir, 'diff', '--cached', '--name-only'), '');
  const r = (await ts.call('git_add', { paths: '.' })) as { staged: string[]; left_out: string[]; text: string };
  assert.deepEqual(r.staged, ['app.js']);
  assert.deepEqual(r.left_out.sort(), ['.env', '.ssh/id_rsa', 'innocent.txt', 'keys/deploy.key']);
  assert.equal(git(dir, 'diff', '--cached', '--name-only'), 'app.js\n');
});

test('a .git pointer or link out of the workspace is refused; one inside is followed; a linked worktree is refused', async () => {
  const outside = repo([{ files: { 'f.txt': 'outside\n' }, message: 'm' }]);
  const ws = tempDir();
  fs.writeFileSync(path.join(ws, '.git'), `gitdir: ${path.join(outside, '.git')}\n`);
  assert.match(await refusal(toolset(ws).call('git_log', {}), 'escape'), /a \.git gitdir: pointer .* outside the allowed directory/);
  const ws2 = tempDir();
  fs.symlinkSync(path.join(outside, '.git'), path.join(ws2, '.git'));
  assert.match(await refusal(toolset(ws2).call('git_status', {}), 'escape'), /a \.git symbolic link .* outside the allowed directory/);
  const ws3 = repo([{ files: { 'f.txt': 'inside\n' }, message: 'm' }]);
  fs.renameSync(path.join(ws3, '.git'), path.join(ws3, 'realgit'));
  fs.writeFileSync(path.join(ws3, '.git'), 'gitdir: realgit\n');
  assert.match(await text(toolset(ws3), 'git_log'), / {4}m\n$/);
  const main = repo([{ files: { 'f.txt': 'x\n' }, message: 'm' }]);
  git(main, 'worktree', 'add', '-q', path.join(main, 'wt'), '-b', 'wt');
  assert.match(await refusal(toolset(path.join(main, 'wt'), { _allowed_dir: '..' }).call('git_status', {}), 'not_found'), /linked worktree .* not support/);
  fs.writeFileSync(path.join(tempDir(), 'x'), '');
  const bad = tempDir();
  fs.writeFileSync(path.join(bad, '.git'), 'nothing here\n');
  assert.match(await refusal(toolset(bad).call('git_status', {}), 'not_found'), /carries no gitdir: pointer/);
});

test('no hook and no git config is written, and no write goes through a link: by construction', async () => {
  const dir = repo([{ files: { 'a.txt': 'one\n' }, message: 'm' }]);
  const gitdir = path.join(dir, '.git');
  const gfs = guardedFs({ top: dir, gitdir, base: dir }, worktreeWall).promises as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  await assert.rejects(gfs.writeFile(path.join(gitdir, 'hooks/pre-commit'), '#!/bin/sh\n'), /hooks and git config are never written/);
  await assert.rejects(gfs.writeFile(path.join(gitdir, 'config'), '[core]\n'), /hooks and git config are never written/);
  await assert.rejects(gfs.mkdir(path.join(gitdir, 'hooks/x')), /never written/);
  await assert.rejects(gfs.writeFile(path.join(dir, '.vscode/tasks.json'), '{}'), /directory does not exist|write wall/);
  fs.mkdirSync(path.join(dir, '.vscode'));
  await assert.rejects(gfs.writeFile(path.join(dir, '.vscode/tasks.json'), '{}'), /write wall/);
  await assert.rejects(gfs.writeFile(path.join(tempDir(), 'x'), 'x'), /outside the repository/);
  await gfs.writeFile(path.join(gitdir, 'objects/info-test'), 'ok');
  // an index that is a link to a file outside: staging refuses instead of writing through it
  const victim = path.join(tempDir(), 'victim.txt');
  fs.writeFileSync(victim, 'precious\n');
  fs.copyFileSync(path.join(gitdir, 'index'), `${victim}.idx`);
  fs.rmSync(path.join(gitdir, 'index'));
  fs.copyFileSync(`${victim}.idx`, victim);
  fs.symlinkSync(victim, path.join(gitdir, 'index'));
  const before = fs.readFileSync(victim);
  write(dir, { 'a.txt': 'two\n' });
  assert.match(await refusal(toolset(dir).call('git_add', { paths: 'a.txt' }), 'escape'), /it is a symbolic link/);
  assert.deepEqual(fs.readFileSync(victim), before);
});
