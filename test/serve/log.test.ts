// The host's log rotates by size and by age, keeps at most `keep` old files and none past `keepMs`.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { RotatingLog } from '../../src/serve/log.ts';

test('rotated past its size and past its age; old files beyond the count or the age removed', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-log-'));
  let now = Date.parse('2026-01-01T00:00:00Z');
  const log = new RotatingLog(dir, { maxBytes: 250, maxAgeMs: 3600_000, keep: 2, keepMs: 7 * 24 * 3600_000, now: () => now });
  for (let i = 0; i < 3; i++) {
    log.line('x'.repeat(80));
    now += 1000;
  }
  assert.equal(log.rotated().length, 1, 'past 250 bytes: moved aside once');
  assert.ok(fs.statSync(log.file).size < 250);
  now += 2 * 3600_000;
  log.line('after two hours');
  assert.equal(log.rotated().length, 2, 'older than an hour: moved aside');
  assert.equal(fs.readFileSync(log.file, 'utf8').trim().endsWith('after two hours'), true);
  now += 1000;
  log.rotate();
  assert.equal(log.rotated().length, 2, 'at most two kept');
  // one kept file is older than keepMs: gone at the next rotation
  const old = log.rotated()[1];
  const past = new Date(now - 8 * 24 * 3600_000);
  fs.utimesSync(old, past, past);
  now += 1000;
  log.rotate();
  assert.equal(log.rotated().includes(old), false);
  assert.equal(fs.statSync(log.file).mode & 0o777, 0o600);
  log.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
