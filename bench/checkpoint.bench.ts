// What checkpoints cost, against the work they ride on, measured in one run on files in a temp dir:
//   edit_file of one line, checkpointed (a new prompt each time, so the content it replaces is
//   kept anew), in a 50 MB file and in a 1 KB file             vs the same edit_file without
//   going back to before a prompt that changed 100 files (the plan with its diffs, then the
//   restore, each path checked as a write)                     vs copying the 100 files back
//                                                              and vs copying them durably (as the
//                                                              restore writes: fdatasync each)
//   the preview and the rewind of 100 files × 500 changed lines vs copying the 100 files back
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { BlobStore, sha256 } from '../src/agent/checkpoints/blob_store.ts';
import { SessionCheckpoints } from '../src/agent/checkpoints/recorder.ts';
import { applyFiles, planRewind } from '../src/agent/checkpoints/rewind.ts';
import { RecordedIO } from '../src/core/local_fs/recorded_io.ts';
import { buildEnvelope } from '../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../src/core/envelope/shipped.ts';
import { DEFAULT_CHAIN_LOCAL_FS, parseFsPolicy } from '../src/core/local_fs/policy.ts';
import { LocalFsToolset } from '../src/core/local_fs/toolset.ts';
import { pairMs, report } from './report.ts';
import { writeTree } from './tree.ts';

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-bench-cp-')));
const ws = path.join(base, 'ws');
fs.mkdirSync(ws);
const policy = parseFsPolicy({ ...DEFAULT_CHAIN_LOCAL_FS, _max_read_bytes: '0' }).policy;

/** A session's checkpoints as the agent makes them: the records saved as the session saves them (a copy into its extras). */
function checkpoints(id: string): SessionCheckpoints {
  const extras: Record<string, unknown> = {};
  return new SessionCheckpoints({ root: ws, store: new BlobStore(path.join(base, 'data', 'checkpoints'), id), save: (key, value) => (extras[key] = value === undefined ? undefined : structuredClone(value)) });
}

