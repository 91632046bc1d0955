// A session's additional directories and its checkpoints: a file there is recorded by its
// absolute path (never joined onto the workspace root), and /rewind puts back THAT file through
// the same gate as the file tools' writes; a session that no longer has the directory, or one
// where it became a link, writes nothing. Real files in temp dirs, the real file tools through
// the checkpointed IO.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { BlobStore } from '../../../src/agent/checkpoints/blob_store.ts';
import { SessionCheckpoints } from '../../../src/agent/checkpoints/recorder.ts';
import { applyFiles, planRewind, type RestoreChecks } from '../../../src/agent/checkpoints/rewind.ts';
import { buildEnvelope } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { additionalRoots } from '../../../src/core/local_fs/extra_roots.ts';
import { RecordedIO } from '../../../src/core/local_fs/recorded_io.ts';
import { LocalFsToolset } from '../../../src/core/local_fs/toolset.ts';
import { IdentityIndex } from '../../../src/core/protect/identity.ts';

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-extra-cp-')));
after(() => fs.rmSync(base, { recursive: true, force: true }));
let k = 0;

/** Every file under `dir`, relative, sorted. */
function tree(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => !e.isDirectory())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

function world() {
  const dir = path.join(base, String(k++));
  const root = path.join(dir, 'ws');
  const other = path.join(dir, 'lib');
  const home = path.join(dir, 'home');
  for (const d of [root, other, home, path.join(other, 'src')]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(root, 'a.txt'), 'a before\n');
  fs.writeFileSync(path.join(other, 'src/x.txt'), 'x before\n');
  const extra = additionalRoots([other], { root, home });
  const store = new BlobStore(path.join(dir, 'data'), 'session');
  const saved: Record<string, unknown> = {};
  const cps = new SessionCheckpoints({ root, extra, store, save: (key, v) => (v === undefined ? delete saved[key] : (saved[key] = structuredClone(v))) });
  const plain = new LocalFsToolset({ root, extra, approvals: 'allow', grepEngine: 'builtin' });
  const tools = new LocalFsToolset({ root, extra, approvals: 'allow', grepEngine: 'builtin', io: new RecordedIO(plain.io, cps) });
  const checks: RestoreChecks = { envelope: buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES), identity: new IdentityIndex({ home }) };
  return { dir, root, other, extra, store, saved, cps, tools, checks };
}

async function edit(tools: LocalFsToolset, p: string, content: string): Promise<void> {
  await tools.call('read_file', { path: p });
  await tools.call('write_file', { path: p, content });
}

test('an edit in an additional directory is recorded by its absolute path and /rewind restores that file, writing nothing under the workspace', async () => {
  const w = world();
  const x = path.join(w.other, 'src/x.txt');
  const made = path.join(w.other, 'src/new.txt');
  const cp = w.cps.begin({ text: 'edit both', history: 0, replay: 0 });
  await edit(w.tools, x, 'x after\n');
  await w.tools.call('write_file', { path: made, content: 'new\n' });
  await edit(w.tools, 'a.txt', 'a after\n');
  w.cps.end();
  assert.deepEqual(Object.keys(cp.files).sort(), [made, x, 'a.txt'].sort(), 'the extra directory\'s files are keyed by their absolute path');
  const rootBefore = tree(w.root);
  const plan = await planRewind(w.cps, cp.n, 'files', w.checks);
  const byPath = Object.fromEntries(plan.files.map((f) => [f.path, f]));
  assert.equal(byPath[x]?.action, 'restore');
  assert.equal(byPath[made]?.action, 'delete');
  assert.match(byPath[x]?.diff ?? '', /-x after\n\+x before/);
  const done = await applyFiles(w.cps, plan, new Set(), w.checks);
  assert.deepEqual(done.skipped, []);
  assert.equal(fs.readFileSync(x, 'utf8'), 'x before\n', 'THAT file is restored');
  assert.equal(fs.existsSync(made), false, 'the file the prompt created there is removed');
  assert.equal(fs.readFileSync(path.join(w.root, 'a.txt'), 'utf8'), 'a before\n', 'the workspace file too (control)');
  assert.deepEqual(tree(w.root), rootBefore, 'nothing was written under the workspace root');
  assert.deepEqual(tree(w.other), ['src/x.txt']);
});

