// Mission records and asks on disk, as more than one process uses them: writers in other
// processes at the same time lose nothing, a writer killed mid-write leaves records that still
// read, a verdict and a finish are recorded once whoever races for them, and the sweep reclaims
// what a dead process left open.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AskStore } from '../../../src/agent/missions/ask_store.ts';
import { MissionStore } from '../../../src/agent/missions/mission_store.ts';
import { sweep } from '../../../src/agent/missions/sweep.ts';
import { answerAsk } from '../../../src/agent/missions/answer.ts';
import { moduleCommand } from '../../../src/core/platform/runtime.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function data(): string {
  const d = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-missions-')));
  dirs.push(d);
  return d;
}

const writer = fileURLToPath(new URL('../../fixtures/mission_writer.ts', import.meta.url));

function run(args: string[]): { done: Promise<number | null>; out: () => string; child: ReturnType<typeof spawn> } {
  const [cmd, ...pre] = moduleCommand(writer);
  const child = spawn(cmd, [...pre, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  return { child, done: new Promise((r) => child.once('close', r)), out: () => out };
}

const fresh = (store: MissionStore) => store.create({ intent: 'test', agent: 'run', envelope: 'default', cwd: '/tmp' }, 0);

test('three processes filing reports into one mission at once lose none, and the record counts them all', { timeout: 60_000 }, async () => {
  const dir = data();
  const store = new MissionStore(dir);
  const m = await fresh(store);
  const runs = ['a', 'b', 'c'].map((tag) => run(['reports', dir, m.id, '40', tag]));
  for (const r of runs) assert.equal(await r.done, 0, r.out());
  const reports = store.reports(m.id);
  assert.equal(reports.length, 120);
  for (const tag of ['a', 'b', 'c']) assert.deepEqual(reports.filter((r) => r.summary.startsWith(`${tag} `)).map((r) => r.summary), Array.from({ length: 40 }, (_, i) => `${tag} ${i}`), 'each writer\'s own in its order');
  const rec = store.require(m.id);
  assert.equal(rec.reports, 120, 'no update of the record was lost');
  assert.equal(rec.rev, 121);
  assert.equal(new Set(reports.map((r) => r.id)).size, 120);
});

test('a writer killed mid-write leaves records that read: the record is whole, a torn line is skipped, the next append starts clean', { timeout: 60_000 }, async () => {
  const dir = data();
  const store = new MissionStore(dir);
  const m = await fresh(store);
  const w = run(['spin', dir, m.id]);
  while (!w.out().includes('started')) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 150));
  w.child.kill('SIGKILL');
  await w.done;
  const rec = store.require(m.id);
  const before = store.reports(m.id);
  assert.ok(before.length >= 1);
  assert.ok(rec.reports <= before.length && rec.reports >= before.length - 1, `the record counts what was flushed before it (${rec.reports} of ${before.length})`);
  // a crash in the middle of a line, as the disk may keep it
  appendFileSync(path.join(store.dir, m.id, 'reports.jsonl'), '{"id":"r-torn","summ');
  assert.equal(store.reports(m.id).length, before.length, 'the torn line is skipped');
  const next = await store.addReport(m.id, { kind: 'finding', summary: 'after the crash', by: 'unit' });
  const after = store.reports(m.id);
  assert.equal(after.length, before.length + 1);
  assert.equal(after.at(-1)!.id, next.id, 'the next line is whole, not glued to the torn one');
  // a lock the killed writer may have held is recovered (its pid is gone)
  await store.finish(m.id, 'landed');
  assert.equal(store.require(m.id).status, 'landed');
});

test('a mission finishes once: the same verdict again changes nothing, another is a conflict, and two processes racing with different verdicts leave one', { timeout: 60_000 }, async () => {
  const dir = data();
  const store = new MissionStore(dir);
  const m = await fresh(store);
  assert.equal((await store.finish(m.id, 'landed', 'done')).changed, true);
  assert.equal((await store.finish(m.id, 'landed')).changed, false);
  await assert.rejects(store.finish(m.id, 'derailed'), (e: { code: string; message: string }) => e.code === 'conflict' && /already finished as landed; it cannot be re-finished as derailed/.test(e.message));
  await assert.rejects(store.addReport(m.id, { kind: 'progress', summary: 'late', by: 'unit' }), /already finished \(landed\)/);
  assert.equal((await store.addReport(m.id, { kind: 'blocker', summary: 'the runtime may still say why', by: 'runtime' })).kind, 'blocker');

  for (let round = 0; round < 3; round++) {
    const r = await fresh(store);
    const a = run(['finish', dir, r.id, 'landed']);
    const b = run(['finish', dir, r.id, 'derailed']);
    await Promise.all([a.done, b.done]);
    const outs = [JSON.parse(a.out()), JSON.parse(b.out())];
    assert.equal(outs.filter((o) => o.changed === true).length, 1, JSON.stringify(outs));
    assert.equal(outs.filter((o) => o.conflict).length, 1, JSON.stringify(outs));
    const final = store.require(r.id).status;
    assert.equal(final, outs[0].changed ? 'landed' : 'derailed');
  }
});

