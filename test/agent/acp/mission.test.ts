// /mission and the supervisor tools over ACP, against the real `cxl acp` and the real unit
// processes it starts (`cxl mission fire --mission ID`), one scripted model on 127.0.0.1 serving
// both: a unit's requests carry the unattended preamble, the session's do not. The unit's plan and
// reports come back as rows, its ask as a permission request of the session that fired it, and
// the envelope's missions.fire and missions.answer decide whether the session may fire or answer.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { META_MISSION, OPTION_ALLOW_ONCE, type MissionMeta } from '../../../src/core/protocol_names.ts';
import { startFakeOpenAI, type FakeServer, type Reply } from '../../fixtures/fake_models.ts';
import { runCxl } from '../../helpers/cxl.ts';
import { waitFor } from '../../helpers/unattended.ts';
import { Harness } from './harness.ts';

const cleanups: Array<() => unknown> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

const CONFIG = `
[envelopes.boss]
extends = "default"
[envelopes.boss.missions]
fire = "allow"
answer = "allow"

[envelopes.mute]
extends = "default"
[envelopes.mute.missions]
fire = "allow"
answer = "deny"
`;

type Msg = { role: string; content: string };
const msgs = (body: Record<string, unknown>) => (body.messages ?? []) as Msg[];
const isUnit = (body: Record<string, unknown>) => msgs(body).some((m) => m.role === 'user' && m.content.startsWith('You are running as an UNATTENDED mission unit'));

interface World {
  dir: string;
  srv: FakeServer;
  env: Record<string, string>;
  h: Harness;
}

async function world(unit: (body: Record<string, unknown>, n: number) => Reply, session: (body: Record<string, unknown>, n: number) => Reply = () => ({ text: 'ok' }), mode = 'boss', config = CONFIG): Promise<World> {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'cxl-acp-mission-')));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, '.contenox'));
  writeFileSync(path.join(dir, '.contenox', 'agents.toml'), config);
  writeFileSync(path.join(dir, 'notes.txt'), 'one\n');
  let u = 0;
  let s = 0;
  const srv = await startFakeOpenAI((body) => (isUnit(body) ? unit(body, u++) : session(body, s++)));
  cleanups.push(() => srv.close());
  const env = { HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k' };
  // a window the tool definitions do not fill: no compaction between the scripted turns
  const h = new Harness({ args: ['--provider', 'openai', '--model', 'm', '--envelope', mode, '--context-window', '1000000'], env, permission: () => OPTION_ALLOW_ONCE });
  cleanups.push(() => h.stop());
  await h.start();
  return { dir, srv, env, h };
}

const rows = (h: Harness): MissionMeta[] => h.updates.flatMap((u) => ((u.update as { _meta?: Record<string, unknown> })._meta?.[META_MISSION] ? [(u.update as { _meta: Record<string, MissionMeta> })._meta[META_MISSION]] : []));

