// A rewind's diffs: correct (applying the diff to what is there now gives what was kept, for random
// edits, a last line without a newline, empty sides), bounded in time by the files' size (10,000
// changed lines previewed in well under a second where jsdiff took tens of seconds), and never
// holding the agent's event loop for long across the files of one preview.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { applyPatch } from 'diff';
import { BlobStore, sha256 } from '../../../src/agent/checkpoints/blob_store.ts';
import { countChanges, unifiedDiff } from '../../../src/agent/checkpoints/line_diff.ts';
import { SessionCheckpoints } from '../../../src/agent/checkpoints/recorder.ts';
import { applyFiles, planRewind } from '../../../src/agent/checkpoints/rewind.ts';
import { buildEnvelope } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-line-diff-')));
after(() => fs.rmSync(base, { recursive: true, force: true }));

test('the diff applied to the one side gives the other, for 2,000 random edits (small and past the edit cap), with and without a last newline', () => {
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let t = 0; t < 2000; t++) {
    const n = Math.floor(rnd() * (t % 10 === 0 ? 1500 : 40));
    const a = Array.from({ length: n }, () => String(Math.floor(rnd() * 8)));
    const b = a.filter(() => rnd() > 0.3).map((l) => (rnd() < 0.2 ? String(Math.floor(rnd() * 8)) : l));
    if (rnd() < 0.3) b.splice(Math.floor(rnd() * b.length), 0, 'x', 'y');
    const A = a.join('\n') + (rnd() < 0.7 && n ? '\n' : '');
    const B = b.join('\n') + (rnd() < 0.7 && b.length ? '\n' : '');
    const d = unifiedDiff('a/f', 'b/f', A, B);
    assert.equal(d.text ? applyPatch(A, d.text) : A, B, `case ${t}`);
    if (!d.coarse) {
      // the smallest script: its counts are those of any minimal diff, and at least the multiset bound
      const c = countChanges(A, B);
      assert.ok(d.added >= c.added && d.removed >= c.removed);
    }
  }
  assert.equal(unifiedDiff('a/f', 'b/f', 'same\n', 'same\n').text, '');
  assert.match(unifiedDiff('/dev/null', 'b/f', '', 'new\n').text, /^--- \/dev\/null\n\+\+\+ b\/f\n@@ -0,0 \+1,1 @@\n\+new$/);
});

test('10,000 changed lines: counted and diffed in time linear in the size, and the diff is cut at the lines asked for', () => {
  const mk = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `line ${i} ${tag} of some length`).join('\n') + '\n';
  const a = mk(10_000, 'old');
  const b = mk(10_000, 'new');
  const t = performance.now();
  const d = unifiedDiff('a/f', 'b/f', a, b, 400);
  const c = countChanges(a, b);
  const ms = performance.now() - t;
  assert.deepEqual(c, { added: 10_000, removed: 10_000 });
  assert.equal(d.added, 10_000);
  assert.equal(d.text.split('\n').length, 401);
  assert.match(d.text, /… \d+ more lines of this diff \(\+10000 −10000 in all\)$/);
  // jsdiff's createPatch took 37 s on this input
  assert.ok(ms < 3000, `${Math.round(ms)} ms`);
});

test('a preview of 40 files × 2,000 changed lines lets other work in between files (the agent\'s other sessions), counts every file, diffs a screen\'s worth', { timeout: 120_000 }, async () => {
  const ws = path.join(base, 'ws');
  fs.mkdirSync(ws);
  const cps = new SessionCheckpoints({ root: ws, store: new BlobStore(path.join(base, 'data'), 's'), save: () => {} });
  const text = (i: number, tag: string) => Array.from({ length: 2000 }, (_, k) => `f${i} line ${k} ${tag}`).join('\n') + '\n';
  cps.begin({ text: 'rewrite', history: 0, replay: 0 });
  for (let i = 0; i < 40; i++) {
    const abs = path.join(ws, `f${i}.txt`);
    fs.writeFileSync(abs, text(i, 'before'));
    const now = fs.readFileSync(abs);
    const ch = await cps.beforeWrite(abs, { sha256: sha256(now), bytes: now });
    fs.writeFileSync(abs, text(i, 'after'));
    cps.afterWrite(abs, ch);
  }
  cps.end();
  const checks = { envelope: buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES) };
  let gap = 0;
  let last = performance.now();
  const tick = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 1);
  try {
    last = performance.now();
    const plan = await planRewind(cps, 1, 'files', checks);
    assert.equal(plan.files.length, 40);
    for (const f of plan.files) assert.deepEqual([f.added, f.removed], [2000, 2000], f.path);
    const shown = plan.files.reduce((n, f) => n + f.diff.split('\n').length, 0);
    assert.ok(shown < 2000, `${shown} lines of diff in one preview`);
    const done = await applyFiles(cps, plan, new Set(), checks);
    assert.equal(done.restored.length, 40);
  } finally {
    clearInterval(tick);
  }
  assert.ok(gap < 250, `the event loop was held for ${Math.round(gap)} ms at once`);
  assert.equal(fs.readFileSync(path.join(ws, 'f7.txt'), 'utf8'), text(7, 'before'));
});
