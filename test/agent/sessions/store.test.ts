// The session store as an append-only log on real files: what a checkpoint appends, what a crash
// leaves, compaction, old whole-file sessions, unanswered tool calls, and saves that fail.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { dataDir } from '../../../src/core/platform/data_dir.ts';
import type { ChatMessage } from '../../../src/agent/providers/types.ts';
import { ADDITIONAL_DIRS_KEY, SessionStore, type SaveProblem, type StoredSession } from '../../../src/agent/sessions/store.ts';
import { answerUnansweredCalls, CANCELLED_RESULT } from '../../../src/agent/sessions/tool_call_repair.ts';
import { mountTmpfs } from '../../helpers/tmpfs.ts';
import { assertWellFormed } from '../../helpers/well_formed.ts';
import { runWriter } from '../../helpers/store_writer.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function temp(): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(tmpdir(), 'cxl-store-')));
  dirs.push(d);
  return d;
}

function session(id: string, cwd = '/w/one'): StoredSession {
  return { version: 1, sessionId: id, cwd, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', mode: 'default', history: [], replay: [], allows: [] };
}

const ledger = (entries: Record<string, { sha256: string; full: boolean; at: number }>) => ({ version: 1, sessionId: 'L', entries });
const sha = (c: string) => c.repeat(64);

function toolRound(n: number): ChatMessage[] {
  return [
    { role: 'assistant', content: '', toolCalls: [{ id: `c${n}`, name: 'read_file', arguments: JSON.stringify({ path: `f${n}.txt` }) }] },
    { role: 'tool', toolCallId: `c${n}`, name: 'read_file', content: `content of f${n}\n`.repeat(20) },
  ];
}

test('a session round-trips; list is newest first, filters by cwd, reads the title; ids that are paths are refused; the file is private', async () => {
  const store = new SessionStore(temp());
  const a = await store.create(session('a1', '/w/one'));
  a.session.title = 'first one';
  a.session.history.push({ role: 'user', content: 'hi' }, ...toolRound(1));
  a.session.replay.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'hi' } });
  a.session.allows = ['local_fs:a.txt'];
  a.session.ledger = ledger({ '/w/one/a.txt': { sha256: sha('a'), full: true, at: 1 } });
  await a.checkpoint();
  await new Promise((r) => setTimeout(r, 20));
  const b = await store.create(session('b2', '/w/two'));
  await b.checkpoint();
  const back = await store.load('a1');
  assert.deepEqual({ ...back, updatedAt: '' }, { ...a.session, updatedAt: '' });
  assert.deepEqual((await store.list()).map((s) => s.sessionId), ['b2', 'a1']);
  assert.deepEqual(await store.list('/w/one').then((l) => l.map((s) => [s.sessionId, s.title])), [['a1', 'first one']]);
  assert.equal(await store.load('../../etc/passwd'), undefined);
  assert.equal(await store.open('../x'), undefined);
  await assert.rejects(store.create(session('../x')), /invalid session id/);
  assert.deepEqual(fs.readdirSync(store.dir).sort(), ['a1.jsonl', 'b2.jsonl'], 'no temp files');
  assert.equal(fs.statSync(path.join(store.dir, 'a1.jsonl')).mode & 0o077, 0);
});

test('a checkpoint appends only what changed: earlier bytes and the file itself stay as they were', async () => {
  const store = new SessionStore(temp());
  const log = await store.create(session('s1'));
  const file = path.join(store.dir, 's1.jsonl');
  const ino = fs.statSync(file).ino;
  let before = fs.readFileSync(file);
  for (let n = 0; n < 30; n++) {
    log.session.history.push(...toolRound(n));
    log.session.ledger = ledger(Object.fromEntries(Array.from({ length: n + 1 }, (_, i) => [`/w/f${i}.txt`, { sha256: sha('b'), full: true, at: i }])));
    await log.checkpoint({ durable: n % 2 === 0 });
    const now = fs.readFileSync(file);
    assert.ok(now.subarray(0, before.length).equals(before), `checkpoint ${n} rewrote earlier bytes`);
    const added = now.subarray(before.length).toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l).t);
    // two history entries and the one ledger entry that is new: nothing already written again
    assert.deepEqual(added, n === 0 ? ['msg', 'msg', 'ledger', 'read'] : ['msg', 'msg', 'read']);
    before = now;
  }
  assert.equal(fs.statSync(file).ino, ino, 'never rewritten');
  const back = await store.load('s1');
  assert.equal(back?.history.length, 60);
  assert.equal(Object.keys((back?.ledger as { entries: object }).entries).length, 30);
  // a checkpoint with nothing new writes nothing
  const size = fs.statSync(file).size;
  await log.checkpoint();
  assert.equal(fs.statSync(file).size, size);
});

