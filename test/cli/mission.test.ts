// `cxl mission` and the fleet cap, as a person at a terminal uses them next to running units:
// fire a named agent and wait, read the records, stop a unit that is waiting (its process sees it
// and ends), a second unit refused while the fleet is full, and a unit's ceiling (the envelope of
// the session whose model fired it) deciding its calls with its own envelope.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { MissionStore } from '../../src/agent/missions/mission_store.ts';
import type { Reply } from '../fixtures/fake_models.ts';
import { background, messages, MODEL, pendingAsks, waitFor, workspace, type Workspace } from '../helpers/unattended.ts';

function config(ws: Workspace, text: string): void {
  mkdirSync(path.join(ws.dir, '.contenox'), { recursive: true });
  writeFileSync(path.join(ws.dir, '.contenox', 'agents.toml'), text);
}

test('mission fire [agent] "<intent>" --wait runs that agent\'s section; --wait is required; an unknown agent or an unquoted intent is refused before any record exists', async () => {
  const ws = await workspace([
    { toolCalls: [{ name: 'mission_report', arguments: { kind: 'result', summary: 'Reviewed.', detail: 'Looks fine.', refs: ['notes.txt'], handover: { outcome: 'ok', caveats: 'none' } } }, { name: 'mission_finish', arguments: { status: 'landed' } }] },
    { text: 'done' },
  ]);
  try {
    // the agent's own section: its envelope and a system prompt of its own chain are not needed; its default envelope is
    config(ws, '[agents.reviewer]\ndefault_mission_envelope = "read_only"\n');
    const nowait = await ws.cxl(['mission', 'fire', 'reviewer', 'review it', ...MODEL]);
    assert.equal(nowait.code, 2);
    assert.match(nowait.stderr, /--wait is required: the unit runs in this process/);
    const unknown = await ws.cxl(['mission', 'fire', 'nope', 'review it', '--wait', ...MODEL]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no \[agents\.nope\] section in any config file; defined agents: reviewer/);
    const words = await ws.cxl(['mission', 'fire', 'review', 'the', 'code', '--wait', ...MODEL]);
    assert.equal(words.code, 2);
    assert.match(words.stderr, /quote the intent/);
    assert.equal((await ws.cxl(['mission', 'list'])).stdout, 'No missions recorded. Start one with `cxl run "<task>"`, `cxl mission fire [agent] "<intent>" --wait`, or /mission in a session.\n');
    assert.equal(ws.srv.requests.length, 0);

    const r = await ws.cxl(['mission', 'fire', 'reviewer', 'review it', '--wait', ...MODEL, '--output-format', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.agent, 'reviewer');
    assert.equal(out.envelope, 'read_only', 'the agent section\'s default_mission_envelope');
    const list = await ws.cxl(['mission', 'list']);
    assert.match(list.stdout, new RegExp(`^ID +AGENT +ENVELOPE +STATUS +AGE +INTENT\\n${out.mission_id}  reviewer  read_only  landed +\\d+s +review it\\n$`));
    const reports = await ws.cxl(['mission', 'reports', out.mission_id]);
    assert.match(reports.stdout, /Z \[result\] Reviewed\.\n    refs: notes\.txt\n    Looks fine\.\n    Handover:\n      outcome: ok\n      caveats: none\n/);
    const none = await ws.cxl(['mission', 'show', 'm-0000000000zz']);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no mission "m-0000000000zz" exists/);
    const bad = await ws.cxl(['mission', 'show', '../x']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /is not a mission id/);
  } finally {
    await ws.close();
  }
});

test('mission stop ends a unit that waits on an ask: its process sees it and exits, the record says why, the ask is closed; stopping again changes nothing, stopping a landed one is refused', { timeout: 90_000 }, async () => {
  const ws = await workspace([{ toolCalls: [{ name: 'write_file', arguments: { path: 'new.txt', content: 'x\n' } }] }, { text: 'never' }]);
  try {
    const run = background(ws, ['run', ...MODEL, '--envelope', 'default', '--output-format', 'json', 'write it']);
    const [ask] = await waitFor(async () => ((await pendingAsks(ws)).length ? pendingAsks(ws) : undefined), 'the ask');
    const id = String(ask.missionId);
    const stop = await ws.cxl(['mission', 'stop', id, '--reason', 'not today']);
    assert.equal(stop.code, 0, stop.stderr);
    assert.match(stop.stdout, new RegExp(`Mission ${id} stopped \\(abandoned\\): not today\\.`));
    const end = await run.exited;
    assert.equal(end.code, 1, run.stderr());
    const out = JSON.parse(run.stdout());
    assert.equal(out.status, 'abandoned');
    assert.equal(out.reason, 'not today');
    assert.deepEqual(await pendingAsks(ws), []);
    const again = await ws.cxl(['mission', 'stop', id]);
    assert.equal(again.code, 0);
    assert.match(again.stdout, /was already abandoned; nothing changed/);
    const show = JSON.parse((await ws.cxl(['mission', 'show', id, '--json'])).stdout);
    assert.deepEqual(show.reports.map((r: { kind: string; summary: string; by: string }) => [r.kind, r.summary, r.by]), [['blocker', 'stopped: not today', 'operator']]);
  } finally {
    await ws.close();
  }
  const done = await workspace([{ toolCalls: [{ name: 'mission_finish', arguments: { status: 'landed' } }] }, { text: 'ok' }]);
  try {
    const r = JSON.parse((await done.cxl(['run', ...MODEL, '--envelope', 'default', '--output-format', 'json', 'x'])).stdout);
    const late = await done.cxl(['mission', 'stop', r.mission_id]);
    assert.equal(late.code, 1);
    assert.match(late.stderr, /already finished as landed; it cannot be re-finished as abandoned/);
  } finally {
    await done.close();
  }
});

