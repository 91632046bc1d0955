// Saving a session after a tool call, with 100 and with 3,000 calls already in it: the append-only
// log (src/agent/sessions/store.ts) against the whole-file rewrite sessions used before it
// (JSON.stringify of the session, temp file, rename), measured in the same run on the same disk.
// Each tool call is ~2 KB as a real one is: the assistant message, the result, the replayed update
// and a ledger entry. The log's cost should stay flat as the session grows; the rewrite's grows.
// Also session/list over 2,000 stored sessions (the index beside them) against loading one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { SessionStore, type SessionLog, type StoredSession } from '../src/agent/sessions/store.ts';
import { median, pairMs, report } from './report.ts';

const RUNS = 40;
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-bench-store-')));

function session(id: string): StoredSession {
  return { version: 1, sessionId: id, cwd: '/w', createdAt: new Date().toISOString(), updatedAt: '', mode: 'default', history: [{ role: 'system', content: 'You are a coding agent.' }], replay: [], allows: [], ledger: { version: 1, sessionId: id, entries: {} } };
}

let seq = 0;
/** One tool call's worth of session state (~2 KB); the log is told of the ledger entry as the agent tells it. */
function addCall(s: StoredSession, log?: SessionLog): void {
  const n = ++seq;
  const id = `call_${n}`;
  const args = JSON.stringify({ path: `src/module_${n}.ts` });
  const result = `export function f${n}(x: number): number {\n  return x * ${n};\n}\n`.repeat(18);
  s.history.push({ role: 'assistant', content: '', toolCalls: [{ id, name: 'read_file', arguments: args }] }, { role: 'tool', toolCallId: id, name: 'read_file', content: result });
  s.replay.push({ sessionUpdate: 'tool_call', toolCallId: id, title: `local_fs.read_file: src/module_${n}.ts`, kind: 'read', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: result.slice(0, 200) } }] });
  const entry = { sha256: 'a'.repeat(64), full: true, at: n };
  if (log) log.noteLedger(`/w/src/module_${n}.ts`, entry);
  else (s.ledger as { entries: Record<string, unknown> }).entries[`/w/src/module_${n}.ts`] = entry;
}