test('plans are full snapshots kept as revisions; ids are assigned and echoed; completed work cannot be rewritten', async () => {
  const store = new MissionStore(data());
  const m = await fresh(store);
  const p1 = await store.setPlan(m.id, { entries: [{ content: 'read', status: 'completed' }, { content: 'write', status: 'in_progress', priority: 'high' }] });
  assert.deepEqual(p1.entries.map((e) => [e.id, e.status, e.priority]), [['e1', 'completed', 'medium'], ['e2', 'in_progress', 'high']]);
  await assert.rejects(store.setPlan(m.id, { entries: [{ id: 'e1', content: 'read it all', status: 'completed' }] }), /rewrites the content of already-completed work/);
  const p2 = await store.setPlan(m.id, { entries: [...p1.entries.map((e) => ({ ...e, status: 'completed' })), { content: 'check', status: 'pending' }], explanation: 'one more step' });
  assert.equal(p2.revision, 2);
  assert.equal(p2.entries[2].id, 'e3');
  assert.deepEqual(store.plans(m.id).map((p) => p.revision), [1, 2]);
  assert.equal(store.require(m.id).planRevision, 2);
  await assert.rejects(store.setPlan(m.id, { entries: [] }), /1 to 100 entries/);
  await assert.rejects(store.setPlan(m.id, {}), /requires an 'entries' array/);
});

test('the fleet cap counts open missions whose process is alive; one left by a dead process does not hold a place', async () => {
  const dir = data();
  const store = new MissionStore(dir);
  await store.create({ intent: 'a', agent: 'run', envelope: 'default', cwd: '/tmp' }, 2);
  await store.create({ intent: 'b', agent: 'run', envelope: 'default', cwd: '/tmp' }, 2);
  await assert.rejects(store.create({ intent: 'c', agent: 'run', envelope: 'default', cwd: '/tmp' }, 2), (e: { code: string; message: string }) => e.code === 'fleet_full' && /2 units are already open, at the fleet cap \(fleet_max_parallel = 2\)/.test(e.message));
  // a third left open by a process that is gone does not count
  const dead = run(['reports', dir, 'm-00000000zzzz', '0', 'x']);
  await dead.done;
  const open = store.open();
  await store.update(open[0].id, (m) => ({ ...m, owner: { ...m.owner, pid: dead.child.pid! } }));
  const c = await store.create({ intent: 'c', agent: 'run', envelope: 'default', cwd: '/tmp' }, 2);
  assert.equal(c.status, 'open');
  assert.equal((await store.create({ intent: 'd', agent: 'run', envelope: 'default', cwd: '/tmp' }, 0)).status, 'open', '0: no cap');
});

test('an ask gets one verdict whoever races for it: two processes answering the same 30 asks each record a disjoint part of them', { timeout: 60_000 }, async () => {
  const dir = data();
  const asks = new AskStore(dir);
  const ids = Array.from({ length: 30 }, (_, i) => asks.create({ kind: 'permission', toolset: 'local_fs', tool: 'write_file', title: `w ${i}`, summary: `w ${i}`, timeoutMs: 60_000 }).id);
  const a = run(['respond', dir, 'approve', ...ids]);
  const b = run(['respond', dir, 'deny', ...[...ids].reverse()]);
  assert.equal(await a.done, 0, a.out());
  assert.equal(await b.done, 0, b.out());
  const mineA: string[] = JSON.parse(a.out());
  const mineB: string[] = JSON.parse(b.out());
  assert.equal(mineA.length + mineB.length, 30, 'every ask answered once');
  assert.deepEqual(mineA.filter((x) => mineB.includes(x)), [], 'no ask answered twice');
  for (const id of ids) assert.equal(asks.verdict(id)!.verdict, mineA.includes(id) ? 'approve' : 'deny');
  assert.deepEqual(asks.pending(), []);
  assert.throws(() => answerAsk(asks, ids[0], { verdict: 'approve', by: 'person' }), /was already (approved|denied) by a person .*; a verdict is recorded exactly once/);
});

