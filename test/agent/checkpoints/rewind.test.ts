// A restore is a write (docs/tui.md, "Going back"): real files in a temp dir, the changes made by
// the real file tools through the checkpointed IO (and commands recorded as the shell's are), then
// something swaps what the records name (a build step replaces a tracked directory with a link to
// .vscode, .husky, .git/hooks or out of the workspace; a directory becomes a git dir; a file
// becomes a second name of a key) and the rewind writes nothing through it, listing the path
// with why, while the files beside it (an overwritten one, a deleted one) come back: the control.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { BlobStore } from '../../../src/agent/checkpoints/blob_store.ts';
import { SessionCheckpoints } from '../../../src/agent/checkpoints/recorder.ts';
import { applyFiles, planRewind, type RestoreChecks } from '../../../src/agent/checkpoints/rewind.ts';
import { buildEnvelope, type EnvelopeSpec } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { Gate } from '../../../src/core/gate/gate.ts';
import { RecordedIO } from '../../../src/core/local_fs/recorded_io.ts';
import { LocalFsToolset } from '../../../src/core/local_fs/toolset.ts';
import { NATIVE_GIT_BUILTIN } from '../../../src/core/native_git/builtin.ts';
import { IdentityIndex } from '../../../src/core/protect/identity.ts';

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-restore-')));
after(() => fs.rmSync(base, { recursive: true, force: true }));
let k = 0;

const EXTRA: Record<string, EnvelopeSpec> = { no_docs: { extends: 'default', files: { write: { deny_paths: ['docs/**'] } } } };
const env = (name: string) => buildEnvelope(name, { ...SHIPPED_ENVELOPES, ...EXTRA }, FLOOR_RULES);

interface World {
  /** the parent of the workspace: what is "outside" */
  dir: string;
  root: string;
  cps: SessionCheckpoints;
  fsTools: LocalFsToolset;
  checks: RestoreChecks;
  /** one prompt: `work` runs inside it */
  prompt(text: string, work: () => Promise<void>): Promise<number>;
  /** a change made the way a command's is recorded (the workspace compared around it) */
  command(change: () => void): Promise<void>;
  read(rel: string): string;
}