try {
  const { pool } = writeTree(path.join(base, 'pool'), 1);
  fs.rmSync(path.join(base, 'pool'), { recursive: true, force: true });
  const text = (bytes: number) => {
    const b = Buffer.alloc(bytes);
    for (let off = 0; off < b.length; off += pool.length) pool.copy(b, off, 0, Math.min(pool.length, b.length - off));
    return b;
  };

  // ---- the cost a checkpoint adds to one write
  const plain = new LocalFsToolset({ root: ws, policy });
  const cps = checkpoints('bench-write');
  const kept = new LocalFsToolset({ root: ws, policy, io: new RecordedIO(plain.io, cps) });
  for (const [label, bytes, runs] of [['50 MB', 50 * 1024 * 1024, 9], ['1 KB', 1024, 41]] as const) {
    const marker = (i: number) => `MARK_${String(i).padStart(6, '0')}`;
    const body = text(bytes);
    body.write(`\n${marker(0)}\n`, Math.floor(bytes / 2) - 8);
    const slot = label.replace(' ', '');
    const ours = `kept_${slot}.txt`;
    const ref = `plain_${slot}.txt`;
    fs.writeFileSync(path.join(ws, ours), body);
    fs.writeFileSync(path.join(ws, ref), body);
    await kept.call('read_file_range', { path: ours, start_line: 1, end_line: 1 });
    await plain.call('read_file_range', { path: ref, start_line: 1, end_line: 1 });
    let a = 0;
    let b = 0;
    // each checkpointed edit is a new prompt's first write of the file: the content it replaces
    // (a version not kept yet) is written to the store, the worst case
    const edit = async () => {
      cps.begin({ text: `edit ${a}`, history: 0, replay: 0 });
      await kept.call('edit_file', { path: ours, old_string: marker(a), new_string: marker(++a) });
      cps.end();
    };
    const editRef = () => plain.call('edit_file', { path: ref, old_string: marker(b), new_string: marker(++b) });
    const [o, r] = await pairMs(edit, editRef, runs);
    const last = cps.prompts().at(-1)!;
    if (!last.files[ours] || last.files[ours].lost || !cps.store.has(last.files[ours].before!)) throw new Error(`the checkpoint of ${ours} was not kept: ${JSON.stringify(last.files[ours])}`);
    report({ name: `edit_file one line in ${label}, checkpointed (content kept anew)`, ours: o, reference: r, unit: 'ms', against: 'the same edit_file, no checkpoint', target: label === '50 MB' ? '≤ 1.5x' : '' });
    fs.rmSync(path.join(ws, ours));
    fs.rmSync(path.join(ws, ref));
  }
  cps.store.remove();

  // ---- going back to before a prompt that changed 100 files
  const N = 100;
  const files = Array.from({ length: N }, (_, i) => `src/mod${i % 10}/file${i}.ts`);
  const original = files.map((_, i) => text(6000 + ((i * 97) % 8000)));
  const backup = path.join(base, 'backup');
  for (const [i, rel] of files.entries()) {
    for (const dir of [ws, backup]) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), original[i]);
    }
  }
  const rw = checkpoints('bench-rewind');
  // a restore is decided by the session's envelope, as a write is
  const checks = { envelope: buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES) };
  /** A prompt that rewrites every file (one line each), recorded as the file tools record it. */
  const change = async (round: number) => {
    const cp = rw.begin({ text: `round ${round}`, history: 0, replay: 0 });
    for (const [i, rel] of files.entries()) {
      const abs = path.join(ws, rel);
      const now = fs.readFileSync(abs);
      const ch = await rw.beforeWrite(abs, { sha256: sha256(now), bytes: now });
      fs.writeFileSync(abs, Buffer.concat([Buffer.from(`// round ${round} ${i}\n`), original[i]]));
      rw.afterWrite(abs, ch);
    }
    rw.end();
    return cp.n;
  };
  const times = { ours: [] as number[], plan: [] as number[], ref: [] as number[], durable: [] as number[] };
  for (let round = 0; round < 8; round++) {
    const n = await change(round);
    let t = performance.now();
    const plan = await planRewind(rw, n, 'files', checks);
    const planned = performance.now() - t;
    const done = await applyFiles(rw, plan, new Set(), checks);
    rw.dropFrom(n);
    const whole = performance.now() - t;
    if (done.restored.length !== N || done.skipped.length) throw new Error(`rewind restored ${done.restored.length}, skipped ${JSON.stringify(done.skipped)}`);
    for (const [i, rel] of files.entries()) if (!fs.readFileSync(path.join(ws, rel)).equals(original[i])) throw new Error(`${rel} was not restored`);
    await change(round + 100);
    t = performance.now();
    for (const rel of files) fs.copyFileSync(path.join(backup, rel), path.join(ws, rel));
    const copied = performance.now() - t;
    rw.dropFrom(1);
    await change(round + 200);
    t = performance.now();
    for (const rel of files) {
      const to = path.join(ws, rel);
      fs.copyFileSync(path.join(backup, rel), to);
      const fd = fs.openSync(to, 'r+');
      fs.fdatasyncSync(fd);
      fs.closeSync(fd);
    }
    const durable = performance.now() - t;
    rw.dropFrom(1);
    if (round === 0) continue; // warm-up
    times.ours.push(whole);
    times.plan.push(planned);
    times.ref.push(copied);
    times.durable.push(durable);
  }
  const med = (x: number[]) => x.sort((p, q) => p - q)[Math.floor(x.length / 2)];
  report({ name: `rewind of ${N} files (diffs shown, then restored atomically)`, ours: med(times.ours), reference: med(times.ref), unit: 'ms', against: `copying the ${N} files back` });
  report({ name: `rewind of ${N} files, against a durable copy`, ours: med(times.ours), reference: med(times.durable), unit: 'ms', against: `copying the ${N} files back, fdatasync each` });
  report({ name: `  of which the preview (the ${N} diffs)`, ours: med(times.plan), reference: med(times.ref), unit: 'ms', against: `copying the ${N} files back` });
  rw.store.remove();

  // ---- 100 files × 500 changed lines: the preview (diffs for a screen, counts for every file)
  // and the rewind, each against copying the 100 files back
  const LINES = 600;
  const wide = files.map((_, i) => Buffer.from(Array.from({ length: LINES }, (_, k) => `export const v${i}_${k} = ${k}; // the original line ${k} of file ${i}`).join('\n') + '\n'));
  const wideBackup = path.join(base, 'wide-backup');
  for (const [i, rel] of files.entries()) {
    for (const dir of [ws, wideBackup]) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), wide[i]);
    }
  }
  const many = checkpoints('bench-wide');
  /** A prompt that rewrites 500 of each file's 600 lines. */
  const rewrite = async (round: number) => {
    const cp = many.begin({ text: `wide ${round}`, history: 0, replay: 0 });
    for (const [i, rel] of files.entries()) {
      const abs = path.join(ws, rel);
      const now = fs.readFileSync(abs);
      const ch = await many.beforeWrite(abs, { sha256: sha256(now), bytes: now });
      const lines = wide[i].toString('utf8').split('\n');
      for (let k = 50; k < 550; k++) lines[k] = `export const v${i}_${k} = ${k + round + 1}; // changed in round ${round}`;
      fs.writeFileSync(abs, lines.join('\n'));
      many.afterWrite(abs, ch);
    }
    many.end();
    return cp.n;
  };
  const wt = { preview: [] as number[], rewind: [] as number[], copy: [] as number[] };
  for (let round = 0; round < 6; round++) {
    const n = await rewrite(round);
    let t = performance.now();
    const shown = await planRewind(many, n, 'files', checks);
    const previewed = performance.now() - t;
    if (shown.files.some((f) => f.added !== 500 || f.removed !== 500)) throw new Error('the preview did not count 500 lines each way in every file');
    // what session/rewind does: the plan again (no diffs: the person saw them) and the restore
    t = performance.now();
    const plan = await planRewind(many, n, 'files', checks, { diffs: false });
    const done = await applyFiles(many, plan, new Set(), checks);
    const rewound = performance.now() - t;
    many.dropFrom(n);
    if (done.restored.length !== N) throw new Error(`the wide rewind restored ${done.restored.length}: ${JSON.stringify(done.skipped.slice(0, 3))}`);
    await rewrite(round + 100);
    t = performance.now();
    for (const rel of files) fs.copyFileSync(path.join(wideBackup, rel), path.join(ws, rel));
    const copied = performance.now() - t;
    many.dropFrom(1);
    if (round === 0) continue; // warm-up
    wt.preview.push(previewed);
    wt.rewind.push(rewound);
    wt.copy.push(copied);
  }
  report({ name: `preview of going back, ${N} files × 500 changed lines (counts, a screen of diffs)`, ours: med(wt.preview), reference: med(wt.copy), unit: 'ms', against: `copying the ${N} files back`, target: '≤ 3x' });
  report({ name: `rewind of ${N} files × 500 changed lines (checked, restored durably)`, ours: med(wt.rewind), reference: med(wt.copy), unit: 'ms', against: `copying the ${N} files back`, target: '≤ 3x' });
  many.store.remove();
} finally {
  fs.rmSync(base, { recursive: true, force: true });
}
