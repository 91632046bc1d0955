// The turn lease names its holder by pid and, where the system says when a process started
// (Linux), by that start time too: a live pid that started at another time is a reused pid, so
// the lease of the dead holder is taken; the holder itself is still waited for.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { TurnHeld, TurnLease } from '../../../src/agent/sessions/turn_lease.ts';
import { processStartTime } from '../../../src/core/platform/write_lock.ts';

test('a lease whose pid is alive but started at another time (a reused pid) is taken; the real holder is refused', async () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-lease-'));
  const sessions = path.join(base, 'sessions');
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  try {
    const pid = child.pid!;
    await new Promise((r) => child.once('spawn', r));
    const start = processStartTime(pid);
    const linux = fs.existsSync('/proc/self/stat');
    assert.equal(start !== undefined, linux, 'the start time is read where /proc says it');
    const lease = new TurnLease(sessions, 's1');
    fs.mkdirSync(path.dirname(lease.file), { recursive: true });
    const write = (s?: string) => fs.writeFileSync(lease.file, JSON.stringify({ pid, host: os.hostname(), ...(s ? { start: s } : {}), at: '2026-01-01T00:00:00.000Z' }));
    // the live holder, as it wrote itself: refused, named
    write(start);
    await assert.rejects(lease.take(), (err: unknown) => err instanceof TurnHeld && err.holder.pid === pid);
    // the same pid recorded with another start time: the process that wrote it is gone
    write(`${Number(start ?? '0') + 1}`);
    if (linux) {
      await lease.take();
      const mine = JSON.parse(fs.readFileSync(lease.file, 'utf8'));
      assert.equal(mine.pid, process.pid);
      assert.equal(mine.start, processStartTime(process.pid));
      await lease.release();
      assert.equal(fs.existsSync(lease.file), false);
    } else {
      // no start times here: a live pid is the holder
      await assert.rejects(lease.take(), TurnHeld);
    }
  } finally {
    child.kill('SIGKILL');
    fs.rmSync(base, { recursive: true, force: true });
  }
});
