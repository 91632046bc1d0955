// The checkpoint store on real files in a temp dir: each version kept once and privately, copied
// to a fork, capped (what is past a cap is recorded as lost and a rewind says it cannot restore
// it, restoring the rest), and removed when its session is gone.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { BlobStore, pruneOrphans, sha256 } from '../../../src/agent/checkpoints/blob_store.ts';
import { SessionCheckpoints } from '../../../src/agent/checkpoints/recorder.ts';
import { applyFiles, planRewind } from '../../../src/agent/checkpoints/rewind.ts';
import { buildEnvelope } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { runWriter } from '../../helpers/store_writer.ts';
import { mountTmpfs } from '../../helpers/tmpfs.ts';

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-blobs-')));
after(() => fs.rmSync(base, { recursive: true, force: true }));
let k = 0;
const fresh = () => {
  const dir = path.join(base, String(k++));
  fs.mkdirSync(dir, { recursive: true });
  return dir;
};

test('each version is kept once by its sha256, private to the person, and a fork gets it as a link', async () => {
  const root = fresh();
  const store = new BlobStore(root, 'sess-1');
  const data = Buffer.from('version one\n');
  const hash = sha256(data);
  assert.equal(await store.put(hash, data), undefined);
  assert.equal(await store.put(hash, data), undefined);
  const file = path.join(store.dir, hash.slice(0, 2), hash.slice(2));
  assert.deepEqual(fs.readdirSync(path.dirname(file)), [hash.slice(2)], 'one file for one version');
  assert.equal(store.bytes(), data.length, 'counted once');
  if (process.platform !== 'win32') {
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
  }
  assert.deepEqual(store.get(hash), data);

  const fork = new BlobStore(root, 'sess-2');
  store.copyTo(fork);
  assert.deepEqual(fork.get(hash), data);
  assert.equal(fs.statSync(path.join(fork.dir, hash.slice(0, 2), hash.slice(2))).ino, fs.statSync(file).ino, 'a hard link, not a second copy');
  assert.throws(() => new BlobStore(root, '../escape'), /invalid session id/);
});

test('a file over the per-file cap, or past the session cap, is recorded as lost; the rewind restores the rest and says why not those', async () => {
  const ws = fresh();
  const cps = new SessionCheckpoints({ root: ws, store: new BlobStore(fresh(), 'capped', { blobBytes: 100, sessionBytes: 130 }), save: () => {} });
  const before: Record<string, string> = { 'small.txt': 's'.repeat(50), 'big.txt': 'b'.repeat(200), 'later.txt': 'l'.repeat(90) };
  for (const [rel, text] of Object.entries(before)) fs.writeFileSync(path.join(ws, rel), text);
  cps.begin({ text: 'rewrite them all', history: 0, replay: 0 });
  for (const rel of Object.keys(before)) {
    const abs = path.join(ws, rel);
    const now = fs.readFileSync(abs);
    const change = await cps.beforeWrite(abs, { sha256: sha256(now), bytes: now });
    fs.writeFileSync(abs, `rewritten ${rel}\n`);
    cps.afterWrite(abs, change);
  }
  cps.end();
  const files = cps.prompts()[0].files;
  assert.equal(files['small.txt'].lost, undefined);
  assert.match(files['big.txt'].lost ?? '', /200 bytes, over the 100 a checkpoint keeps of one file/);
  assert.match(files['later.txt'].lost ?? '', /already hold 50 bytes \(the cap is 130\)/);

  const plan = await planRewind(cps, 1, 'files', { envelope: buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES) });
  const byPath = Object.fromEntries(plan.files.map((f) => [f.path, f]));
  assert.equal(byPath['small.txt'].cannot, undefined);
  assert.match(byPath['big.txt'].cannot ?? '', /its content before was not kept/);
  assert.match(byPath['later.txt'].cannot ?? '', /its content before was not kept/);
  const done = await applyFiles(cps, plan, new Set(), { envelope: buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES) });
  assert.deepEqual(done.restored, ['small.txt']);
  assert.deepEqual(done.skipped.map((s) => s.path).sort(), ['big.txt', 'later.txt']);
  assert.equal(fs.readFileSync(path.join(ws, 'small.txt'), 'utf8'), before['small.txt']);
  assert.equal(fs.readFileSync(path.join(ws, 'big.txt'), 'utf8'), 'rewritten big.txt\n', 'what cannot be restored is left as it is');
});