test('a session loaded without the additional directory: the rewind refuses its files as outside and writes nowhere; the workspace file is restored', async () => {
  const w = world();
  const x = path.join(w.other, 'src/x.txt');
  const cp = w.cps.begin({ text: 'edit both', history: 0, replay: 0 });
  await edit(w.tools, x, 'x after\n');
  await edit(w.tools, 'a.txt', 'a after\n');
  w.cps.end();
  // a later process, its session without the directory: the saved records, no extra roots
  const later = new SessionCheckpoints({ root: w.root, store: w.store, save: () => {}, saved: w.saved });
  const plan = await planRewind(later, cp.n, 'files', w.checks);
  const xPlan = plan.files.find((f) => f.path === x);
  assert.match(xPlan?.cannot ?? '', /resolves outside the workspace root/);
  const done = await applyFiles(later, plan, new Set(), w.checks);
  assert.deepEqual(done.restored, ['a.txt']);
  assert.equal(fs.readFileSync(x, 'utf8'), 'x after\n', 'left as it is');
  assert.deepEqual(tree(w.root), ['a.txt'], 'nothing written under the workspace (no root + absolute path)');
});

test('a directory inside the additional directory swapped for a link out of it: nothing is written through it, the path is listed with the link', async () => {
  const w = world();
  const x = path.join(w.other, 'src/x.txt');
  const outside = path.join(w.dir, 'outside');
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'x.txt'), 'outside, mine\n');
  const cp = w.cps.begin({ text: 'edit', history: 0, replay: 0 });
  await edit(w.tools, x, 'x after\n');
  w.cps.end();
  fs.rmSync(path.join(w.other, 'src'), { recursive: true });
  fs.symlinkSync(outside, path.join(w.other, 'src'));
  const plan = await planRewind(w.cps, cp.n, 'files', w.checks);
  const done = await applyFiles(w.cps, plan, new Set([x]), w.checks);
  assert.equal(fs.readFileSync(path.join(outside, 'x.txt'), 'utf8'), 'outside, mine\n');
  assert.deepEqual(done.restored, []);
  assert.match(done.skipped[0]?.why ?? '', new RegExp(`resolves outside.*\`${path.join(w.other, 'src').replace(/[.]/g, '\\.')}\` is a symbolic link now`));
});

test('the file tools with an additional directory: inside it reads and writes, a path outside both is refused', async () => {
  const w = world();
  const x = path.join(w.other, 'src/x.txt');
  const r = (await w.tools.call('read_file', { path: x })) as { content?: string };
  assert.match(JSON.stringify(r), /x before/);
  const elsewhere = path.join(w.dir, 'elsewhere.txt');
  fs.writeFileSync(elsewhere, 'no\n');
  await assert.rejects(w.tools.call('read_file', { path: elsewhere }), /outside the workspace root and the additional directories/);
  await assert.rejects(w.tools.call('write_file', { path: path.join(w.dir, 'new.txt'), content: 'no\n' }), /outside the workspace root and the additional directories/);
  assert.equal(fs.existsSync(path.join(w.dir, 'new.txt')), false);
  // the same toolset without the directory refuses it (control)
  const bare = new LocalFsToolset({ root: w.root, approvals: 'allow', grepEngine: 'builtin' });
  await assert.rejects(bare.call('read_file', { path: x }), /outside the workspace root/);
});

/** A command's effects, as the gate records them: `change` runs inside the recorder's comparison. */
function command(w: ReturnType<typeof world>, change: () => void): Promise<void> {
  return w.cps.around(async () => change());
}

