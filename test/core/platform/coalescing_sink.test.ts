// The coalescing sink in front of `cxl acp`'s stdout: what one event-loop turn writes goes out as
// one write, in order; a target that does not keep up makes writes wait; a flush waits until the
// target has everything; a failed write fails the ones after it. Targets are real Node streams
// and a real child process writing to a real pipe.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CoalescingSink } from '../../../src/core/platform/coalescing_sink.ts';
import { moduleCommand } from '../../../src/core/platform/runtime.ts';

/** past the end of the current event-loop turn (the sink writes in the check phase) */
const turn = () => new Promise<void>((r) => setTimeout(r, 5));

/** A Writable that records each write; `hold` keeps every write's callback until released. */
function recorder(o: { highWaterMark?: number; hold?: boolean; fail?: (n: number) => Error | undefined } = {}) {
  const writes: string[] = [];
  const held: Array<() => void> = [];
  const w = new Writable({
    highWaterMark: o.highWaterMark ?? 16 * 1024,
    write(chunk: Buffer, _enc, cb) {
      writes.push(chunk.toString('utf8'));
      const err = o.fail?.(writes.length);
      if (err) return cb(err);
      if (o.hold) held.push(() => cb());
      else cb();
    },
  });
  return {
    w,
    writes,
    text: () => writes.join(''),
    release: () => {
      for (const cb of held.splice(0)) cb();
    },
    held: () => held.length,
  };
}

test('what one turn writes goes out as one write, in order, through the JSON-lines view', async () => {
  const r = recorder();
  const sink = new CoalescingSink(r.w);
  const writer = sink.jsonLines<{ i: number }>().getWriter();
  // awaited one by one, as the ACP SDK writes: each resolves without waiting for the target
  for (let i = 0; i < 1000; i++) await writer.write({ i });
  assert.equal(r.writes.length, 0, 'nothing is written before the turn ends');
  await sink.flush();
  assert.equal(r.writes.length, 1);
  const lines = r.text().split('\n');
  assert.equal(lines.pop(), '');
  assert.deepEqual(lines.map((l) => (JSON.parse(l) as { i: number }).i), [...Array(1000).keys()]);
  // the next turn's writes are a write of their own, after the first
  await writer.write({ i: 1000 });
  await turn();
  assert.equal(r.writes.length, 2);
  assert.equal(r.writes[1], '{"i":1000}\n');
});

test('bytes and text written through both views keep one order', async () => {
  const r = recorder();
  const sink = new CoalescingSink(r.w);
  const bytes = sink.bytes().getWriter();
  const lines = sink.jsonLines<string>().getWriter();
  const enc = new TextEncoder();
  await bytes.write(enc.encode('é'));
  await lines.write('a');
  // a multi-byte character split across two byte chunks stays whole once joined
  const euro = enc.encode('€');
  await bytes.write(euro.subarray(0, 1));
  await bytes.write(euro.subarray(1));
  await lines.write('b');
  await bytes.close();
  assert.equal(r.text(), 'é"a"\n€"b"\n');
});

test('a target that does not keep up makes writes wait, and never holds much past the high-water mark', async () => {
  const r = recorder({ hold: true, highWaterMark: 1024 });
  const sink = new CoalescingSink(r.w, { highWaterMark: 4096 });
  const chunk = 'y'.repeat(1000);
  let resolved = 0;
  let waiting: Promise<void> | undefined;
  for (let i = 0; i < 10 && !waiting; i++) {
    const p = sink.write(chunk);
    if (p) waiting = p.then(() => void resolved++);
  }
  assert.ok(waiting, 'a write past the high-water mark waits');
  assert.ok(sink.pending <= 4096 + chunk.length, `held ${sink.pending} bytes`);
  await turn();
  assert.equal(r.writes.length, 1, 'the queue went out as one write');
  await turn();
  assert.equal(resolved, 0, 'still waiting while the target has not confirmed');
  r.release();
  await waiting;
  assert.equal(resolved, 1);
  assert.equal(sink.pending, 0);
});