test('fleet_max_parallel: a second unit while one waits is refused with the cap and what to do; a unit whose process died does not hold the place', { timeout: 90_000 }, async () => {
  const ws = await workspace((body) => (messages(body).at(-1)!.content.includes('first') ? { toolCalls: [{ name: 'write_file', arguments: { path: 'new.txt', content: 'x\n' } }] } : { toolCalls: [{ name: 'mission_finish', arguments: { status: 'landed' } }] }));
  try {
    config(ws, 'fleet_max_parallel = 1\n');
    const first = background(ws, ['run', ...MODEL, '--envelope', 'default', 'the first']);
    await waitFor(async () => ((await pendingAsks(ws)).length ? true : undefined), 'the first unit to wait');
    const second = await ws.cxl(['run', ...MODEL, '--envelope', 'default', 'the second']);
    assert.equal(second.code, 1, second.stderr);
    assert.match(second.stderr, /fleet admission refused: 1 units are already open, at the fleet cap \(fleet_max_parallel = 1\)\. Wait for one to finish \(`cxl mission list`\), stop one \(`cxl mission stop ID`\), or raise fleet_max_parallel/);
    first.child.kill('SIGKILL');
    await first.exited;
    const third = await ws.cxl(['run', ...MODEL, '--envelope', 'default', 'the third']);
    assert.equal(third.code, 0, third.stderr);
  } finally {
    await ws.close();
  }
});

test('a unit whose record names a ceiling (the session whose model fired it) is decided by both envelopes: auto_edit under the ceiling default asks before its write, which a denial keeps from happening; the same record without a ceiling (a person named auto_edit) writes unasked (control)', { timeout: 120_000 }, async () => {
  const unit = (body: Record<string, unknown>): Reply => {
    const done = messages(body).filter((m) => m.role === 'tool').length;
    return [
      { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'rewritten by the unit\n' } }] },
      { toolCalls: [{ name: 'mission_finish', arguments: { status: 'landed' } }] },
    ][done] ?? { text: 'done' };
  };
  for (const ceiling of ['default', undefined]) {
    const ws = await workspace(unit);
    try {
      const m = await new MissionStore(ws.data).create({ intent: 'rewrite notes.txt', agent: 'run', envelope: 'auto_edit', ...(ceiling ? { ceiling } : {}), cwd: ws.dir });
      const run = background(ws, ['mission', 'fire', '--mission', m.id, ...MODEL, '--output-format', 'json']);
      if (ceiling) {
        const [ask] = await waitFor(async () => ((await pendingAsks(ws)).length ? pendingAsks(ws) : undefined), 'the write\'s ask');
        assert.equal(`${ask.toolset}.${ask.tool}`, 'local_fs.write_file');
        assert.match(String(ask.summary), /notes\.txt/);
        assert.match(String(ask.sentence), /files\.write is `approve` of envelope default; the ceiling of this unit/);
        assert.equal(readFileSync(path.join(ws.dir, 'notes.txt'), 'utf8'), 'one\ntwo\n', 'nothing written while it waits');
        const no = await ws.cxl(['approvals', 'respond', String(ask.id), '--deny']);
        assert.equal(no.code, 0, no.stderr);
      }
      const end = await run.exited;
      const out = JSON.parse(run.stdout());
      assert.equal(end.code, 0, run.stderr());
      if (ceiling) {
        assert.equal(readFileSync(path.join(ws.dir, 'notes.txt'), 'utf8'), 'one\ntwo\n', 'the denied write never happened');
        assert.deepEqual(out.refused.map((r: { tool: string; code: string }) => [r.tool, r.code]), [['local_fs.write_file', 'rejected']]);
        const show = await ws.cxl(['mission', 'show', m.id]);
        assert.match(show.stdout, /Envelope: {2}auto_edit \(ceiling: default, the envelope of the session whose model fired it\)/);
      } else {
        assert.equal(readFileSync(path.join(ws.dir, 'notes.txt'), 'utf8'), 'rewritten by the unit\n', 'auto_edit alone writes unasked');
        assert.deepEqual(out.refused, []);
      }
    } finally {
      await ws.close();
    }
  }
});
