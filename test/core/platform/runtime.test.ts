import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { spawnSyncSettled } from '../../../src/core/platform/runtime.ts';

function script(body: string): { dir: string; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-runtime-'));
  const file = path.join(dir, 'prog');
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`);
  fs.chmodSync(file, 0o755);
  return { dir, file };
}

test('spawnSyncSettled: a program file still open for writing is an error named ETXTBSY, never an answer without a status', () => {
  const { dir, file } = script('exit 0');
  const fd = fs.openSync(file, 'r+');
  try {
    const r = spawnSyncSettled(file, [], { stdio: ['pipe', 'ignore', 'pipe'], input: 'x', encoding: 'utf8' });
    assert.equal(r.status, null);
    assert.equal((r.error as NodeJS.ErrnoException | undefined)?.code, 'ETXTBSY');
  } finally {
    fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('spawnSyncSettled: an exit, its stderr and a missing program are passed through as they are', () => {
  const { dir, file } = script('echo "why" >&2; exit 3');
  try {
    const r = spawnSyncSettled(file, [], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    assert.equal(r.status, 3);
    assert.equal(r.stderr, 'why\n');
    assert.equal(r.error, undefined);
    const missing = spawnSyncSettled(path.join(dir, 'absent'), [], { encoding: 'utf8' });
    assert.equal((missing.error as NodeJS.ErrnoException | undefined)?.code, 'ENOENT');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