test('the checkpoints of a session that is gone are removed, and only those', async () => {
  const root = fresh();
  const sessions = fresh();
  fs.writeFileSync(path.join(sessions, 'alive.jsonl'), '{}\n');
  fs.writeFileSync(path.join(sessions, 'legacy.json'), '{}');
  for (const id of ['alive', 'legacy', 'gone']) {
    const s = new BlobStore(root, id);
    const d = Buffer.from(`content of ${id}`);
    await s.put(sha256(d), d);
  }
  fs.mkdirSync(path.join(root, 'not a session id'));
  assert.deepEqual(pruneOrphans(root, sessions), ['gone']);
  assert.deepEqual(fs.readdirSync(root).sort(), ['alive', 'legacy', 'not a session id']);
});

/** A prompt that rewrites `files` (each recorded as the file tools record a write), in a fresh workspace. */
async function rewritten(files: Record<string, string>, o: { notice?: (t: string) => void; limits?: { blobBytes?: number; sessionBytes?: number }; storeRoot?: string } = {}) {
  const ws = fresh();
  const cps = new SessionCheckpoints({ root: ws, store: new BlobStore(o.storeRoot ?? fresh(), 'sess', o.limits), save: () => {}, ...(o.notice ? { notice: o.notice } : {}) });
  for (const [rel, text] of Object.entries(files)) fs.writeFileSync(path.join(ws, rel), text);
  cps.begin({ text: 'rewrite', history: 0, replay: 0 });
  for (const rel of Object.keys(files)) {
    const abs = path.join(ws, rel);
    const now = fs.readFileSync(abs);
    const change = await cps.beforeWrite(abs, { sha256: sha256(now), bytes: now });
    fs.writeFileSync(abs, `rewritten ${rel}\n`);
    cps.afterWrite(abs, change);
  }
  cps.end();
  const blob = (rel: string) => {
    const h = cps.prompts()[0].files[rel].before!;
    return path.join(cps.store.dir, h.slice(0, 2), h.slice(2));
  };
  return { ws, cps, blob };
}

const checks = () => ({ envelope: buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES) });

test('a kept version cut short, emptied, altered or replaced by a link to a file outside is "cannot be restored": the file is not written over; an intact one beside them is restored (control)', async () => {
  const before = { 'ok.txt': 'ok before\n', 'short.txt': 'short before, long enough to cut\n', 'empty.txt': 'empty before\n', 'altered.txt': 'altered before\n', 'linked.txt': 'linked before\n' };
  const { ws, cps, blob } = await rewritten(before);
  const outside = path.join(fresh(), 'secret.txt');
  fs.writeFileSync(outside, 'SECRET-OUTSIDE-7c1e\n');
  fs.truncateSync(blob('short.txt'), 10);
  fs.truncateSync(blob('empty.txt'), 0);
  fs.writeFileSync(blob('altered.txt'), 'ALTERED before\n');
  fs.rmSync(blob('linked.txt'));
  fs.symlinkSync(outside, blob('linked.txt'));
  const plan = await planRewind(cps, 1, 'files', checks());
  const byPath = Object.fromEntries(plan.files.map((f) => [f.path, f]));
  assert.equal(byPath['ok.txt'].cannot, undefined);
  assert.match(byPath['short.txt'].cannot ?? '', /damaged: 10 bytes that are not the version it names/);
  assert.match(byPath['empty.txt'].cannot ?? '', /damaged: emptied/);
  assert.match(byPath['altered.txt'].cannot ?? '', /damaged: .* not the version it names/);
  assert.match(byPath['linked.txt'].cannot ?? '', /symbolic link/);
  for (const f of plan.files) assert.doesNotMatch(f.diff, /SECRET-OUTSIDE/, 'the file outside is never read into a preview');
  const done = await applyFiles(cps, plan, new Set(), checks());
  assert.deepEqual(done.restored, ['ok.txt']);
  assert.equal(fs.readFileSync(path.join(ws, 'ok.txt'), 'utf8'), before['ok.txt']);
  for (const rel of ['short.txt', 'empty.txt', 'altered.txt', 'linked.txt']) assert.equal(fs.readFileSync(path.join(ws, rel), 'utf8'), `rewritten ${rel}\n`, `${rel} is left as it is`);
  // and a version damaged after the preview is not written either
  const again = await rewritten({ 'late.txt': 'late before\n' });
  const p2 = await planRewind(again.cps, 1, 'files', checks());
  fs.truncateSync(again.blob('late.txt'), 3);
  const d2 = await applyFiles(again.cps, p2, new Set(), checks());
  assert.deepEqual(d2.restored, []);
  assert.match(d2.skipped[0].why, /damaged/);
  assert.equal(fs.readFileSync(path.join(again.ws, 'late.txt'), 'utf8'), 'rewritten late.txt\n');
});