test('ledger changes noted one by one are appended without looking at the rest, forgetting included', async () => {
  const store = new SessionStore(temp());
  const log = await store.create(session('s1'));
  log.session.ledger = ledger({ '/w/a': { sha256: sha('a'), full: true, at: 1 } });
  await log.checkpoint();
  const file = path.join(store.dir, 's1.jsonl');
  let size = fs.statSync(file).size;
  const tail = () => {
    const t = fs.readFileSync(file, 'utf8').slice(size).trim().split('\n').map((l) => JSON.parse(l));
    size = fs.statSync(file).size;
    return t;
  };
  log.noteLedger('/w/b', { sha256: sha('b'), full: false, at: 2 });
  log.noteLedger('/w/a', { sha256: sha('c'), full: true, at: 3 });
  await log.checkpoint();
  assert.deepEqual(tail().map((l) => [l.t, l.p]), [['read', '/w/b'], ['read', '/w/a']]);
  log.noteLedger('/w/b', null);
  log.noteLedger('/w/never', null);
  await log.checkpoint();
  assert.deepEqual(tail().map((l) => [l.t, l.p, l.e]), [['read', '/w/b', null]]);
  assert.deepEqual((await store.load('s1'))?.ledger, ledger({ '/w/a': { sha256: sha('c'), full: true, at: 3 } }));
});

test('a crash mid-line loses only that line; loading drops it and compacts, and appending goes on', async () => {
  const store = new SessionStore(temp());
  const log = await store.create(session('s1'));
  log.session.history.push({ role: 'user', content: 'one' }, { role: 'assistant', content: 'two' });
  await log.checkpoint();
  const file = path.join(store.dir, 's1.jsonl');
  // what a process killed inside a write leaves: half a line, no newline
  fs.appendFileSync(file, '{"t":"msg","m":{"role":"user","content":"thr');
  const back = await store.open('s1');
  assert.deepEqual(back?.session.history.map((m) => m.content), ['one', 'two']);
  const text = fs.readFileSync(file, 'utf8');
  assert.ok(text.endsWith('\n') && !text.includes('"thr'), 'the torn line is gone');
  back!.session.history.push({ role: 'user', content: 'three' });
  await back!.checkpoint();
  assert.deepEqual((await store.load('s1'))?.history.map((m) => m.content), ['one', 'two', 'three']);
});

test('a wrong-typed line (a splice whose add is not a list, a message that is not one) is skipped and named; the rest of the session loads, and the log as it was is kept aside', async () => {
  const store = new SessionStore(temp());
  const log = await store.create(session('s1'));
  log.session.history.push({ role: 'user', content: 'one' }, { role: 'assistant', content: 'two' });
  await log.checkpoint();
  await log.close();
  const file = path.join(store.dir, 's1.jsonl');
  fs.appendFileSync(file, '{"t":"splice","at":0,"del":0,"add":5}\n{"t":"msg","m":"not a message"}\n{"t":"msg","m":{"role":"user","content":"three"}}\n');
  const lines = fs.readFileSync(file, 'utf8').split('\n').length - 1;
  const loaded = await store.load('s1');
  assert.deepEqual(loaded?.history.map((m) => m.content), ['one', 'two', 'three']);
  assert.deepEqual(loaded?.damagedLines, [`${file} line ${lines - 2}: a splice whose at/del are not counts or whose add is not a list of objects`, `${file} line ${lines - 1}: a message that is not an object`]);
  const text = fs.readFileSync(file, 'utf8');
  const back = await store.open('s1');
  assert.deepEqual(back?.session.history.map((m) => m.content), ['one', 'two', 'three']);
  const aside = fs.readdirSync(store.dir).find((n) => n.startsWith('s1.jsonl.damaged-'));
  assert.ok(aside, 'the log as it was is kept beside it before the load rewrites it');
  assert.equal(fs.readFileSync(path.join(store.dir, aside), 'utf8'), text);
  assert.match(back!.session.damagedLines!.at(-1)!, /the log as it was is kept as .*s1\.jsonl\.damaged-/);
  // control: a log with no bad line says nothing and keeps nothing aside
  const clean = await store.create(session('s2'));
  clean.session.history.push({ role: 'user', content: 'fine' });
  await clean.checkpoint();
  await clean.close();
  assert.equal((await store.load('s2'))?.damagedLines, undefined);
});