test('answers must fit the ask: a question takes text, a permission a yes or no; an unknown id and an expired ask are refused', () => {
  const asks = new AskStore(data());
  const q = asks.create({ kind: 'question', title: 'Which?', summary: 'Which?', timeoutMs: 60_000 });
  const p = asks.create({ kind: 'permission', toolset: 'local_shell', tool: 'local_shell', title: 'rm x', summary: 'rm x', timeoutMs: 60_000 });
  assert.throws(() => answerAsk(asks, q.id, { verdict: 'approve', by: 'person' }), /is a question \("Which\?"\): answer it with --answer/);
  assert.throws(() => answerAsk(asks, p.id, { verdict: 'answer', answer: 'yes', by: 'person' }), /is a permission ask \(local_shell\.local_shell\): it takes --approve or --deny/);
  assert.throws(() => answerAsk(asks, 'a-0000000000zz', { verdict: 'approve', by: 'person' }), /no ask "a-0000000000zz" exists/);
  assert.throws(() => asks.get('../../etc/passwd'), /is not an ask id/);
  const gone = asks.create({ kind: 'permission', toolset: 'x', tool: 'y', title: 't', summary: 't', timeoutMs: 1 });
  const until = Date.now() + 50;
  while (Date.now() < until) {
    /* let it expire */
  }
  assert.throws(() => answerAsk(asks, gone.id, { verdict: 'approve', by: 'person' }), /expired at .*, before this answer; its on-timeout verdict \(deny\) applies/);
  assert.equal(asks.verdict(gone.id)!.by, 'expired');
  assert.equal(answerAsk(asks, q.id, { verdict: 'answer', answer: 'blue', by: 'person' }).answer, 'blue');
  const never = asks.create({ kind: 'question', title: 'n', summary: 'n', timeoutMs: Number.POSITIVE_INFINITY });
  assert.equal(never.expiresAt, null);
});

test('the sweep: expired asks are denied, a mission whose process died is abandoned with a blocker and its asks closed, another host\'s waits for its heartbeat bound unless an ask waits for ever', async () => {
  const dir = data();
  const missions = new MissionStore(dir);
  const asks = new AskStore(dir);
  const dead = run(['reports', dir, 'm-00000000zzzz', '0', 'x']);
  await dead.done;
  const gone = await missions.create({ intent: 'gone', agent: 'run', envelope: 'default', cwd: '/tmp', owner: { host: (await import('node:os')).hostname(), pid: dead.child.pid! } }, 0);
  const held = asks.create({ kind: 'permission', missionId: gone.id, toolset: 'local_fs', tool: 'write_file', title: 'w', summary: 'w', timeoutMs: 3_600_000 });
  const expired = asks.create({ kind: 'question', title: 'q', summary: 'q', timeoutMs: 1 });
  const far = await missions.create({ intent: 'far', agent: 'run', envelope: 'default', cwd: '/tmp', owner: { host: 'elsewhere', pid: 1 } }, 0);
  const patient = await missions.create({ intent: 'patient', agent: 'run', envelope: 'default', cwd: '/tmp', owner: { host: 'elsewhere', pid: 1 } }, 0);
  asks.create({ kind: 'question', missionId: patient.id, title: 'q', summary: 'q', timeoutMs: Number.POSITIVE_INFINITY });
  const alive = await missions.create({ intent: 'alive', agent: 'run', envelope: 'default', cwd: '/tmp' }, 0);
  await new Promise((r) => setTimeout(r, 10));
  // now: the far ones have a fresh heartbeat
  let r = await sweep(missions, asks);
  assert.equal(r.expired, 1);
  assert.equal(asks.verdict(expired.id)!.by, 'expired');
  assert.deepEqual(r.reclaimed.map((m) => m.id), [gone.id]);
  assert.equal(missions.require(gone.id).status, 'abandoned');
  assert.match(missions.require(gone.id).reason!, /^reclaimed: its process \(pid \d+\) is gone$/);
  assert.equal(missions.reports(gone.id).at(-1)!.summary, 'Mission reclaimed: its process is gone.');
  assert.equal(asks.verdict(held.id)!.by, 'reclaimed');
  // eleven minutes later, as far as the heartbeats say
  r = await sweep(missions, asks, Date.now() + 11 * 60_000);
  assert.deepEqual(r.reclaimed.map((m) => m.id), [far.id], 'the other host\'s silent mission; not the one whose ask waits for ever, not this process\'s');
  assert.match(missions.require(far.id).reason!, /no heartbeat from its process on elsewhere for 11 min/);
  assert.equal(missions.require(patient.id).status, 'open');
  assert.equal(missions.require(alive.id).status, 'open');
  // a torn record is not taken for a mission, nor for none: it is named, with its file
  const torn = path.join(missions.dir, alive.id, 'mission.json');
  writeFileSync(torn, '{"v":1,"id":');
  assert.throws(() => missions.get(alive.id), (e: Error & { code?: string }) => e.code === 'damaged' && e.message.includes(torn) && /not JSON/.test(e.message));
  assert.ok(readFileSync(path.join(missions.dir, patient.id, 'mission.json'), 'utf8').startsWith('{'));
});