function world(files: Record<string, string>, envelope = 'default'): World {
  const dir = path.join(base, String(k++));
  const root = path.join(dir, 'ws');
  fs.mkdirSync(root, { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  const cps = new SessionCheckpoints({ root, store: new BlobStore(path.join(dir, 'data'), 'session'), save: () => {} });
  const plain = new LocalFsToolset({ root, approvals: 'allow', grepEngine: 'builtin' });
  const fsTools = new LocalFsToolset({ root, approvals: 'allow', grepEngine: 'builtin', io: new RecordedIO(plain.io, cps) });
  fs.mkdirSync(path.join(dir, 'home'));
  return {
    dir,
    root,
    cps,
    fsTools,
    // a fresh index over an empty home: it sees the workspace's keys as the session's would
    checks: { envelope: env(envelope), identity: new IdentityIndex({ home: path.join(dir, 'home') }) },
    async prompt(text, work) {
      const cp = cps.begin({ text, history: 0, replay: 0 });
      await work();
      cps.end();
      return cp.n;
    },
    async command(change) {
      const before = await cps.beforeCommand();
      change();
      cps.afterCommand(before);
    },
    read: (rel) => fs.readFileSync(path.join(root, rel), 'utf8'),
  };
}

async function edit(w: World, rel: string, content: string): Promise<void> {
  await w.fsTools.call('read_file', { path: rel });
  await w.fsTools.call('write_file', { path: rel, content });
}

/** Plan and apply, as /rewind does; the plan's entry for each path. */
async function rewind(w: World, n: number, overwrite: string[] = []) {
  const plan = await planRewind(w.cps, n, 'files', w.checks);
  const done = await applyFiles(w.cps, plan, new Set(overwrite), w.checks);
  return { plan: Object.fromEntries(plan.files.map((f) => [f.path, f])), done, skipped: Object.fromEntries(done.skipped.map((s) => [s.path, s.why])) };
}

const BEFORE = '{"version": "2.0.0", "tasks": []}\n';
// what sits in the walled directory: a restore through the link would replace it
const WALLED = '{"tasks": [{"label": "mine", "command": "echo kept"}]}\n';

for (const [wall, file] of [['.vscode', 'tasks.json'], ['.husky', 'pre-commit'], ['.git/hooks', 'pre-commit']] as const) {
  test(`a tracked directory swapped for a link into ${wall}: the rewind writes nothing through it and lists the path as not restored; an overwritten and a deleted file beside it are restored (control)`, async () => {
    const w = world({ [`tools/cfg/${file}`]: BEFORE, 'a.txt': 'a before\n', 'gone.txt': 'gone before\n', [`${wall}/${file}`]: WALLED });
    const n = await w.prompt('change them', async () => {
      await edit(w, `tools/cfg/${file}`, '{"version": "2.0.0", "tasks": ["changed"]}\n');
      await edit(w, 'a.txt', 'a after\n');
      await w.command(() => fs.rmSync(path.join(w.root, 'gone.txt')));
    });
    // the build step: tools/cfg becomes a link to ../<wall>, so tools/cfg/<file> is <wall>/<file>
    fs.rmSync(path.join(w.root, 'tools/cfg'), { recursive: true });
    fs.symlinkSync(`../${wall}`, path.join(w.root, 'tools/cfg'));
    const r = await rewind(w, n, [`tools/cfg/${file}`]);
    assert.equal(w.read(`${wall}/${file}`), WALLED, `nothing was written into ${wall}`);
    assert.match(r.plan[`tools/cfg/${file}`].cannot ?? '', new RegExp(`\`tools/cfg\` is a symbolic link now \\(to \`\\.\\./${wall.replace('.', '\\.')}\`\\): restoring tools/cfg/${file} would write ${wall.replace('.', '\\.')}/${file} instead`));
    assert.equal(r.plan[`tools/cfg/${file}`].diff, '', `the content in ${wall} is not read for the preview`);
    assert.match(r.skipped[`tools/cfg/${file}`] ?? '', /is a symbolic link now/);
    assert.equal(w.read('a.txt'), 'a before\n', 'the overwritten file is restored');
    assert.equal(w.read('gone.txt'), 'gone before\n', 'the deleted file is recreated');
    assert.deepEqual(r.done.restored.sort(), ['a.txt', 'gone.txt']);
  });
}

test('a tracked directory swapped for a link out of the workspace: nothing is written outside, the path is listed with why', async () => {
  const w = world({ 'sub/c.txt': 'c before\n', 'a.txt': 'a before\n' });
  const outside = path.join(w.dir, 'outside');
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'c.txt'), 'outside, mine\n');
  const n = await w.prompt('change', async () => {
    await edit(w, 'sub/c.txt', 'c after\n');
    await edit(w, 'a.txt', 'a after\n');
  });
  fs.rmSync(path.join(w.root, 'sub'), { recursive: true });
  fs.symlinkSync(outside, path.join(w.root, 'sub'));
  const r = await rewind(w, n, ['sub/c.txt']);
  assert.equal(fs.readFileSync(path.join(outside, 'c.txt'), 'utf8'), 'outside, mine\n');
  assert.deepEqual(fs.readdirSync(outside), ['c.txt']);
  assert.match(r.skipped['sub/c.txt'] ?? '', /resolves outside the workspace root.*`sub` is a symbolic link now/);
  assert.equal(r.plan['sub/c.txt'].diff, '', 'the file outside is not read for the preview');
  assert.equal(w.read('a.txt'), 'a before\n');
});

test('a deleted file whose parent directory is now a link (into the workspace, or out of it) is not recreated through it; with the directory in place it is (control)', async () => {
  for (const where of ['inside', 'outside', 'none'] as const) {
    const w = world({ 'd/x.txt': 'x before\n', 'elsewhere/keep.txt': 'keep\n' });
    const n = await w.prompt('delete it', () => w.command(() => fs.rmSync(path.join(w.root, 'd/x.txt'))));
    const outside = path.join(w.dir, 'outside');
    fs.mkdirSync(outside);
    if (where !== 'none') {
      fs.rmSync(path.join(w.root, 'd'), { recursive: true });
      fs.symlinkSync(where === 'inside' ? 'elsewhere' : outside, path.join(w.root, 'd'));
    }
    const r = await rewind(w, n);
    if (where === 'none') {
      assert.equal(w.read('d/x.txt'), 'x before\n', 'recreated');
      continue;
    }
    assert.deepEqual(fs.readdirSync(path.join(w.root, 'elsewhere')), ['keep.txt'], `${where}: nothing created in the link's target`);
    assert.deepEqual(fs.readdirSync(outside), [], `${where}: nothing created outside`);
    assert.match(r.skipped['d/x.txt'] ?? '', /`d` is a symbolic link now/, `${where}: ${JSON.stringify(r.skipped)}`);
  }
});

