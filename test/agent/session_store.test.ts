import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { dataDir } from '../../src/agent/data_dir.ts';
import { SessionStore, type StoredSession } from '../../src/agent/session_store.ts';

function session(id: string, cwd: string, updatedAt: string): StoredSession {
  return { version: 1, sessionId: id, cwd, createdAt: updatedAt, updatedAt, mode: 'default', history: [{ role: 'user', content: 'hi' }], replay: [], allows: ['local_fs:a.txt'], ledger: { x: 1 } };
}

test('sessions round-trip, list newest first, filter by cwd, and refuse ids that are paths', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cxl-store-'));
  try {
    const store = new SessionStore(dir);
    await store.save(session('a1', '/w/one', '2026-01-01T00:00:00.000Z'));
    await store.save(session('b2', '/w/two', '2026-01-02T00:00:00.000Z'));
    const back = await store.load('a1');
    assert.deepEqual(back, session('a1', '/w/one', '2026-01-01T00:00:00.000Z'));
    assert.deepEqual((await store.list()).map((s) => s.sessionId), ['b2', 'a1']);
    assert.deepEqual((await store.list('/w/one')).map((s) => s.sessionId), ['a1']);
    assert.equal(await store.load('../../etc/passwd'), undefined);
    await assert.rejects(store.save(session('../x', '/w', '2026-01-01T00:00:00.000Z')), /invalid session id/);
    // atomic writes leave no temp files, and the file is private
    assert.deepEqual(readdirSync(path.join(dir, 'sessions')).sort(), ['a1.json', 'b2.json']);
    assert.equal(statSync(path.join(dir, 'sessions', 'a1.json')).mode & 0o077, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the data dir follows XDG_DATA_HOME, else ~/.local/share', () => {
  assert.equal(dataDir({ XDG_DATA_HOME: '/x/data', HOME: '/h' }), '/x/data/cxl');
  assert.equal(dataDir({ XDG_DATA_HOME: 'relative', HOME: '/h' }), '/h/.local/share/cxl');
  assert.equal(dataDir({ HOME: '/h' }), '/h/.local/share/cxl');
});
