import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { spawn } from 'node:child_process';
import { moduleCommand, runtimeName, spawnSyncSettled } from '../../../src/core/platform/runtime.ts';

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

/** What the stdout_writer fixture printed, read slowly so its pipe fills. */
async function slowRead(args: string[]): Promise<{ out: string; code: number | null; stderr: string }> {
  const [cmd, ...pre] = moduleCommand(new URL('./fixtures/stdout_writer.ts', import.meta.url).href);
  const child = spawn(cmd, [...pre, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.on('data', (d: Buffer) => {
    chunks.push(d);
    child.stdout.pause();
    setTimeout(() => child.stdout.resume(), 1);
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { out: Buffer.concat(chunks).toString('utf8'), code, stderr };
}

test('writeStdout: every byte arrives in order through a full pipe, blocking or not (a non-blocking one hands the rest to process.stdout)', async () => {
  for (const args of [[], ['--stream-first']]) {
    const { out, code, stderr } = await slowRead(args);
    assert.equal(code, 0, stderr);
    const head = args.length ? 'a' : '';
    assert.equal(out.length, head.length + (4 << 20) + 'tail\n'.length, `${args.join(' ')}: ${out.length} bytes`);
    assert.ok(out.startsWith(`${head}xxx`) && out.endsWith('xxxtail\n'), `${args.join(' ')}: out of order`);
    assert.equal(out.slice(head.length, -5), 'x'.repeat(4 << 20));
  }
});