test('/mission fires a unit in a process of its own: its plan and reports arrive as rows, its ask as this session\'s permission request, and the unit lands', { timeout: 90_000 }, async () => {
  const unit = (_b: Record<string, unknown>, n: number): Reply =>
    [
      { toolCalls: [{ name: 'mission_plan', arguments: { entries: [{ content: 'append a line', status: 'in_progress' }] } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { toolCalls: [{ name: 'edit_file', arguments: { path: 'notes.txt', old_string: 'one\n', new_string: 'one\ntwo\n' } }] },
      { toolCalls: [{ name: 'mission_report', arguments: { kind: 'result', summary: 'Appended two.', refs: ['notes.txt'] } }, { name: 'mission_finish', arguments: { status: 'landed' } }] },
    ][n] ?? { text: 'done' };
  const w = await world(unit);
  const ns = await w.h.newSession(w.dir);
  const r = await w.h.prompt(ns.sessionId, '/mission --envelope default append a line two to notes.txt');
  assert.equal(r.stopReason, 'end_turn');
  const fired = await waitFor(() => rows(w.h).find((m) => m.event === 'fired'), 'the fired row');
  assert.equal(fired.intent, 'append a line two to notes.txt');
  assert.ok(fired.event === 'fired' && fired.envelope === 'default' && fired.agent === 'run');
  const plan = await waitFor(() => rows(w.h).find((m) => m.event === 'plan'), 'the plan row');
  assert.deepEqual(plan.event === 'plan' && plan.entries.map((e) => [e.status, e.content]), [['in_progress', 'append a line']]);
  // the unit's edit is asked of this session, with its diff; the harness allows it
  const ask = await waitFor(() => w.h.permissions.find((p) => p.toolCall.toolCallId.startsWith('mission-a-')), 'the unit\'s ask');
  assert.match(ask.toolCall.title ?? '', new RegExp(`^${fired.missionId}: local_fs\\.edit_file: notes\\.txt`));
  assert.deepEqual(ask.options.map((o) => o.optionId), ['allow_once', 'reject']);
  assert.equal((ask.toolCall.content ?? []).find((c) => c.type === 'diff')?.type, 'diff');
  const done = await waitFor(() => rows(w.h).find((m) => m.event === 'finished'), 'the verdict row', 60_000);
  assert.ok(done.event === 'finished' && done.status === 'landed');
  assert.equal(readFileSync(path.join(w.dir, 'notes.txt'), 'utf8'), 'one\ntwo\n');
  assert.ok(rows(w.h).some((m) => m.event === 'report' && m.kind === 'result' && m.summary === 'Appended two.'));
  // the record says the same, and that this session fired it
  const show = JSON.parse((await runCxl(['mission', 'show', fired.missionId, '--json'], { cwd: w.dir, env: w.env })).stdout);
  assert.equal(show.mission.parentSessionId, ns.sessionId);
  assert.notEqual(show.mission.owner.pid, w.h.child.pid, 'the unit ran in a process of its own');
});

test('missions.fire is enforced: read_only refuses /mission (no record); under default the model\'s mission_start asks first and a rejection fires nothing, while /mission typed by the person is not asked again', { timeout: 90_000 }, async () => {
  const w = await world(() => ({ text: 'never' }), undefined, 'read_only');
  const ns = await w.h.newSession(w.dir);
  await w.h.prompt(ns.sessionId, '/mission --envelope default do a thing');
  const denied = w.h.toolUpdates().find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed');
  assert.match(JSON.stringify(denied), /envelope_denied.*missions\.fire is `deny`/);
  assert.deepEqual(JSON.parse((await runCxl(['mission', 'list', '--json'], { cwd: w.dir, env: w.env })).stdout).missions, [], 'a denied fire records nothing');

  // the model fires one: asked under `default` (missions.fire unset), rejected, nothing fired
  const w2 = await world(() => ({ text: 'never' }), (_b, n) => (n === 0 ? { toolCalls: [{ name: 'mission_start', arguments: { intent: 'do a thing', envelope: 'default', wait: false } }] } : { text: 'ok' }), 'default');
  const v = new Harness({ args: ['--provider', 'openai', '--model', 'm', '--envelope', 'default'], env: w2.env, permission: () => 'reject' });
  cleanups.push(() => v.stop());
  await v.start();
  const s2 = await v.newSession(w2.dir);
  await v.prompt(s2.sessionId, 'fire one for me');
  assert.equal(v.permissions.length, 1);
  assert.match(v.permissions[0].toolCall.title ?? '', /^mission\.mission_start: do a thing/);
  assert.match(JSON.stringify(v.permissions[0].toolCall._meta), /missions\.fire|default_action/);
  const list = JSON.parse((await runCxl(['mission', 'list', '--json'], { cwd: w2.dir, env: w2.env })).stdout);
  assert.deepEqual(list.missions, [], 'a rejected fire records nothing');
  assert.equal(w2.srv.requests.filter(isUnit).length, 0, 'no unit ever asked the model');

  // the person types it: that is the approval (as a `!` line's), so nobody is asked and it fires
  const s3 = await v.newSession(w2.dir);
  await v.prompt(s3.sessionId, '/mission --envelope default do another thing');
  assert.equal(v.permissions.length, 1, 'no second question');
  const fired = JSON.parse((await runCxl(['mission', 'list', '--json'], { cwd: w2.dir, env: w2.env })).stdout).missions as Array<{ intent: string }>;
  assert.deepEqual(fired.map((m) => m.intent), ['do another thing']);
});

test('missions.answer is enforced: under deny the model\'s mission_answer is refused and the question keeps waiting; under allow the unit gets the answer and lands', { timeout: 90_000 }, async () => {
  const unit = (b: Record<string, unknown>, n: number): Reply => {
    if (n === 0) return { toolCalls: [{ name: 'mission_ask_attention', arguments: { summary: 'Which colour?' } }] };
    const answer = msgs(b).filter((m) => m.role === 'tool').at(-1)?.content ?? '';
    if (n === 1) return { toolCalls: [{ name: 'mission_report', arguments: { kind: 'finding', summary: `told: ${answer}` } }, { name: 'mission_finish', arguments: { status: 'landed' } }] };
    return { text: 'done' };
  };
  // the session's model: start a unit, then answer whatever mission_list says it waits on
  const session = (b: Record<string, unknown>): Reply => {
    const m = msgs(b);
    const last = m.at(-1)!;
    if (last.role === 'user' && /^start/.test(last.content)) return { toolCalls: [{ name: 'mission_start', arguments: { intent: 'ask about the colour', envelope: 'default', wait: false } }] };
    if (last.role === 'user' && /^answer/.test(last.content)) return { toolCalls: [{ name: 'mission_list', arguments: {} }] };
    if (last.role === 'tool' && last.content.includes('waitingOnYou')) {
      const askId = /"askId":"(a-\w+)"/.exec(last.content)![1];
      return { toolCalls: [{ name: 'mission_answer', arguments: { askId, answer: 'blue' } }] };
    }
    return { text: 'ok' };
  };
  const w = await world(unit, session, 'mute');
  const ns = await w.h.newSession(w.dir);
  await w.h.prompt(ns.sessionId, 'start a unit');
  const q = await waitFor(() => rows(w.h).find((m) => m.event === 'question'), 'the question row');
  assert.ok(q.event === 'question' && q.summary === 'Which colour?');
  await w.h.prompt(ns.sessionId, 'answer it');
  const refused = w.h.toolUpdates().filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed');
  assert.match(JSON.stringify(refused.at(-1)), /envelope_denied.*missions\.answer is `deny`/);
  const waiting = JSON.parse((await runCxl(['approvals', 'list', '--json'], { cwd: w.dir, env: w.env })).stdout).asks;
  assert.deepEqual(waiting.map((a: { kind: string; summary: string }) => [a.kind, a.summary]), [['question', 'Which colour?']]);
  await w.h.agent.request(acp.methods.agent.session.setMode, { sessionId: ns.sessionId, modeId: 'boss' });
  await w.h.prompt(ns.sessionId, 'answer it');
  const done = await waitFor(() => rows(w.h).find((m) => m.event === 'finished'), 'the verdict row', 60_000);
  assert.ok(done.event === 'finished' && done.status === 'landed');
  assert.ok(rows(w.h).some((m) => m.event === 'report' && m.summary === 'told: blue'), JSON.stringify(rows(w.h)));
});

test('the ceiling: under boss (missions.fire = "allow") the model\'s mission_start naming auto_edit is refused with the calls it would widen, and nothing is recorded; naming read_only or boss fires, the record keeping boss as the ceiling (control); a person-only argument from the model is refused by the schema', { timeout: 90_000 }, async () => {
  const fires: Record<string, Record<string, unknown>> = {
    'fire wide': { intent: 'rewrite notes.txt', envelope: 'auto_edit', wait: false },
    'fire as a person': { intent: 'rewrite notes.txt', envelope: 'auto_edit', wait: false, direct: true },
    'fire narrow': { intent: 'read notes.txt', envelope: 'read_only', wait: false },
    'fire equal': { intent: 'look at notes.txt', envelope: 'boss', wait: false },
  };
  const session = (b: Record<string, unknown>): Reply => {
    const last = msgs(b).at(-1)!;
    return last.role === 'user' && fires[last.content] ? { toolCalls: [{ name: 'mission_start', arguments: fires[last.content] }] } : { text: 'ok' };
  };
  const w = await world(() => ({ toolCalls: [{ name: 'mission_finish', arguments: { status: 'landed' } }] }), session);
  const ns = await w.h.newSession(w.dir);
  const missions = async () => JSON.parse((await runCxl(['mission', 'list', '--json'], { cwd: w.dir, env: w.env })).stdout).missions as Array<{ id: string; envelope: string }>;
  const failed = () => w.h.toolUpdates().filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed');

  await w.h.prompt(ns.sessionId, 'fire wide');
  const refusal = JSON.stringify(failed().at(-1));
  assert.match(refusal, /envelope_denied/);
  assert.match(refusal, /envelope `auto_edit` is wider than this session's envelope `boss`/);
  assert.match(refusal, /local_fs\.write_file on file\.txt: allow, where the session's envelope says ask/);
  assert.match(refusal, /ask the user to fire it themselves \(\/mission --envelope auto_edit/);
  // what the model read back says the same
  const told = msgs(w.srv.requests.at(-1)!).filter((m) => m.role === 'tool').at(-1)!.content;
  assert.match(told, /"code":"envelope_denied".*wider than this session's envelope `boss`/);
  await w.h.prompt(ns.sessionId, 'fire as a person');
  assert.match(JSON.stringify(failed().at(-1)), /bad_args/);
  assert.deepEqual(await missions(), [], 'neither fired a unit');
  assert.equal(readFileSync(path.join(w.dir, 'notes.txt'), 'utf8'), 'one\n');

  for (const p of ['fire narrow', 'fire equal']) await w.h.prompt(ns.sessionId, p);
  const fired = await missions();
  assert.deepEqual(fired.map((m) => m.envelope).sort(), ['boss', 'read_only']);
  for (const m of fired) {
    const show = JSON.parse((await runCxl(['mission', 'show', m.id, '--json'], { cwd: w.dir, env: w.env })).stdout);
    assert.equal(show.mission.ceiling, 'boss', `${m.envelope}: the session's envelope is its ceiling`);
  }
});

test('the person\'s own /mission --envelope may name a wider envelope than the session\'s: it fires with no ceiling; /mission with no envelope takes the session\'s as its ceiling', { timeout: 90_000 }, async () => {
  const w = await world(() => ({ toolCalls: [{ name: 'mission_finish', arguments: { status: 'landed' } }] }));
  const ns = await w.h.newSession(w.dir);
  await w.h.prompt(ns.sessionId, '/mission --envelope auto_edit tidy notes.txt');
  await w.h.prompt(ns.sessionId, '/mission look at notes.txt');
  const fired = await waitFor(() => {
    const f = rows(w.h).filter((m) => m.event === 'fired');
    return f.length === 2 ? f : undefined;
  }, 'both fired rows');
  const byIntent = Object.fromEntries(fired.map((f) => [f.event === 'fired' ? f.intent : '', f]));
  for (const [intent, envelope, ceiling] of [['tidy notes.txt', 'auto_edit', undefined], ['look at notes.txt', 'boss', 'boss']] as const) {
    const f = byIntent[intent];
    assert.ok(f?.event === 'fired' && f.envelope === envelope, intent);
    const show = JSON.parse((await runCxl(['mission', 'show', f.missionId, '--json'], { cwd: w.dir, env: w.env })).stdout);
    assert.equal(show.mission.ceiling, ceiling, `${intent}: ceiling`);
  }
});

test('a default_mission_envelope wider than the session\'s is capped too: the model\'s mission_start and a /mission naming no envelope are refused, a /mission naming it fires (the person grants it)', { timeout: 90_000 }, async () => {
  const session = (b: Record<string, unknown>): Reply => {
    const last = msgs(b).at(-1)!;
    return last.role === 'user' && last.content === 'fire one' ? { toolCalls: [{ name: 'mission_start', arguments: { intent: 'tidy notes.txt', wait: false } }] } : { text: 'ok' };
  };
  const w = await world(() => ({ toolCalls: [{ name: 'mission_finish', arguments: { status: 'landed' } }] }), session, 'boss', `default_mission_envelope = "auto_edit"\n${CONFIG}`);
  const ns = await w.h.newSession(w.dir);
  const failed = () => JSON.stringify(w.h.toolUpdates().filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed').at(-1));
  await w.h.prompt(ns.sessionId, 'fire one');
  assert.match(failed(), /envelope `auto_edit` is wider than this session's envelope `boss`.*ask the user to fire it themselves/);
  await w.h.prompt(ns.sessionId, '/mission tidy notes.txt');
  assert.match(failed(), /envelope `auto_edit` is wider than this session's envelope `boss`.*name it yourself \(\/mission --envelope auto_edit …\) to grant it/);
  assert.deepEqual(JSON.parse((await runCxl(['mission', 'list', '--json'], { cwd: w.dir, env: w.env })).stdout).missions, []);
  await w.h.prompt(ns.sessionId, '/mission --envelope auto_edit tidy notes.txt');
  const fired = await waitFor(() => rows(w.h).find((m) => m.event === 'fired'), 'the fired row');
  assert.ok(fired.event === 'fired' && fired.envelope === 'auto_edit');
});