test('old whole-file sessions still load, and are converted to a log', async () => {
  const data = temp();
  const store = new SessionStore(data);
  fs.mkdirSync(store.dir, { recursive: true });
  const old = { ...session('old1'), title: 'from before', history: [{ role: 'user', content: 'hi' }, ...toolRound(1)], replay: [{ sessionUpdate: 'user_message_chunk' }], allows: ['x'], ledger: ledger({ '/w/a': { sha256: sha('c'), full: false, at: 3 } }) };
  fs.writeFileSync(path.join(store.dir, 'old1.json'), JSON.stringify(old));
  assert.deepEqual((await store.list()).map((s) => [s.sessionId, s.title]), [['old1', 'from before']]);
  const log = await store.open('old1');
  assert.deepEqual({ ...log!.session, updatedAt: '' }, { ...old, updatedAt: '' });
  assert.deepEqual(fs.readdirSync(store.dir), ['old1.jsonl']);
  assert.deepEqual({ ...(await store.load('old1')), updatedAt: '' }, { ...old, updatedAt: '' });
});

test('unanswered tool calls get a cancelled result when a finished turn is saved and when a session loads', async () => {
  const history: ChatMessage[] = [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'x', arguments: '{}' }, { id: 'b', name: 'y', arguments: '{}' }] },
    { role: 'tool', toolCallId: 'a', name: 'x', content: 'ok' },
    { role: 'user', content: 'next' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'z', arguments: '{}' }] },
  ];
  const copy = structuredClone(history);
  assert.equal(answerUnansweredCalls(copy), 2);
  assertWellFormed(copy);
  assert.deepEqual(copy.map((m) => (m.role === 'tool' ? m.toolCallId : m.role)), ['user', 'assistant', 'a', 'b', 'user', 'assistant', 'c']);
  assert.equal((copy[3] as { content: string }).content, CANCELLED_RESULT);
  assert.equal(answerUnansweredCalls(copy), 0, 'a well-formed history is left alone');

  const store = new SessionStore(temp());
  const log = await store.create(session('s1'));
  log.session.history.push(...structuredClone(history));
  // mid-turn: the calls may still be running, so nothing is invented
  await log.checkpoint({ durable: true });
  const raw = fs.readFileSync(path.join(store.dir, 's1.jsonl'), 'utf8');
  assert.equal(raw.split('\n').filter((l) => l.includes('"role":"tool"')).length, 1);
  // what a crash leaves loads well formed
  const loaded = await store.open('s1');
  assertWellFormed(loaded!.session.history);
  assert.equal(loaded!.session.history.length, 7);
  await loaded!.close();
  // and the end of a turn answers what is left unanswered
  const log2 = await store.create(session('s2'));
  log2.session.history.push(...structuredClone(history));
  await log2.checkpoint({ endOfTurn: true });
  assertWellFormed((await store.load('s2'))!.history);
  assertWellFormed(log2.session.history);
});

test('superseded lines are compacted: when they reach half the log while running, and on load', async () => {
  const store = new SessionStore(temp());
  const log = await store.create(session('s1'));
  const file = path.join(store.dir, 's1.jsonl');
  log.session.history.push({ role: 'user', content: 'x'.repeat(40_000) });
  await log.checkpoint();
  // the same ledger entry re-read 2,000 times: each append supersedes the last
  let maxSize = 0;
  for (let i = 0; i < 2000; i++) {
    log.session.ledger = ledger({ '/w/a.txt': { sha256: sha('d'), full: true, at: i } });
    await log.checkpoint();
    maxSize = Math.max(maxSize, fs.statSync(file).size);
  }
  const live = Buffer.byteLength(fs.readFileSync(file, 'utf8'));
  assert.ok(maxSize <= 2 * 41_000 + 1000, `the log grew to ${maxSize} bytes for ~41 kB of live state`);
  assert.ok(live < maxSize);
  assert.equal(((await store.load('s1'))?.ledger as { entries: Record<string, { at: number }> }).entries['/w/a.txt'].at, 1999);
  // a few superseded lines in a small log: left as they are, also on load (another process may hold it)
  const small = await store.create(session('s2'));
  for (const m of ['a', 'b', 'c']) {
    small.session.mode = m;
    await small.checkpoint();
  }
  const f2 = path.join(store.dir, 's2.jsonl');
  assert.equal(fs.readFileSync(f2, 'utf8').trim().split('\n').length, 4);
  await small.close();
  const reopened = await store.open('s2');
  assert.equal(reopened?.session.mode, 'c');
  assert.equal(fs.readFileSync(f2, 'utf8').trim().split('\n').length, 4, 'a load appends; it does not rewrite');
});

