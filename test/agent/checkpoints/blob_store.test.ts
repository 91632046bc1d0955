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
