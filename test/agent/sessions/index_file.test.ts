// The index behind session/list, on real files: its answer is always what loading every session
// file gives (the oracle), whatever happened to the index or the files behind its back; it reads
// only the files that changed; two processes writing it lose nothing; a dead process's marks go.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fileStamp, newOwner, parseIndex, SessionIndex, type SessionFileKind } from '../../../src/agent/sessions/index_file.ts';
import { ADDITIONAL_DIRS_KEY, dirsKept, SessionStore, type SessionSummary, type StoredSession } from '../../../src/agent/sessions/store.ts';
import { moduleCommand } from '../../../src/core/platform/runtime.ts';
import { lockFileOf } from '../../../src/core/platform/write_lock.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function temp(): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(tmpdir(), 'cxl-index-')));
  dirs.push(d);
  return d;
}

function session(id: string, cwd = '/w/one'): StoredSession {
  return { version: 1, sessionId: id, cwd, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '', mode: 'default', history: [], replay: [], allows: [] };
}

/** What session/list must answer: every session file loaded in full, newest first, ties by id. */
async function oracle(store: SessionStore): Promise<SessionSummary[]> {
  let names: string[] = [];
  try {
    names = fs.readdirSync(store.dir);
  } catch {
    return [];
  }
  const ids = [...new Set(names.map((n) => /^([A-Za-z0-9_-]+)\.jsonl?$/.exec(n)?.[1]).filter((x): x is string => !!x))];
  const out: SessionSummary[] = [];
  for (const id of ids) {
    const s = await store.load(id);
    const dirs = dirsKept(s?.extras?.[ADDITIONAL_DIRS_KEY]);
    if (s) out.push({ sessionId: s.sessionId, cwd: s.cwd, title: s.title, updatedAt: s.updatedAt, ...(dirs ? { additionalDirectories: dirs } : {}) });
  }
  return out.sort((a, b) => (a.updatedAt > b.updatedAt ? -1 : a.updatedAt < b.updatedAt ? 1 : a.sessionId < b.sessionId ? -1 : 1));
}

