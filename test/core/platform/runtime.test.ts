import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runtimeName, spawnSyncSettled } from '../../../src/core/platform/runtime.ts';

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
    // Node names it; Deno answers an empty object, named here
    assert.ok(['ETXTBSY', 'ENOSTATUS'].includes(String((r.error as NodeJS.ErrnoException | undefined)?.code)), String(r.error));
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

test('spawnSyncSettled: a program that exits without reading its input: its exit where the runtime tells it, never a made-up one', () => {
  const { dir, file } = script('echo "refused" >&2; exit 1');
  try {
    for (let i = 0; i < 5; i++) {
      const r = spawnSyncSettled(file, [], { stdio: ['pipe', 'ignore', 'pipe'], input: new Uint8Array(1 << 20), encoding: 'utf8' });
      if (runtimeName === 'node') {
        // Node reports the exit with EPIPE beside it: the program ran
        assert.equal(r.error, undefined);
        assert.equal(r.status, 1);
        assert.equal(r.stderr, 'refused\n');
      } else {
        // Deno keeps neither: an error, not an exit
        assert.equal(r.status, null);
        assert.equal((r.error as NodeJS.ErrnoException | undefined)?.code, 'ENOSTATUS');
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