test('a history rewritten by spliceHistory, by a compaction in place, or replaced whole is written as splices of what changed; extras survive', async () => {
  const store = new SessionStore(temp());
  const log = await store.create(session('s1'));
  const file = path.join(store.dir, 's1.jsonl');
  for (let n = 0; n < 10; n++) log.session.history.push(...toolRound(n));
  await log.checkpoint();
  let size = fs.statSync(file).size;
  const added = () => {
    const lines = fs.readFileSync(file, 'utf8').slice(size).trim().split('\n').map((l) => JSON.parse(l) as { t: string; at?: number; del?: number; add?: unknown[] });
    size = fs.statSync(file).size;
    return lines;
  };
  // a compaction: 16 entries become one summary
  log.spliceHistory(0, 16, { role: 'user', content: 'summary of the first 8 rounds' });
  log.put('compactions', [{ at: 'now', tokensBefore: 1000, tokensAfter: 100 }]);
  log.session.history.push({ role: 'user', content: 'after' });
  await log.checkpoint();
  assert.deepEqual(added().map((l) => l.t), ['splice', 'msg', 'put']);
  let back = await store.load('s1');
  assert.deepEqual(back?.history, log.session.history);
  assert.equal(back?.history.length, 6);
  assert.deepEqual(back?.extras, { compactions: [{ at: 'now', tokensBefore: 1000, tokensAfter: 100 }] });
  // elided in place (one entry replaced by a new object): one splice of that entry, not a rewrite
  const h = log.session.history;
  h[2] = { ...(h[2] as Extract<ChatMessage, { role: 'tool' }>), content: '[elided]' };
  log.historyRewritten();
  await log.checkpoint();
  assert.deepEqual(added().map((l) => [l.t, l.at, l.del, l.add?.length]), [['splice', 2, 1, 1]]);
  assert.deepEqual((await store.load('s1'))?.history, log.session.history);
  // someone replaced the array (a rewind cutting it back): a splice of what went
  const ino = fs.statSync(file).ino;
  log.session.history = log.session.history.slice(0, 3);
  await log.checkpoint();
  assert.deepEqual(added().map((l) => [l.t, l.at, l.del, l.add?.length]), [['splice', 3, 3, 0]]);
  back = await store.load('s1');
  assert.deepEqual(back?.history, log.session.history);
  log.session.history.splice(1, 1);
  log.session.replay.push({ sessionUpdate: 'x' }, { sessionUpdate: 'y' });
  await log.checkpoint();
  log.session.replay = log.session.replay.slice(0, 1);
  await log.checkpoint();
  back = await store.load('s1');
  assert.deepEqual(back?.history, log.session.history);
  assert.deepEqual(back?.replay, [{ sessionUpdate: 'x' }]);
  assert.equal(fs.statSync(file).ino, ino, 'never rewritten');
});