async function assertListed(store: SessionStore, why: string): Promise<void> {
  assert.deepEqual(await store.list(), await oracle(store), why);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A handful of sessions of every shape: titled, retitled, moved to another cwd, with additional directories (some emptied, one changed), old whole-file ones. */
async function populate(data: string): Promise<SessionStore> {
  const store = new SessionStore(data);
  for (let i = 0; i < 12; i++) {
    const log = await store.create(session(`s${i}`, i % 2 ? '/w/one' : '/w/two'));
    if (i % 3) log.session.title = `session ${i}`;
    log.session.history.push({ role: 'user', content: `prompt ${i}` });
    if (i % 4 === 0) log.put(ADDITIONAL_DIRS_KEY, i === 8 ? [] : ['/d/x y', `/d/${i}`]);
    await log.checkpoint();
    if (i === 4) {
      log.session.title = 'renamed later';
      log.session.cwd = '/w/moved';
      log.put(ADDITIONAL_DIRS_KEY, ['/d/later']);
      await log.checkpoint();
    }
    await log.close();
  }
  // old whole-file sessions, one of them shadowed by a log of the same id
  fs.writeFileSync(path.join(store.dir, 'old1.json'), JSON.stringify({ ...session('old1', '/w/old'), title: 'from before', updatedAt: '2025-05-05T00:00:00.000Z', extras: { [ADDITIONAL_DIRS_KEY]: ['/d/old'] } }));
  fs.writeFileSync(path.join(store.dir, 's3.json'), JSON.stringify({ ...session('s3', '/w/shadow'), title: 'shadowed', updatedAt: '2030-01-01T00:00:00.000Z' }));
  // not sessions: a stray file and a log whose head names another id
  fs.writeFileSync(path.join(store.dir, 'notes.txt'), 'hello');
  fs.writeFileSync(path.join(store.dir, 'wrong.jsonl'), `${JSON.stringify({ t: 'head', v: 2, sessionId: 'other', cwd: '/x', createdAt: '', mode: 'default' })}\n`);
  return store;
}

/** A log written by hand, as something other than cxl would (the line format of session_store.ts). */
function writeLog(file: string, id: string, cwd: string, title?: string): void {
  fs.writeFileSync(file, `${JSON.stringify({ t: 'head', v: 2, sessionId: id, cwd, createdAt: '2026-01-01T00:00:00.000Z', mode: 'default', ...(title ? { title } : {}) })}\n`);
}

test('list answers what loading every file gives, for sessions of every shape, again and again, and per cwd', async () => {
  const store = await populate(temp());
  await assertListed(store, 'first list (no index yet)');
  assert.ok(fs.existsSync(store.index.file), 'the index was written');
  await assertListed(store, 'second list (from the index)');
  await sleep(60);
  await assertListed(store, 'a list once the directory time is settled');
  const two = (await oracle(store)).filter((s) => s.cwd === '/w/two');
  assert.ok(two.length > 0);
  assert.deepEqual(await store.list('/w/two'), two);
  // a fresh store (another agent process) reads the index it did not write
  await assertListed(new SessionStore(path.dirname(store.dir)), 'another process');
});

test('a deleted or corrupt index is rebuilt from the files', async () => {
  const store = await populate(temp());
  await store.list();
  // a damaged index that claims the directory as it is now: trusted if it were misread
  const dirMtime = () => Math.floor(fs.statSync(store.dir).mtimeMs);
  const current = () => fs.readFileSync(store.index.file, 'utf8').trimEnd().split('\n');
  // the index as it is, each line parsed, changed by `edit`, written back (claiming the directory as it is now)
  // deno-lint-ignore no-explicit-any
  const rewrite = (edit: (l: any[]) => unknown[]) => {
    const l = current().map((x) => JSON.parse(x));
    l[0] = { ...l[0], dir: dirMtime(), seenAt: 1e15 };
    fs.writeFileSync(store.index.file, edit(l).map((x) => JSON.stringify(x)).join('\n') + '\n');
  };
  for (const [what, damage, later] of [
    ['deleted', () => fs.rmSync(store.index.file)],
    ['not JSON', () => fs.writeFileSync(store.index.file, '{"v":1,"dir":12')],
    ['empty', () => fs.writeFileSync(store.index.file, '')],
    ['the wrong shape', () => fs.writeFileSync(store.index.file, JSON.stringify({ v: 1, dir: 1, seenAt: 1e15, rows: [['s1', 'jsonl', 7, null, '', null]], open: {} }))],
    ['another version', () => fs.writeFileSync(store.index.file, JSON.stringify({ v: 5, rows: [] }))],
    // version 1 kept a row per array: a file left by an older cxl is rebuilt, not misread
    ['version 1', () => fs.writeFileSync(store.index.file, JSON.stringify({ v: 1, dir: dirMtime(), seenAt: 1e15, rows: [['s1', 'jsonl', '/w', null, '2026-01-01T00:00:00.000Z', '1:1:1']], open: {} }))],
    ['a row cut short', () => fs.writeFileSync(store.index.file, JSON.stringify({ v: 2, dir: dirMtime(), seenAt: 1e15, rows: ['s1', 'jsonl', '/w', null, '2026-01-01T00:00:00.000Z'], open: {} }))],
    ['a field of the wrong type', () => fs.writeFileSync(store.index.file, JSON.stringify({ v: 2, dir: dirMtime(), seenAt: 1e15, rows: ['s1', 'jsonl', '/w', 5, '2026-01-01T00:00:00.000Z', '1:1:1'], open: {} }))],
    ['cut short', () => fs.writeFileSync(store.index.file, fs.readFileSync(store.index.file, 'utf8').slice(0, 40))],
    // version 3 had no additional directories: read as it is, it would answer none for every session
    ['version 3', () => rewrite((l) => [{ ...l[0], v: 3 }, { ...l[1], dirs: undefined }, l[2]])],
    // version 4's lines, each damaged in a way a lax reader would take
    ['without its stamps line', () => fs.writeFileSync(store.index.file, current().slice(0, 2).join('\n') + '\n')],
    ['with a line too many', () => fs.writeFileSync(store.index.file, current().join('\n') + '\n{}\n')],
    ['a header of another version', () => rewrite((l) => [{ ...l[0], v: 2 }, l[1], l[2]])],
    ['a header counting another number of pages', () => rewrite((l) => [{ ...l[0], pages: 2 }, l[1], l[2]])],
    ['an id column short', () => rewrite((l) => [l[0], { ...l[1], ids: l[1].ids.split(' ').slice(1).join(' ') }, l[2]])],
    ['a kind that is neither', () => rewrite((l) => [l[0], { ...l[1], kinds: 'x' + l[1].kinds.slice(1) }, l[2]])],
    ['a cwd index out of range', () => rewrite((l) => [l[0], { ...l[1], cwd: [l[0].cwds.length, ...l[1].cwd.slice(1)] }, l[2]])],
    ['a cwd index that is not a whole number', () => rewrite((l) => [l[0], { ...l[1], cwd: [0.5, ...l[1].cwd.slice(1)] }, l[2]])],
    ['a title of the wrong type', () => rewrite((l) => [l[0], { ...l[1], titles: [7, ...l[1].titles.slice(1)] }, l[2]])],
    ['directories that are not a list of strings', () => rewrite((l) => [l[0], { ...l[1], dirs: { 0: [5] } }, l[2]])],
    ['directories at a place out of range', () => rewrite((l) => [l[0], { ...l[1], dirs: { [l[1].titles.length]: ['/d'] } }, l[2]])],
    ['directories that are not a map of places', () => rewrite((l) => [l[0], { ...l[1], dirs: [['/d']] }, l[2]])],
    ['a stale index out of range', () => rewrite((l) => [l[0], { ...l[1], stale: [l[1].titles.length] }, l[2]])],
    ['a stamps line short', () => rewrite((l) => [l[0], l[1], l[2].slice(1)]), 'the stamps'],
    ['a stamp the listing calls stale is not null', () => rewrite((l) => [l[0], { ...l[1], stale: [0] }, l[2]]), 'the stamps'],
    ['a stamp of the wrong type', () => rewrite((l) => [l[0], l[1], [5, ...l[2].slice(1)]]), 'the stamps'],
  ] as const) {
    (damage as () => void)();
    if (what !== 'deleted') assert.equal(parseIndex(fs.readFileSync(store.index.file)), undefined, `index ${what}: refused`);
    await assertListed(store, `index ${what}`);
    // the stamps are parsed only when a rebuild needs them: a directory change brings one
    if (later) {
      fs.writeFileSync(path.join(store.dir, 'stray.txt'), '');
      fs.rmSync(path.join(store.dir, 'stray.txt'));
      await assertListed(store, `index ${what}, then the directory changed`);
    }
    const idx = parseIndex(fs.readFileSync(store.index.file));
    assert.equal(idx?.v, 4, `index ${what}: rewritten`);
    assert.equal(idx?.rows.length, (await oracle(store)).length);
  }
});

test('an index of many pages: listed whole, and a fresh process reads only the files that changed', async () => {
  const store = new SessionStore(temp());
  fs.mkdirSync(store.dir, { recursive: true });
  // long titles (and some with spaces in odd places, some none): the listing takes several pages
  for (let i = 0; i < 300; i++) writeLog(path.join(store.dir, `m${i}.jsonl`), `m${i}`, `/w/${i % 7}`, i % 5 ? `${'long title '.repeat(40)}${i}` : undefined);
  await assertListed(store, 'first list');
  const text = fs.readFileSync(store.index.file, 'utf8');
  const pages = JSON.parse(text.slice(0, text.indexOf('\n'))).pages;
  assert.ok(pages > 2, `${pages} pages`);
  assert.ok(text.split('\n').every((l) => l.length < 64 * 1024), 'every line under 64 KB');
  assert.equal(parseIndex(fs.readFileSync(store.index.file))?.rows.length, 300);
  await sleep(60);
  await store.list();
  const reads: string[] = [];
  const fresh = new SessionIndex(store.dir, (id, kind) => {
    reads.push(id);
    const st = fs.statSync(path.join(store.dir, `${id}.${kind}`));
    return { summary: { sessionId: id, cwd: '/c', updatedAt: st.mtime.toISOString() }, stamp: fileStamp(st) };
  });
  assert.deepEqual((await fresh.list()).map((s) => s.sessionId), (await oracle(store)).map((s) => s.sessionId));
  writeLog(path.join(store.dir, 'late.jsonl'), 'late', '/w/late');
  await fresh.list();
  assert.deepEqual(reads, ['late'], 'the stamps of every page were found');
});

test('session files added, removed or replaced behind its back are seen at once', async () => {
  let store = new SessionStore(temp());
  const steps: Array<[string, () => void]> = [
    ['added', () => writeLog(path.join(store.dir, 'added.jsonl'), 'added', '/w/new', 'added by hand')],
    ['removed', () => fs.rmSync(path.join(store.dir, 's5.jsonl'))],
    ['replaced by rename', () => {
      const tmp = path.join(store.dir, 'tmp.part');
      writeLog(tmp, 's6', '/w/elsewhere', 'replaced');
      fs.renameSync(tmp, path.join(store.dir, 's6.jsonl'));
    }],
    ['an old whole-file session removed, its log stays', () => fs.rmSync(path.join(store.dir, 's3.json'))],
    ['a log removed, its old whole-file session shows again', () => {
      fs.writeFileSync(path.join(store.dir, 's7.json'), JSON.stringify({ ...session('s7', '/w/old'), title: 'older s7', updatedAt: '2024-01-01T00:00:00.000Z' }));
      fs.rmSync(path.join(store.dir, 's7.jsonl'));
    }],
    ['everything removed', () => {
      for (const n of fs.readdirSync(store.dir)) fs.rmSync(path.join(store.dir, n));
    }],
  ];
  // just after the directory last changed (the index's record of it is then checked anyway),
  // and long after (the record is trusted, so only the directory's time can give the change away)
  for (const wait of [0, 60]) {
    store = await populate(temp());
    for (const [what, change] of steps) {
      await sleep(wait);
      await store.list();
      await store.list();
      change();
      await assertListed(store, `${what} (${wait} ms after the last change)`);
    }
  }
  fs.rmSync(store.dir, { recursive: true });
  assert.deepEqual(await store.list(), [], 'no sessions directory at all');
});

test('a session open in another process: its appends show at every list, and its row is settled once it closes', async () => {
  const data = temp();
  const store = await populate(data);
  await store.list();
  const other = new SessionStore(data);
  const log = await other.open('s2');
  assert.ok(log);
  await sleep(60);
  await assertListed(store, 'opened elsewhere');
  for (const title of ['first title', 'second title', 'third title']) {
    log.session.title = title;
    log.session.history.push({ role: 'user', content: title });
    await log.checkpoint();
    const listed = (await store.list()).find((s) => s.sessionId === 's2');
    assert.equal(listed?.title, title, 'an append to an open session is seen');
    await assertListed(store, `after "${title}"`);
    // a rebuild while it is open (the directory changed) records its file as it is now
    writeLog(path.join(data, 'sessions', `by-hand-${title.split(' ')[0]}.jsonl`), `by-hand-${title.split(' ')[0]}`, '/w/x');
    await sleep(60);
    await assertListed(store, `rebuilt after "${title}"`);
  }
  // its last words, then closed: the row recorded at the rebuild is out of date now
  log.session.title = 'last title';
  await log.close();
  await sleep(60);
  await assertListed(store, 'closed');
  await assertListed(store, 'closed, listed again');
  const idx = parseIndex(fs.readFileSync(store.index.file))!;
  assert.deepEqual(idx.open, {}, 'no marks left');
  assert.ok(idx.rows.every((r) => r[5] !== null), 'every row trusted again');
});

test('only the files that changed are read', async () => {
  const data = temp();
  const store = await populate(data);
  const reads: string[] = [];
  const read = (id: string, kind: SessionFileKind) => {
    reads.push(id);
    const file = path.join(store.dir, `${id}.${kind}`);
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      return undefined;
    }
    return { summary: { sessionId: id, cwd: '/c', title: undefined, updatedAt: st.mtime.toISOString() }, stamp: fileStamp(st) };
  };
  const index = new SessionIndex(store.dir, read);
  // every session file but the whole-file one a log shadows
  const files = fs.readdirSync(store.dir).filter((n) => /\.jsonl?$/.test(n) && n !== 's3.json').length;
  const count = async () => {
    reads.length = 0;
    await index.list();
    return reads.length;
  };
  assert.equal(await count(), files, 'the first list reads every session file');
  assert.equal(await count(), 0, 'the next reads none');
  await sleep(60);
  assert.equal(await count(), 0, 'nor once settled');
  writeLog(path.join(store.dir, 'added.jsonl'), 'added', '/w/new');
  assert.equal(await count(), 1, 'a file added: only it is read');
  assert.equal(await count(), 0);
  const owner = newOwner();
  await index.opened('s1', owner);
  assert.equal(await count(), 1, 'a session open somewhere is read at every list');
  assert.equal(await count(), 1);
  await index.closed('s1', owner);
  assert.equal(await count(), 1, 'once closed, it is read once more');
  assert.equal(await count(), 0, 'and then no more');
  // another process: its first list parses only the listing, and the change after it compares the stamps
  await sleep(60);
  const other = new SessionIndex(store.dir, read);
  reads.length = 0;
  await other.list();
  assert.equal(reads.length, 0, 'a fresh process reads no session file');
  writeLog(path.join(store.dir, 'added2.jsonl'), 'added2', '/w/new');
  reads.length = 0;
  await other.list();
  assert.deepEqual(reads, ['added2'], 'then a file added: only it is read');
});