test('a producer awaiting each write is paced by a slow target: memory stays bounded, nothing lost', async () => {
  const r = recorder({ hold: true, highWaterMark: 2048 });
  const sink = new CoalescingSink(r.w, { highWaterMark: 8192 });
  const writer = sink.jsonLines<{ i: number; pad: string }>().getWriter();
  const pad = 'z'.repeat(100);
  const total = 2000;
  let most = 0;
  let done = false;
  // the target confirms one batch per turn, as a slow pipe would
  const pump = (async () => {
    while (!done) {
      await turn();
      r.release();
    }
  })();
  for (let i = 0; i < total; i++) {
    await writer.write({ i, pad });
    most = Math.max(most, sink.pending);
  }
  const flushed = sink.flush();
  await flushed;
  done = true;
  await pump;
  assert.ok(most <= 8192 + 200, `the sink held ${most} bytes at most`);
  const ids = r.text().trimEnd().split('\n').map((l) => (JSON.parse(l) as { i: number }).i);
  assert.deepEqual(ids, [...Array(total).keys()]);
  assert.ok(r.writes.length > 10, 'the slow target got many writes, not one huge one');
});

test('flush and close wait until the target has confirmed everything', async () => {
  const r = recorder({ hold: true });
  const sink = new CoalescingSink(r.w);
  void sink.write('one\n');
  void sink.write('two\n');
  let flushed = false;
  const f = sink.flush().then(() => (flushed = true));
  assert.equal(r.text(), 'one\ntwo\n', 'flush hands the queue over at once');
  await turn();
  assert.equal(flushed, false, 'not flushed before the target confirms');
  r.release();
  await f;
  void sink.write('three\n');
  const view = sink.bytes();
  let closed = false;
  const c = view.close().then(() => (closed = true));
  await turn();
  assert.equal(closed, false);
  r.release();
  await c;
  assert.equal(r.text(), 'one\ntwo\nthree\n');
});

test('a failed write fails the waiting and the later writes and flushes, with its error', async () => {
  const boom = new Error('disk on fire');
  const r = recorder({ fail: (n) => (n === 2 ? boom : undefined) });
  const sink = new CoalescingSink(r.w);
  const writer = sink.jsonLines<number>().getWriter();
  await writer.write(1);
  await sink.flush();
  await writer.write(2);
  await assert.rejects(sink.flush(), /disk on fire/);
  await assert.rejects(writer.write(3), /disk on fire/);
  const later = sink.write('x');
  assert.ok(later, 'a write after the failure is refused, not queued');
  await assert.rejects(later, /disk on fire/);
});

test('a reader that went away (EPIPE on a real pipe) is an error of the sink, not a crash', async () => {
  const child = spawn('true', [], { stdio: ['pipe', 'ignore', 'ignore'] });
  await new Promise((r) => child.once('exit', r));
  const sink = new CoalescingSink(child.stdin!);
  let failed: unknown;
  for (let i = 0; i < 50 && !failed; i++) {
    try {
      await sink.write('z'.repeat(70_000));
      await sink.flush();
    } catch (err) {
      failed = err;
    }
  }
  assert.match(String((failed as Error | undefined)?.message ?? failed), /EPIPE|closed|destroyed/i);
});

test('a child writing through stdoutSink() to a slow reader: every line arrives, in order, memory bounded, flushed before exit', async () => {
  const n = 20_000;
  const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'sink_writer.ts');
  const [cmd, ...args] = moduleCommand(fixture);
  const child = spawn(cmd, [...args, String(n)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  // read nothing at first, so the pipe fills and the child has to wait
  child.stdout!.pause();
  await new Promise((r) => setTimeout(r, 300));
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stdout!.resume();
  const code = await new Promise<number | null>((r) => child.once('close', r));
  assert.equal(code, 0, err);
  const lines = out.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, n, err);
  lines.forEach((l, i) => assert.equal((JSON.parse(l) as { i: number }).i, i));
  const { most, highWaterMark } = JSON.parse(err.trim().split('\n').pop()!) as { most: number; highWaterMark: number };
  assert.ok(most <= highWaterMark + 300, `the sink held ${most} bytes (mark ${highWaterMark})`);
});