test('two holders of one session (two stores on one data dir): each appends under the lock and reads what the other added; nothing lost, nobody stops saving', async () => {
  const data = temp();
  const a = await new SessionStore(data).create(session('s1'));
  const problems: SaveProblem[] = [];
  a.onProblem = (p) => problems.push(p);
  a.session.history.push({ role: 'user', content: 'a1' });
  await a.checkpoint();
  const b = (await new SessionStore(data).open('s1'))!;
  b.onProblem = (p) => problems.push(p);
  b.session.history.push({ role: 'user', content: 'b1' });
  b.session.mode = 'plan';
  await b.checkpoint();
  // a pushes before it has read b's line: b's entry comes first, a's after it, in memory and on disk
  a.session.history.push({ role: 'user', content: 'a2' });
  await a.checkpoint();
  assert.deepEqual(a.session.history.map((m) => m.content), ['a1', 'b1', 'a2']);
  assert.equal(a.session.mode, 'plan');
  await b.refresh();
  assert.deepEqual(b.session.history.map((m) => m.content), ['a1', 'b1', 'a2']);
  // a rewrites the log (its compaction threshold, here forced by a damaged line on open elsewhere): b reads the new file
  const file = path.join(data, 'sessions', 's1.jsonl');
  fs.appendFileSync(file, '{"t":"msg","m":7}\n');
  const c = (await new SessionStore(data).open('s1'))!;
  assert.ok(c.session.damagedLines?.[0]?.includes(`${file} line`), String(c.session.damagedLines));
  c.session.history.push({ role: 'user', content: 'c1' });
  await c.checkpoint();
  b.session.history.push({ role: 'user', content: 'b2' });
  await b.checkpoint();
  a.session.history.push({ role: 'user', content: 'a3' });
  await a.checkpoint();
  const all = ['a1', 'b1', 'a2', 'c1', 'b2', 'a3'];
  assert.deepEqual((await new SessionStore(data).load('s1'))?.history.map((m) => m.content), all);
  assert.deepEqual(a.session.history.map((m) => m.content), all);
  assert.equal(problems.length, 0, JSON.stringify(problems));
  // deleted by one: the others stop saving and say why, once
  await new SessionStore(data).delete('s1');
  a.session.history.push({ role: 'user', content: 'late' });
  await a.checkpoint();
  await a.checkpoint();
  assert.deepEqual(problems.map((p: SaveProblem) => p.kind), ['deleted']);
  assert.ok(!fs.existsSync(file), 'a deleted session is not brought back');
  await Promise.all([a.close(), b.close(), c.close()]);
});

test('a data path that is a file: the session works in memory, says why it is not saved, and leaves nothing behind', async () => {
  const data = temp();
  fs.writeFileSync(path.join(data, 'sessions'), 'not a directory');
  const store = new SessionStore(data);
  const log = await store.create(session('s1'));
  assert.equal(log.saved, false);
  assert.equal(log.problem?.kind, 'not_a_directory');
  assert.match(log.problem!.message, /sessions/);
  assert.match(log.problem!.message, /XDG_DATA_HOME/);
  const problems: SaveProblem[] = [];
  log.onProblem = (p) => problems.push(p);
  log.session.history.push({ role: 'user', content: 'still works' });
  await log.checkpoint();
  assert.deepEqual(problems, [], 'the same kind is not reported again');
  assert.deepEqual(fs.readdirSync(data), ['sessions']);
  // the file is moved away: saving recovers, with everything kept in memory
  let recovered = 0;
  log.onRecovered = () => recovered++;
  fs.rmSync(path.join(data, 'sessions'));
  await log.checkpoint();
  assert.equal(recovered, 1);
  assert.equal(log.saved, true);
  assert.deepEqual((await store.load('s1'))?.history.map((m) => m.content), ['still works']);
});

test('a full disk (tmpfs): no space named, no temp file left, the log consistent, and it catches up when space returns', async (t) => {
  const mnt = path.join(temp(), 'mnt');
  const fsys = mountTmpfs(mnt, '64k');
  if ('error' in fsys) {
    t.diagnostic(`no tmpfs here (${fsys.error}); the data-path-is-a-file test covers the failure path`);
    return;
  }
  try {
    const store = new SessionStore(mnt);
    const log = await store.create(session('s1'));
    const problems: SaveProblem[] = [];
    log.onProblem = (p) => problems.push(p);
    log.session.history.push({ role: 'user', content: 'small' });
    await log.checkpoint({ durable: true });
    log.session.history.push({ role: 'tool', toolCallId: 'x', name: 'read_file', content: 'y'.repeat(100_000) });
    await log.checkpoint({ durable: true });
    assert.deepEqual(problems.map((p) => p.kind), ['no_space']);
    assert.match(problems[0].message, /no space left/);
    assert.equal(log.saved, false);
    assert.deepEqual(fs.readdirSync(store.dir), ['s1.jsonl'], 'no temp file');
    assert.deepEqual((await store.load('s1'))?.history.map((m) => m.content), ['small'], 'the partial line was taken back');
    // space comes back (the big entry is elided, as a compaction would): the log catches up
    log.spliceHistory(1, 1, { role: 'tool', toolCallId: 'x', name: 'read_file', content: '(elided)' });
    await log.checkpoint();
    assert.equal(log.saved, true);
    assert.deepEqual((await store.load('s1'))?.history.map((m) => m.content), ['small', '(elided)']);
    assert.deepEqual(fs.readdirSync(store.dir), ['s1.jsonl']);
  } finally {
    fsys.unmount();
  }
});