test('a change in the same clock tick as the index\'s record of the directory is still seen', async () => {
  const store = await populate(temp());
  // the directory changes, and the index records it within the same tick
  const tick = new Date();
  fs.utimesSync(store.dir, tick, tick);
  await store.list();
  // a second change in that tick leaves the directory's time as it was
  writeLog(path.join(store.dir, 'same-tick.jsonl'), 'same-tick', '/w/tick', 'same tick');
  fs.utimesSync(store.dir, tick, tick);
  await assertListed(store, 'a change the directory time does not show');
  assert.ok((await store.list()).some((s) => s.sessionId === 'same-tick'));
});

test('index writes wait for another process\'s lock on it', async () => {
  const store = await populate(temp());
  await store.list();
  // a live process of this host holds the lock (as write_lock.ts writes it)
  const holder = spawn('sleep', ['5'], { stdio: 'ignore' });
  const lock = lockFileOf(store.index.file);
  fs.writeFileSync(lock, JSON.stringify({ pid: holder.pid, host: hostname(), at: new Date().toISOString() }));
  try {
    let marked = false;
    const owner = newOwner();
    const marking = store.index.opened('s1', owner).then(() => (marked = true));
    await sleep(200);
    assert.equal(marked, false, 'written while another process held the lock');
    assert.doesNotMatch(fs.readFileSync(store.index.file, 'utf8'), new RegExp(owner));
    fs.rmSync(lock);
    await marking;
    assert.match(fs.readFileSync(store.index.file, 'utf8'), new RegExp(owner));
  } finally {
    holder.kill();
    fs.rmSync(lock, { force: true });
  }
});

