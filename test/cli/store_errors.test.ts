// Damaged records, a full disk and a data dir that cannot be written, met through the built cxl as
// a person meets them: each answer names the file and what to do, none is a wrong answer (a
// truncated record is not "no such mission", a garbage verdict is not someone else's approval)
// and none is a stack trace. Beside each, a control that works.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { AskStore } from '../../src/agent/missions/ask_store.ts';
import { MissionStore } from '../../src/agent/missions/mission_store.ts';
import { lockFileOf } from '../../src/core/platform/write_lock.ts';
import { runCxl } from '../helpers/cxl.ts';
import { mountTmpfs } from '../helpers/tmpfs.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function base(): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-store-errors-')));
  dirs.push(d);
  return d;
}

const cxl = (xdg: string, args: string[]) => runCxl(args, { env: { XDG_DATA_HOME: xdg }, timeoutMs: 60_000 });
const noStack = (s: string) => assert.doesNotMatch(s, /\n\s+at /, `a stack trace: ${s}`);
const newMission = (m: MissionStore, intent: string) => m.create({ intent, agent: 'run', envelope: 'default', cwd: '/tmp', owner: { host: 'elsewhere', pid: 1 } }, 0);
const newAsk = (a: AskStore) => a.create({ kind: 'permission', toolset: 'local_fs', tool: 'write_file', title: 'w', summary: 'write it', timeoutMs: 3_600_000 });

test('a truncated mission record is named as damaged with its path, not "no such mission"; the list shows the rest and names it', { timeout: 120_000 }, async () => {
  const xdg = base();
  const missions = new MissionStore(path.join(xdg, 'cxl'));
  const good = await newMission(missions, 'the good one');
  const bad = await newMission(missions, 'the torn one');
  const file = path.join(missions.dir, bad.id, 'mission.json');
  const text = fs.readFileSync(file, 'utf8');
  fs.writeFileSync(file, text.slice(0, Math.floor(text.length / 2)));
  const show = await cxl(xdg, ['mission', 'show', bad.id]);
  assert.equal(show.code, 1);
  assert.ok(show.stderr.includes(file), show.stderr);
  assert.match(show.stderr, /is damaged/);
  assert.doesNotMatch(show.stderr, /does not exist|no mission/);
  noStack(show.stderr);
  const control = await cxl(xdg, ['mission', 'show', good.id]);
  assert.equal(control.code, 0, control.stderr);
  assert.match(control.stdout, /the good one/);
  const list = await cxl(xdg, ['mission', 'list']);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, new RegExp(good.id));
  assert.ok(list.stderr.includes(file), `the list names the damaged record: ${list.stderr}`);
  // stop refuses to write over it
  const stop = await cxl(xdg, ['mission', 'stop', bad.id]);
  assert.notEqual(stop.code, 0);
  noStack(stop.stderr);
  assert.equal(fs.readFileSync(file, 'utf8'), text.slice(0, Math.floor(text.length / 2)), 'the damaged record is left as it was');
});

test('a wrong-typed line of a mission\'s reports is skipped and named; the other reports show', { timeout: 60_000 }, async () => {
  const xdg = base();
  const missions = new MissionStore(path.join(xdg, 'cxl'));
  const m = await newMission(missions, 'reports');
  await missions.addReport(m.id, { kind: 'progress', summary: 'first', by: 'unit' });
  const file = path.join(missions.dir, m.id, 'reports.jsonl');
  fs.appendFileSync(file, '{"id":"r-1","kind":"progress","summary":{"not":"a string"},"createdAt":"2026-01-01T00:00:00Z"}\n');
  await missions.addReport(m.id, { kind: 'finding', summary: 'second', by: 'unit' });
  const r = await cxl(xdg, ['mission', 'reports', m.id]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /first[\s\S]*second/);
  assert.ok(r.stderr.includes(`${file}:2`), r.stderr);
  noStack(r.stderr);
});

test('a garbage verdict file is not someone else\'s approval: respond says it is damaged and stands as a deny', { timeout: 60_000 }, async () => {
  const xdg = base();
  const asks = new AskStore(path.join(xdg, 'cxl'));
  const ask = newAsk(asks);
  const verdict = path.join(asks.dir, `${ask.id}.verdict`);
  fs.writeFileSync(verdict, '\u0000\u0000garbage');
  const r = await cxl(xdg, ['approvals', 'respond', ask.id, '--approve']);
  assert.equal(r.code, 1);
  assert.doesNotMatch(r.stderr, /already approved|by a person/);
  assert.ok(r.stderr.includes(verdict), r.stderr);
  assert.match(r.stderr, /stands as a deny/);
  noStack(r.stderr);
  // the unit waiting on it reads a deny, not nothing
  assert.equal(asks.verdict(ask.id)?.verdict, 'deny');
  // control: another ask is answered
  const other = newAsk(asks);
  const ok = await cxl(xdg, ['approvals', 'respond', other.id, '--approve']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(asks.verdict(other.id)?.verdict, 'approve');
});

test('a full disk: respond and stop fail at once in words, with no stack trace and no lock left; the records read as before', { timeout: 120_000 }, async () => {
  const xdg = base();
  const mnt = mountTmpfs(path.join(xdg, 'mnt'), '2m');
  assert.ok(!('error' in mnt), `this test mounts a tmpfs (as root): ${'error' in mnt ? mnt.error : ''}`);
  try {
    const data = path.join(mnt.dir, 'cxl');
    const missions = new MissionStore(data);
    const asks = new AskStore(data);
    const m = await newMission(missions, 'on a full disk');
    const ask = newAsk(asks);
    const before = fs.readFileSync(path.join(missions.dir, m.id, 'mission.json'), 'utf8');
    const fd = fs.openSync(path.join(mnt.dir, 'fill'), 'w');
    try {
      for (;;) fs.writeSync(fd, Buffer.alloc(64 * 1024));
    } catch {
      /* full */
    } finally {
      fs.closeSync(fd);
    }
    for (const args of [
      ['approvals', 'respond', ask.id, '--approve'],
      ['mission', 'stop', m.id],
      ['mission', 'stop', m.id],
    ]) {
      const t = performance.now();
      const r = await cxl(mnt.dir, args);
      const ms = performance.now() - t;
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /no space left on the device/);
      noStack(r.stderr);
      assert.ok(ms < 8000, `${args.join(' ')} took ${Math.round(ms)} ms`);
      assert.equal(fs.existsSync(lockFileOf(path.join(missions.dir, m.id, 'mission.json'))), false, 'no lock left behind');
    }
    assert.equal(fs.readFileSync(path.join(missions.dir, m.id, 'mission.json'), 'utf8'), before);
    assert.equal(asks.verdict(ask.id), undefined, 'no half a verdict');
  } finally {
    mnt.unmount();
  }
});

test('cxl run with a data dir it cannot write says so in words, without a stack trace', { timeout: 60_000 }, async () => {
  const xdg = base();
  const file = path.join(xdg, 'a-file');
  fs.writeFileSync(file, 'not a directory');
  const r = await runCxl(['run', 'hello', '--provider', 'openai', '--model', 'm'], { env: { XDG_DATA_HOME: file, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }, timeoutMs: 60_000 });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /ENOTDIR/);
  assert.match(r.stderr, /point XDG_DATA_HOME at another directory/);
  noStack(r.stderr);
});