test('a read-only disk (tmpfs mounted ro): named as read-only, not as a missing file', async (t) => {
  const mnt = path.join(temp(), 'ro');
  const fsys = mountTmpfs(mnt, '64k', { readOnly: true });
  if ('error' in fsys) {
    t.diagnostic(`no tmpfs here (${fsys.error}); the data-path-is-a-file test covers the failure path`);
    return;
  }
  try {
    const log = await new SessionStore(mnt).create(session('s1'));
    assert.equal(log.saved, false);
    assert.equal(log.problem?.kind, 'read_only');
    assert.match(log.problem!.message, /read-only file system/);
    assert.doesNotMatch(log.problem!.message, /ENOENT/);
  } finally {
    fsys.unmount();
  }
});

test('the data dir follows XDG_DATA_HOME, else ~/.local/share', () => {
  assert.equal(dataDir({ XDG_DATA_HOME: '/x/data', HOME: '/h' }), '/x/data/cxl');
  assert.equal(dataDir({ XDG_DATA_HOME: 'relative', HOME: '/h' }), '/h/.local/share/cxl');
  assert.equal(dataDir({ HOME: '/h' }), '/h/.local/share/cxl');
});

test('a session never used is kept when its log closes (a later process may load it); the sweep removes it once it is a week old and nobody holds it', async () => {
  const data = temp();
  const store = new SessionStore(data);
  const unused = await store.create(session('u1'));
  unused.session.mode = 'plan';
  // opened with additional directories and never prompted: still never used
  unused.put(ADDITIONAL_DIRS_KEY, ['/tmp/extra']);
  const used = await store.create(session('u2'));
  used.session.history.push({ role: 'user', content: 'hi' });
  await unused.close();
  await used.close();
  assert.deepEqual(fs.readdirSync(store.dir).filter((f) => f.endsWith('.jsonl')).sort(), ['u1.jsonl', 'u2.jsonl']);
  const later = new SessionStore(data);
  assert.equal((await later.open('u1'))?.session.mode, 'plan', 'a later process resumes it');
  await later.open('u1').then((l) => l?.close());
  // a week on: the never-used one goes, the used one stays; one held open by a live process stays
  const held = await later.create(session('u3'));
  const old = new Date(Date.now() - 8 * 24 * 3600 * 1000);
  for (const id of ['u1', 'u2', 'u3']) fs.utimesSync(path.join(store.dir, `${id}.jsonl`), old, old);
  assert.equal(await new SessionStore(data).sweep(Date.now(), true), 1);
  assert.deepEqual(fs.readdirSync(store.dir).filter((f) => f.endsWith('.jsonl')).sort(), ['u2.jsonl', 'u3.jsonl']);
  // and at most once a day
  await held.close();
  assert.equal(await new SessionStore(data).sweep(), 0);
  assert.equal(await new SessionStore(data).sweep(Date.now(), true), 1);
});

test('a process killed (kill -9) while it appends leaves a loadable log: every whole line loads, in order, and appending goes on', { timeout: 60_000 }, async () => {
  const data = temp();
  const store = new SessionStore(data);
  const log = await store.create(session('k1'));
  log.session.history.push({ role: 'user', content: 'before' });
  await log.close();
  for (let round = 0; round < 3; round++) {
    const w = runWriter(['spin-session', data, 'k1']);
    await w.started;
    await new Promise((r) => setTimeout(r, 50 + 40 * round));
    w.child.kill('SIGKILL');
    await w.done;
  }
  const back = await store.open('k1');
  assert.ok(back, 'loads');
  const spins = back.session.history.slice(1).map((m) => Number(String(m.content).split(' ')[0].slice('spin.'.length)));
  assert.equal(back.session.history[0].content, 'before');
  // each killed writer's lines are whole and in its order (each run counts from 0 again)
  for (let i = 1; i < spins.length; i++) assert.ok(spins[i] === spins[i - 1] + 1 || spins[i] === 0, `order at ${i}: ${spins.slice(0, 20).join(',')}`);
  back.session.history.push({ role: 'user', content: 'after' });
  await back.close();
  const again = await store.load('k1');
  assert.equal(again?.history.at(-1)?.content, 'after');
  assert.equal(again?.damagedLines, undefined, 'no damaged line: a torn tail was dropped, not glued to the next line');
});