test('a version cut short in the store is written again when the same content is kept later, not taken as kept', async () => {
  const { cps, blob } = await rewritten({ 'a.txt': 'the same content\n' });
  fs.truncateSync(blob('a.txt'), 4);
  const data = Buffer.from('the same content\n');
  assert.equal(await cps.store.put(sha256(data), data), undefined);
  assert.deepEqual(cps.store.get(sha256(data)), data);
});

test('the session\'s cap reached, and a full disk, are said when they happen (once), not first at /rewind', async () => {
  const said: string[] = [];
  await rewritten({ 'a.txt': 'a'.repeat(60), 'b.txt': 'b'.repeat(60), 'c.txt': 'c'.repeat(60) }, { notice: (t) => said.push(t), limits: { sessionBytes: 100 } });
  assert.equal(said.length, 1, said.join('\n'));
  assert.match(said[0], /Checkpoint not kept for b\.txt: the session's checkpoint cap is reached.*\/rewind cannot put them back/);
  // a file over the per-file cap is only noted (it is not the store's doing)
  const quiet: string[] = [];
  await rewritten({ 'big.txt': 'x'.repeat(300) }, { notice: (t) => quiet.push(t), limits: { blobBytes: 100 } });
  assert.deepEqual(quiet, []);
  const mnt = mountTmpfs(path.join(fresh(), 'mnt'), '64k');
  assert.ok(!('error' in mnt), `this test mounts a tmpfs (as root): ${'error' in mnt ? mnt.error : ''}`);
  try {
    const full: string[] = [];
    const r = await rewritten({ 'one.txt': 'o'.repeat(50 * 1024), 'two.txt': 't'.repeat(50 * 1024) }, { notice: (t) => full.push(t), storeRoot: mnt.dir });
    assert.equal(full.length, 1, full.join('\n'));
    assert.match(full[0], /Checkpoint not kept for two\.txt: the disk is full: no space left on the device/);
    assert.match(r.cps.prompts()[0].files['two.txt'].lost ?? '', /no space left/);
    assert.deepEqual(fs.readdirSync(path.join(mnt.dir, 'sess')).flatMap((d) => fs.readdirSync(path.join(mnt.dir, 'sess', d))).filter((f) => f.endsWith('.tmp')), [], 'no temp file left');
  } finally {
    mnt.unmount();
  }
});

test('kill -9 while versions are kept, ten times: every version under its name is whole (its sha256 is its name)', { timeout: 180_000 }, async () => {
  const root = fresh();
  for (let round = 0; round < 10; round++) {
    const w = runWriter(['spin-blob', root, 'killed']);
    await w.started;
    await new Promise((r) => setTimeout(r, 5 + Math.floor(Math.random() * 60)));
    w.child.kill('SIGKILL');
    await w.done;
  }
  const store = new BlobStore(root, 'killed');
  let n = 0;
  for (const sub of fs.readdirSync(store.dir)) {
    for (const f of fs.readdirSync(path.join(store.dir, sub))) {
      if (f.endsWith('.tmp')) continue;
      n++;
      assert.ok(store.get(`${sub}${f}`), `${sub}/${f} is not the version its name says`);
    }
  }
  assert.ok(n >= 10, `${n} versions kept`);
});
