// The missions axes of an envelope (docs/missions.md, "Envelopes"), decided like any other:
// a session's own mission records are allowed in every envelope unless a tools pattern says no,
// missions.fire and missions.answer are grants that layer through `extends`, read_only denies
// both; agents.toml writes them under [envelopes.<name>.missions], and an ask's timeout may be
// "never" (with on_timeout = "deny" the only verdict time may give). The gate lets an approver
// that keeps its own time answer past the ask's timeout, and sets no timer for "never".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeLayers, parseConfigText, ConfigError, formatIssue } from '../../../src/config/load.ts';
import { buildEnvelope, decide, type CallFacts, type EnvelopeSpec } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { Gate, type ApprovalAnswer, type Approver } from '../../../src/core/gate/gate.ts';
import type { Toolset } from '../../../src/core/contract/toolset.ts';

const call = (tool: string, axis: CallFacts['axis']): CallFacts => ({ toolset: 'mission', tool, axis });
const env = (name: string, extra: Record<string, EnvelopeSpec> = {}) => buildEnvelope(name, { ...SHIPPED_ENVELOPES, ...extra }, FLOOR_RULES);

test('missions.own is allowed even under strict; a tools pattern can still deny it', () => {
  const d = decide(env('strict'), call('mission_report', 'missions.own'));
  assert.equal(d.action, 'allow');
  assert.equal(d.rule, 'missions.own');
  assert.match(d.sentence, /reaches only this session's own mission records/);
  const closed = decide(env('closed', { closed: { extends: 'strict', tools: { mission: { grant: 'deny' } } } }), call('mission_report', 'missions.own'));
  assert.equal(closed.action, 'deny');
  assert.equal(closed.rule, 'tools');
});

test('missions.fire and missions.answer: read_only denies both, an unset axis falls to default_action, a child inherits its parent\'s grant and may replace it', () => {
  for (const [tool, axis] of [['mission_start', 'missions.fire'], ['mission_answer', 'missions.answer']] as const) {
    const ro = decide(env('read_only'), call(tool, axis));
    assert.equal(ro.action, 'deny', `${axis} under read_only`);
    assert.equal(ro.rule, axis);
    assert.equal(decide(env('default'), call(tool, axis)).rule, 'default_action', `${axis} under default: unset`);
    assert.equal(decide(env('strict'), call(tool, axis)).action, 'deny');
  }
  const extra: Record<string, EnvelopeSpec> = {
    boss: { extends: 'default', missions: { fire: { grant: 'allow' }, answer: { grant: 'approve', timeoutMs: 60_000 } } },
    heir: { extends: 'boss', missions: { answer: { grant: 'deny' } } },
  };
  const boss = decide(env('boss', extra), call('mission_start', 'missions.fire'));
  assert.deepEqual([boss.action, boss.rule], ['allow', 'missions.fire']);
  const ask = decide(env('boss', extra), call('mission_answer', 'missions.answer'));
  assert.deepEqual([ask.action, ask.timeoutMs], ['approve', 60_000]);
  const heir = env('heir', extra);
  assert.deepEqual([decide(heir, call('mission_start', 'missions.fire')).action, decide(heir, call('mission_start', 'missions.fire')).from], ['allow', 'boss']);
  assert.equal(decide(heir, call('mission_answer', 'missions.answer')).action, 'deny');
});

test('agents.toml: [envelopes.<name>.missions] fire and answer; timeout = "never"; on_timeout other than deny, an unknown key and a bad fleet cap are errors', () => {
  const data = parseConfigText(
    'agents.toml',
    'default_mission_envelope = "boss"\nfleet_max_parallel = 3\n[envelopes.boss]\nextends = "default"\n[envelopes.boss.missions]\nfire = "allow"\nanswer = { grant = "approve", timeout = "never", on_timeout = "deny" }\n[envelopes.boss.files.write]\ngrant = "approve"\ntimeout = "never"\n',
  );
  const cfg = mergeLayers([['agents.toml', data]]);
  assert.equal(cfg.data.default_mission_envelope, 'boss');
  assert.equal(cfg.data.fleet_max_parallel, 3);
  const boss = cfg.envelope('boss');
  assert.equal(decide(boss, call('mission_start', 'missions.fire')).action, 'allow');
  assert.equal(decide(boss, call('mission_answer', 'missions.answer')).timeoutMs, Number.POSITIVE_INFINITY);
  assert.equal(decide(boss, { toolset: 'local_fs', tool: 'write_file', paths: ['a.txt'] }).timeoutMs, Number.POSITIVE_INFINITY);
  const bad = (text: string) => {
    try {
      parseConfigText('agents.toml', text);
    } catch (err) {
      return (err as ConfigError).issues.map(formatIssue).join('\n');
    }
    return '';
  };
  assert.match(bad('[envelopes.x.missions]\nfire = "allow"\nstart = "allow"\n'), /unknown key `start` in \[envelopes\.x\.missions\]; valid keys: fire, answer/);
  assert.match(bad('[envelopes.x.shell]\ngrant = "approve"\non_timeout = "allow"\n'), /on_timeout.*"allow": an ask nobody answers in time is denied, and "deny" is the only value/);
  assert.match(bad('fleet_max_parallel = -1\n'), /`fleet_max_parallel` = -1 must be a whole number of units/);
  assert.match(bad('default_mission_envelope = "Bad Name"\n'), /is not an envelope name/);
});

/** A toolset whose one tool always asks (default_action), to watch the gate's ask. */
const asking: Toolset = {
  name: 'ext',
  list: () => [{ toolset: 'ext', name: 'go', description: 'go', inputSchema: { type: 'object', properties: {} }, kind: 'other' }],
  call: async () => 'went',
};

test('the gate: an approver that keeps its own time may answer after the ask\'s timeout, and its `expired` is a timed-out rejection; "never" sets no timer', async () => {
  const envelope = env('waits', { waits: { extends: 'default', tools: { ext: { grant: 'approve', timeoutMs: 50 } } } });
  const late: Approver = async () => {
    await new Promise((r) => setTimeout(r, 200));
    return { outcome: 'allow_once' } satisfies ApprovalAnswer;
  };
  late.keepsTime = true;
  const gate = new Gate({ envelope, toolsets: [asking] });
  assert.equal((await gate.call('ext.go', {}, { approver: late })).result, 'went');
  const plain: Approver = async () => {
    await new Promise((r) => setTimeout(r, 200));
    return { outcome: 'allow_once' };
  };
  await assert.rejects(gate.call('ext.go', {}, { approver: plain }), (e: { code: string; details?: { timedOut?: boolean } }) => e.code === 'approval_required' && e.details?.timedOut === true);
  const expired: Approver = async () => ({ outcome: 'expired' });
  expired.keepsTime = true;
  await assert.rejects(gate.call('ext.go', {}, { approver: expired }), (e: { code: string; details?: { timedOut?: boolean } }) => e.code === 'approval_required' && e.details?.timedOut === true);
  const never = new Gate({ envelope: env('forever', { forever: { extends: 'default', tools: { ext: { grant: 'approve', timeoutMs: Number.POSITIVE_INFINITY } } } }), toolsets: [asking] });
  assert.equal((await never.call('ext.go', {}, { approver: plain })).result, 'went', 'a wait of "never" is not a timer that fires at once');
});