test('a command that changes, creates and deletes files in an additional directory: recorded by absolute path, /rewind puts them back in place', async () => {
  const w = world();
  const x = path.join(w.other, 'src/x.txt');
  const gone = path.join(w.other, 'gone.txt');
  fs.writeFileSync(gone, 'gone before\n');
  const made = path.join(w.other, 'src/made.txt');
  const cp = w.cps.begin({ text: 'a command there', history: 0, replay: 0 });
  await command(w, () => {
    fs.writeFileSync(x, 'x');
    fs.writeFileSync(made, 'made');
    fs.rmSync(gone);
    fs.writeFileSync(path.join(w.root, 'a.txt'), 'a');
  });
  w.cps.end();
  assert.deepEqual(Object.keys(cp.files).sort(), [gone, made, x, 'a.txt'].sort());
  assert.ok(Object.values(cp.files).every((f) => f.by === 'command' && !f.lost), JSON.stringify(cp.files));
  assert.deepEqual(cp.notes, []);
  const rootBefore = tree(w.root);
  const plan = await planRewind(w.cps, cp.n, 'files', w.checks);
  assert.deepEqual(Object.fromEntries(plan.files.map((f) => [f.path, f.action])), { [gone]: 'recreate', [made]: 'delete', [x]: 'restore', 'a.txt': 'restore' });
  const done = await applyFiles(w.cps, plan, new Set(), w.checks);
  assert.deepEqual(done.skipped, []);
  assert.equal(fs.readFileSync(x, 'utf8'), 'x before\n');
  assert.equal(fs.readFileSync(gone, 'utf8'), 'gone before\n');
  assert.equal(fs.existsSync(made), false);
  assert.equal(fs.readFileSync(path.join(w.root, 'a.txt'), 'utf8'), 'a before\n');
  assert.deepEqual(tree(w.root), rootBefore);
  assert.deepEqual(tree(w.other), ['gone.txt', 'src/x.txt']);
});

test('one budget of files bounds a command\'s comparison: the workspace first, an additional directory gets what is left, and what is not compared is said', async () => {
  const w = world();
  for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(w.root, `f${i}.txt`), `${i}\n`);
  const x = path.join(w.other, 'src/x.txt');
  // six workspace files: a budget of six leaves the additional directory none
  let cp = w.cps.begin({ text: 'tight', history: 0, replay: 0 });
  let before = await w.cps.beforeCommand(6);
  assert.deepEqual(before.compared.map((c) => [c.dir, c.state.files.size, c.limit]), [[w.root, 6, 6], [w.other, 0, 0]]);
  fs.writeFileSync(x, 'x');
  w.cps.afterCommand(before);
  w.cps.end();
  assert.deepEqual(Object.keys(cp.files), [], 'not compared, so not recorded');
  assert.match(cp.notes.join('\n'), new RegExp(`changes in the additional directory ${w.other.replace(/[.]/g, '\\.')} are not recorded`));
  fs.writeFileSync(x, 'x before\n');
  // seven: the additional directory's one file is compared
  cp = w.cps.begin({ text: 'enough', history: 0, replay: 0 });
  before = await w.cps.beforeCommand(7);
  assert.deepEqual(before.compared.map((c) => [c.state.files.size, c.limit]), [[6, 7], [1, 1]]);
  fs.writeFileSync(x, 'x');
  w.cps.afterCommand(before);
  w.cps.end();
  assert.deepEqual(Object.keys(cp.files), [x]);
  assert.deepEqual(cp.notes, []);
});