const writer = fileURLToPath(new URL('../../fixtures/session_writer.ts', import.meta.url));

function run(data: string, prefix: string, n: number, mode = ''): { done: Promise<number | null>; child: ReturnType<typeof spawn>; output: () => string } {
  const [cmd, ...args] = moduleCommand(writer);
  const child = spawn(cmd, [...args, data, prefix, String(n), mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  return { child, done: new Promise((r) => child.once('close', r)), output: () => out };
}

test('two processes creating, listing and closing sessions at once: no row or mark lost, the index always whole', async () => {
  const data = temp();
  const store = new SessionStore(data);
  const n = 25;
  const a = run(data, 'a', n);
  const b = run(data, 'b', n);
  // a third party lists all along: every index it finds must parse
  let polls = 0;
  let finished = false;
  const poll = (async () => {
    while (!finished) {
      if (fs.existsSync(store.index.file)) {
        assert.ok(parseIndex(fs.readFileSync(store.index.file)), 'a torn index file');
      }
      await store.list();
      polls++;
      await sleep(5);
    }
  })();
  const codes = await Promise.all([a.done, b.done]);
  finished = true;
  await poll;
  assert.deepEqual(codes, [0, 0], a.output() + b.output());
  assert.ok(polls > 0);
  const all = await store.list();
  assert.equal(all.length, 2 * n);
  assert.deepEqual(all, await oracle(store));
  // the index itself holds every session, trusted, with no marks left behind
  await sleep(60);
  await store.list();
  const idx = parseIndex(fs.readFileSync(store.index.file))!;
  assert.deepEqual(idx.open, {});
  assert.deepEqual(idx.rows.map((r) => r[0]).sort(), all.map((s) => s.sessionId).sort());
  assert.ok(idx.rows.every((r) => r[5] !== null));
});

test('a process killed with a session open: its appends are still seen, and its mark is cleared', async () => {
  const data = temp();
  const store = new SessionStore(data);
  const w = run(data, 'k', 2, 'hang');
  while (!w.output().includes('open')) {
    if (w.child.exitCode !== null) assert.fail(w.output());
    await sleep(20);
  }
  await store.list();
  // what it appended while open (behind the index's back, as its last act)
  fs.appendFileSync(path.join(store.dir, 'k-1.jsonl'), `${JSON.stringify({ t: 'set', f: 'title', v: 'its last words' })}\n`);
  w.child.kill('SIGKILL');
  await w.done;
  await assertListed(store, 'after the kill');
  assert.equal((await store.list()).find((s) => s.sessionId === 'k-1')?.title, 'its last words');
  const idx = parseIndex(fs.readFileSync(store.index.file))!;
  assert.deepEqual(idx.open, {}, 'the dead process\'s mark is gone');
  await assertListed(store, 'listed again');
});