test('a directory the session wrote in that is now a git dir by shape is walled, and a record naming .git itself is refused by the wall; nothing is recreated there', async () => {
  const w = world({ 'third/lib/x.txt': 'x before\n', 'a.txt': 'a before\n' });
  const n = await w.prompt('change', async () => {
    await w.command(() => fs.rmSync(path.join(w.root, 'third/lib/x.txt')));
    await edit(w, 'a.txt', 'a after\n');
  });
  // third/lib becomes a bare repository (HEAD, objects, refs): git's own files
  execFileSync('git', ['init', '-q', '--bare', path.join(w.root, 'third/lib')]);
  // and a record (as a saved session could hold) naming a hook inside .git
  fs.mkdirSync(path.join(w.root, '.git/hooks'), { recursive: true });
  const hook = path.join(w.root, '.git/hooks/pre-commit');
  const m = await w.prompt('a hook', async () => {
    const ch = await w.cps.beforeWrite(hook, null);
    fs.writeFileSync(hook, '#!/bin/sh\necho hook\n');
    w.cps.afterWrite(hook, ch);
  });
  const r = await rewind(w, n);
  assert.equal(fs.existsSync(path.join(w.root, 'third/lib/x.txt')), false, 'nothing recreated inside the git dir');
  assert.match(r.skipped['third/lib/x.txt'] ?? '', /the session's envelope refuses writing it: deny: path `third\/lib\/x\.txt` is inside the git dir `third\/lib`/);
  assert.equal(w.read('a.txt'), 'a before\n', 'control: restored');
  assert.equal(m > n, true);
  const h = await rewind(w, m);
  assert.equal(fs.readFileSync(hook, 'utf8'), '#!/bin/sh\necho hook\n', 'the hook the record would delete stays');
  assert.match(h.skipped['.git/hooks/pre-commit'] ?? '', /write wall/);
});

test('a file that is now a hard link to a key (the credential quarantine) is neither read for the preview nor written; an ordinary file beside it is restored (control)', async () => {
  const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-marker\n';
  const w = world({ 'notes.txt': 'notes before\n', 'keys/id_ed25519': KEY, 'a.txt': 'a before\n' });
  const n = await w.prompt('change', async () => {
    await edit(w, 'notes.txt', 'notes after\n');
    await edit(w, 'a.txt', 'a after\n');
  });
  fs.rmSync(path.join(w.root, 'notes.txt'));
  fs.linkSync(path.join(w.root, 'keys/id_ed25519'), path.join(w.root, 'notes.txt'));
  const r = await rewind(w, n, ['notes.txt']);
  assert.match(r.plan['notes.txt'].cannot ?? '', /another name \(a hard link\) of keys\/id_ed25519, which is in the credential quarantine/);
  assert.ok(!JSON.stringify(r.plan).includes('secret-marker'), 'the key is not in the preview');
  assert.equal(fs.readFileSync(path.join(w.root, 'keys/id_ed25519'), 'utf8'), KEY);
  assert.equal(fs.statSync(path.join(w.root, 'notes.txt')).ino, fs.statSync(path.join(w.root, 'keys/id_ed25519')).ino, 'the link is left as it is');
  assert.equal(w.read('a.txt'), 'a before\n');
});

test('a restore is decided by the session\'s envelope now: read_only refuses every write back, a deny_paths refuses its paths, default restores (control)', async () => {
  for (const envelope of ['read_only', 'no_docs', 'default']) {
    const w = world({ 'docs/guide.md': 'guide before\n', 'a.txt': 'a before\n' }, envelope);
    const n = await w.prompt('change', async () => {
      await edit(w, 'docs/guide.md', 'guide after\n');
      await edit(w, 'a.txt', 'a after\n');
    });
    const r = await rewind(w, n);
    if (envelope === 'read_only') {
      assert.deepEqual(r.done.restored, []);
      assert.match(r.skipped['a.txt'] ?? '', /the session's envelope refuses writing it: deny: local_fs\.write_file is a write, files\.write is `deny`/);
      assert.equal(w.read('a.txt'), 'a after\n');
    } else if (envelope === 'no_docs') {
      assert.match(r.skipped['docs/guide.md'] ?? '', /files\.write\.deny_paths `docs\/\*\*`/);
      assert.equal(w.read('docs/guide.md'), 'guide after\n');
      assert.equal(w.read('a.txt'), 'a before\n');
    } else {
      assert.deepEqual(r.done.restored.sort(), ['a.txt', 'docs/guide.md']);
      assert.equal(w.read('docs/guide.md'), 'guide before\n');
    }
  }
});

test('an always-ask path (a husky hook in place, no link) is restored with its mode, and the preview says it is always asked and which mode it gets back', async () => {
  const w = world({ '.husky/pre-commit': '#!/bin/sh\nnpm test\n' });
  fs.chmodSync(path.join(w.root, '.husky/pre-commit'), 0o755);
  const n = await w.prompt('change the hook', () => w.command(() => fs.writeFileSync(path.join(w.root, '.husky/pre-commit'), '#!/bin/sh\necho changed\n')));
  const r = await rewind(w, n);
  assert.match(r.plan['.husky/pre-commit'].alwaysAsk ?? '', /husky hook scripts run on git commit and push.*restored with mode 0755/);
  assert.equal(w.read('.husky/pre-commit'), '#!/bin/sh\nnpm test\n');
  assert.equal(fs.statSync(path.join(w.root, '.husky/pre-commit')).mode & 0o777, 0o755);
});

test('the path is resolved again at the restore: a directory swapped for a link after the preview is not written through', async () => {
  const w = world({ 'cfg/tasks.json': BEFORE, '.vscode/tasks.json': WALLED, 'a.txt': 'a before\n' });
  const n = await w.prompt('change', async () => {
    await edit(w, 'cfg/tasks.json', '{"changed": true}\n');
    await edit(w, 'a.txt', 'a after\n');
  });
  const plan = await planRewind(w.cps, n, 'files', w.checks);
  assert.equal(plan.files.find((f) => f.path === 'cfg/tasks.json')?.cannot, undefined, 'clean at the preview');
  fs.rmSync(path.join(w.root, 'cfg'), { recursive: true });
  fs.symlinkSync('.vscode', path.join(w.root, 'cfg'));
  const done = await applyFiles(w.cps, plan, new Set(), w.checks);
  assert.equal(w.read('.vscode/tasks.json'), WALLED);
  assert.match(done.skipped.find((s) => s.path === 'cfg/tasks.json')?.why ?? '', /`cfg` is a symbolic link now/);
  assert.deepEqual(done.restored, ['a.txt']);
});

test('a file a prompt created that is now a link is not removed through it (its target stays); a created file still there is removed (control)', async () => {
  const w = world({ 'precious.txt': 'mine\n' });
  const n = await w.prompt('create', async () => {
    await w.fsTools.call('write_file', { path: 'new.txt', content: 'new\n' });
    await w.fsTools.call('write_file', { path: 'other.txt', content: 'other\n' });
  });
  fs.rmSync(path.join(w.root, 'new.txt'));
  fs.symlinkSync('precious.txt', path.join(w.root, 'new.txt'));
  const r = await rewind(w, n, ['new.txt']);
  assert.equal(w.read('precious.txt'), 'mine\n');
  assert.ok(fs.lstatSync(path.join(w.root, 'new.txt')).isSymbolicLink());
  assert.match(r.skipped['new.txt'] ?? '', /`new\.txt` is a symbolic link now/);
  assert.equal(fs.existsSync(path.join(w.root, 'other.txt')), false, 'control: removed');
});

/** A git repository in the world's workspace, and a gate that records through the session's checkpoints as a session's does. */
async function gitWorld(files: Record<string, string>): Promise<{ w: World; git: (...args: string[]) => string; gate: Gate }> {
  const w = world(files);
  const git = (...args: string[]) => execFileSync('git', ['-C', w.root, '-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'one');
  const gate = new Gate({ envelope: env('auto_edit'), autoApprove: true, effects: w.cps });
  gate.add((await NATIVE_GIT_BUILTIN.open({ root: w.root, warn: () => {} }, undefined)).toolset);
  return { w, git, gate };
}

test('native-git\'s git_restore, through a gate that records as a session\'s does: the rewind brings back the uncommitted edit it discarded', async () => {
  const { w, gate } = await gitWorld({ 'a.txt': 'committed\n' });
  fs.writeFileSync(path.join(w.root, 'a.txt'), 'my uncommitted edit\n');
  const n = await w.prompt('discard it', async () => void (await gate.call('native-git.git_restore', { paths: ['a.txt'] })));
  assert.equal(w.read('a.txt'), 'committed\n');
  const r = await rewind(w, n);
  assert.deepEqual(r.done.restored, ['a.txt']);
  assert.equal(w.read('a.txt'), 'my uncommitted edit\n');
});

test('native-git\'s git_checkout_branch is recorded: the rewind brings back the files the checkout changed, added and removed', async () => {
  const { w, git, gate } = await gitWorld({ 'a.txt': 'on main\n', 'gone.txt': 'only on main\n' });
  git('checkout', '-q', '-b', 'other');
  fs.writeFileSync(path.join(w.root, 'a.txt'), 'on other\n');
  fs.writeFileSync(path.join(w.root, 'new.txt'), 'only on other\n');
  git('rm', '-q', 'gone.txt');
  git('add', '.');
  git('commit', '-q', '-m', 'two');
  git('checkout', '-q', 'main');
  const n = await w.prompt('switch', async () => void (await gate.call('native-git.git_checkout_branch', { branch: 'other' })));
  assert.equal(w.read('a.txt'), 'on other\n');
  assert.equal(fs.existsSync(path.join(w.root, 'gone.txt')), false);
  const r = await rewind(w, n);
  assert.deepEqual([...r.done.restored].sort(), ['a.txt', 'gone.txt', 'new.txt']);
  assert.equal(w.read('a.txt'), 'on main\n');
  assert.equal(w.read('gone.txt'), 'only on main\n');
  assert.equal(fs.existsSync(path.join(w.root, 'new.txt')), false, 'the file the checkout brought is removed');
});