test('an additional directory swapped for a link to elsewhere after the command: the rewind writes nothing there, nor through it in a later session that took the link', async () => {
  const w = world();
  const x = path.join(w.other, 'src/x.txt');
  const cp = w.cps.begin({ text: 'a command there', history: 0, replay: 0 });
  await command(w, () => fs.writeFileSync(x, 'x'));
  w.cps.end();
  assert.deepEqual(Object.keys(cp.files), [x]);
  // the directory moves away and a link to somewhere else takes its name
  const elsewhere = path.join(w.dir, 'elsewhere');
  fs.mkdirSync(path.join(elsewhere, 'src'), { recursive: true });
  fs.writeFileSync(path.join(elsewhere, 'src/x.txt'), 'elsewhere, mine\n');
  fs.renameSync(w.other, path.join(w.dir, 'moved'));
  fs.symlinkSync(elsewhere, w.other);
  const plan = await planRewind(w.cps, cp.n, 'files', w.checks);
  const done = await applyFiles(w.cps, plan, new Set([x]), w.checks);
  assert.deepEqual(done.restored, []);
  assert.match(done.skipped[0]?.why ?? '', new RegExp(`\`${w.other.replace(/[.]/g, '\\.')}\` is a symbolic link now`));
  // a later process opening the session with that directory resolves it to where it leads now
  const later = new SessionCheckpoints({ root: w.root, extra: additionalRoots([w.other], { root: w.root, home: path.join(w.dir, 'home') }), store: w.store, save: () => {}, saved: w.saved });
  assert.deepEqual(later.extra, [elsewhere]);
  const again = await applyFiles(later, await planRewind(later, cp.n, 'files', w.checks), new Set([x]), w.checks);
  assert.deepEqual(again.restored, []);
  assert.match(again.skipped[0]?.why ?? '', /would write .*elsewhere.* instead, and a restore puts a file back only where it was/);
  assert.equal(fs.readFileSync(path.join(elsewhere, 'src/x.txt'), 'utf8'), 'elsewhere, mine\n', 'nothing written where the link leads');
  assert.equal(fs.readFileSync(path.join(w.dir, 'moved/src/x.txt'), 'utf8'), 'x', 'nor in the moved directory');
  assert.deepEqual(tree(w.root), ['a.txt']);
});

test('an additional directory a command swaps for a link: what the link leads to is not recorded, and that is said', async () => {
  const w = world();
  const elsewhere = path.join(w.dir, 'elsewhere');
  fs.mkdirSync(elsewhere);
  const cp = w.cps.begin({ text: 'swap it', history: 0, replay: 0 });
  await command(w, () => {
    fs.renameSync(w.other, path.join(w.dir, 'moved'));
    fs.symlinkSync(elsewhere, w.other);
    fs.writeFileSync(path.join(elsewhere, 'new.txt'), 'new\n');
  });
  w.cps.end();
  assert.deepEqual(Object.keys(cp.files), []);
  assert.match(cp.notes.join('\n'), /is gone or a link now: the command's changes there are not recorded/);
  // the next command does not look into it either
  const cp2 = w.cps.begin({ text: 'next', history: 0, replay: 0 });
  await command(w, () => fs.writeFileSync(path.join(elsewhere, 'new.txt'), 'changed\n'));
  w.cps.end();
  assert.deepEqual(Object.keys(cp2.files), []);
  assert.match(cp2.notes.join('\n'), /is gone or a link now: a command's changes there are not recorded/);
});

test('an additional directory holding the workspace: a command\'s change there is recorded once, by the workspace\'s key', async () => {
  const w = world();
  // the workspace is a folder of the additional directory
  const root = path.join(w.other, 'ws');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'a.txt'), 'a before\n');
  const cps = new SessionCheckpoints({ root, extra: w.extra, store: w.store, save: () => {} });
  const x = path.join(w.other, 'src/x.txt');
  const cp = cps.begin({ text: 'both', history: 0, replay: 0 });
  await cps.around(async () => {
    fs.writeFileSync(path.join(root, 'a.txt'), 'a');
    fs.writeFileSync(x, 'x');
  });
  cps.end();
  assert.deepEqual(Object.keys(cp.files).sort(), [x, 'a.txt'].sort(), 'never also by its absolute path');
  const done = await applyFiles(cps, await planRewind(cps, cp.n, 'files', w.checks), new Set(), w.checks);
  assert.deepEqual(done.skipped, []);
  assert.equal(fs.readFileSync(x, 'utf8'), 'x before\n');
  assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'a before\n');
  // the workspace is walked once: the directory around it spends none of its budget on the workspace's files
  const before = await cps.beforeCommand(2);
  assert.deepEqual(before.compared.map((c) => [c.dir, [...c.state.files.keys()], c.state.capped]), [[root, ['a.txt'], false], [w.other, [x], false]]);
});