/** The save as it was: the whole session rewritten through a temp file. */
function wholeFileSave(dir: string, s: StoredSession): void {
  const f = path.join(dir, `${s.sessionId}.json`);
  const tmp = `${f}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(s), { mode: 0o600 });
  fs.renameSync(tmp, f);
}


async function measure(calls: number): Promise<{ append: number; durable: number; whole: number; bytes: number }> {
  const store = new SessionStore(path.join(base, `log-${calls}`));
  const ours = session(`ours${calls}`);
  const theirs = session(`theirs${calls}`);
  for (let i = 0; i < calls; i++) {
    addCall(ours);
    addCall(theirs);
  }
  const log: SessionLog = await store.create(ours);
  const wholeDir = path.join(base, `whole-${calls}`);
  fs.mkdirSync(wholeDir, { recursive: true });
  wholeFileSave(wholeDir, theirs);
  const a: number[] = [];
  const d: number[] = [];
  const w: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    // alternate, so drift in machine load hits both alike
    addCall(ours, log);
    let t = performance.now();
    await log.checkpoint({ durable: false });
    a.push(performance.now() - t);
    addCall(theirs);
    t = performance.now();
    wholeFileSave(wholeDir, theirs);
    w.push(performance.now() - t);
  }
  // fsync rows on their own: on ext4 an fsync also waits for other files' dirty data, and the
  // rewrites above leave megabytes of it
  fs.writeFileSync(path.join(base, 'settle'), '');
  await new Promise<void>((r) => fs.open(path.join(base, 'settle'), 'r', (_e, fd) => fs.fsync(fd, () => fs.close(fd, () => r()))));
  for (let i = 0; i < RUNS; i++) {
    addCall(ours, log);
    const t = performance.now();
    await log.checkpoint({ durable: true });
    d.push(performance.now() - t);
  }
  if (log.problem) throw new Error(log.problem.message);
  const back = await store.load(ours.sessionId);
  if (back?.history.length !== ours.history.length || Object.keys((back.ledger as { entries: object }).entries).length !== calls + 2 * RUNS) throw new Error('the log did not hold what was saved');
  const bytes = fs.statSync(path.join(wholeDir, `${theirs.sessionId}.json`)).size;
  await log.close();
  return { append: median(a), durable: median(d), whole: median(w), bytes };
}

const LISTED = 2000;

/**
 * session/list over 2,000 stored sessions of 20 tool calls each (~40 KB), against loading one of
 * them (what a client does with the session it picks). The sessions are one real log copied with
 * other ids, titles and directories, as 2,000 sessions of a long-used agent would be.
 */
async function listing(): Promise<void> {
  const data = path.join(base, 'listing');
  const store = new SessionStore(data);
  const one = session('one');
  for (let i = 0; i < 20; i++) addCall(one);
  one.title = 'the session the client picks';
  await (await store.create(one)).close();
  const [head, ...rest] = fs.readFileSync(path.join(store.dir, 'one.jsonl'), 'utf8').split('\n');
  const tail = rest.join('\n');
  const h = JSON.parse(head) as Record<string, unknown>;
  for (let i = 1; i < LISTED; i++) {
    const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    fs.writeFileSync(path.join(store.dir, `${id}.jsonl`), `${JSON.stringify({ ...h, sessionId: id, cwd: `/home/dev/project-${i % 40}`, title: `fix the flaky test number ${i} in the session store` })}\n${tail}`, { mode: 0o600 });
  }
  const load = async () => {
    if ((await store.load('one'))?.history.length !== one.history.length) throw new Error('the session did not load');
  };
  const list = (s: SessionStore) => async () => {
    if ((await s.list()).length !== LISTED) throw new Error('the list is short');
  };
  await list(store)();
  // the index's record of the directory is trusted once it is older than a clock tick
  await new Promise((r) => setTimeout(r, 100));
  const alternate = (runs: number, a: () => unknown, b: () => unknown) => pairMs(a, b, runs);
  const [warm, ref1] = await alternate(15, list(store), load);
  report({ name: `session/list over ${LISTED.toLocaleString('en-US')} stored sessions`, ours: warm, reference: ref1, unit: 'ms', against: 'loading one of them (~40 KB)', target: 'ours ≤ 5x' });
  const [cold, ref2] = await alternate(15, () => list(new SessionStore(data))(), load);
  report({ name: `session/list over ${LISTED.toLocaleString('en-US')}, first list of a process (index read)`, ours: cold, reference: ref2, unit: 'ms', against: 'loading one of them', target: 'ours ≤ 5x' });
  let added = 0;
  const [changed, ref3] = await alternate(9, async () => {
    // a session added behind the index's back: the directory is listed and every file stat'd
    const id = `added-${++added}`;
    fs.writeFileSync(path.join(store.dir, `${id}.jsonl`), `${JSON.stringify({ ...h, sessionId: id })}\n`);
    await store.list();
    fs.rmSync(path.join(store.dir, `${id}.jsonl`));
  }, load);
  report({ name: `session/list over ${LISTED.toLocaleString('en-US')} after the directory changed`, ours: changed, reference: ref3, unit: 'ms', against: 'loading one of them' });
  const [rebuilt, ref4] = await alternate(5, async () => {
    fs.rmSync(store.index.file);
    await list(store)();
  }, load);
  report({ name: `session/list over ${LISTED.toLocaleString('en-US')} with no index (every file read)`, ours: rebuilt, reference: ref4, unit: 'ms', against: 'loading one of them' });
}

try {
  await listing();
  const small = await measure(100);
  const large = await measure(3000);
  for (const [n, m] of [[100, small], [3000, large]] as const) {
    report({ name: `session save after a tool call, ${n} calls in it (append)`, ours: m.append, reference: m.whole, unit: 'ms', against: `whole-file rewrite, ${(m.bytes / 1e6).toFixed(2)} MB` });
  }
  for (const [n, m] of [[100, small], [3000, large]] as const) {
    report({ name: `session save with fsync (end of a model request), ${n} calls`, ours: m.durable, reference: m.whole, unit: 'ms', against: 'whole-file rewrite without fsync' });
  }
  // the session grows 30x; a flat save stays within GC noise of where it started
  report({ name: 'session save cost growth from 100 to 3000 calls', ours: large.append / small.append, reference: large.whole / small.whole, unit: 'x', against: 'growth of the whole-file rewrite', target: 'ours < 3' });
} finally {
  fs.rmSync(base, { recursive: true, force: true });
}
