// Config options as the source of truth: an agent that offers modes only as a `mode` config
// option (OpenCode's way) gets its modes shown and switched through session/set_config_option,
// `/config` lists every option and sets selects and booleans, and modes offered only through the
// `modes` field still work (the fallback), against the peer agent as a real child process.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { SessionConfigOption } from '@agentclientprotocol/sdk';
import { configLines, findOption, matchValue, modesOf } from '../../../src/client/config_options/config_options.ts';
import { agentSaid, peer, removePeers, shown, waitFor } from '../peer_harness.ts';

after(removePeers);

const configured = peer(['--config-modes']);
const listing = peer(['--config-modes']);

test('modes offered only as a config option are the session\'s modes; a switch goes through session/set_config_option', async () => {
  const c = configured;
  let s = await waitFor(c, (x) => x.sessionId !== undefined, 'the session');
  assert.deepEqual(s.modes.map((m) => [m.id, m.name]), [['build', 'Build'], ['plan', 'Plan']]);
  assert.equal(s.mode, 'build');
  assert.deepEqual(s.modeSource, { kind: 'config_option', configId: 'mode' });
  await c.config.setMode('plan');
  s = await waitFor(c, (x) => x.mode === 'plan' && agentSaid(x, 'set_config_option').length > 0, 'the switch');
  assert.deepEqual(agentSaid(s, 'set_config_option'), ['peer-agent: set_config_option mode=plan'], 'not session/set_mode, which this agent does not have');
  assert.equal((s.configOptions.find((o) => o.id === 'mode') as { currentValue: string }).currentValue, 'plan');
  assert.ok(!/did not switch/.test(shown(s)));
});

test('/config lists every option with its values, sets a select and a boolean, and refuses a value the agent does not offer', async () => {
  const c = listing;
  await waitFor(c, (x) => x.sessionId !== undefined, 'the session');
  await c.config.config('');
  let s = c.store.getState();
  const info = s.history.find((h) => h.kind === 'info');
  assert.ok(info && info.kind === 'info');
  assert.deepEqual(info.lines.slice(0, 4), ['  mode  Mode: Build (build)', '      ● build (Build) · edits files', '      ○ plan (Plan) · reads only', '  effort  Effort: Medium (medium)']);
  assert.ok(info.lines.includes('  fast  Fast mode: off'));
  await c.config.config('effort high');
  await c.config.config('Fast on');
  s = await waitFor(c, (x) => /Fast mode: on\./.test(shown(x)) && agentSaid(x, 'set_config_option').length === 2, 'the boolean set');
  assert.match(shown(s), /Effort: High \(high\)\./);
  assert.deepEqual(agentSaid(s, 'set_config_option'), ['peer-agent: set_config_option effort=high', 'peer-agent: set_config_option fast=true']);
  await c.config.config('effort extreme');
  await c.config.config('colour red');
  s = c.store.getState();
  assert.match(shown(s), /effort has no value “extreme”; values: low, medium, high\./);
  assert.match(shown(s), /has no config option “colour”\. Options: mode, effort, fast\./);
  assert.equal(agentSaid(s, 'set_config_option').length, 2, 'nothing sent for what the agent does not offer');
});

test('the mode option wins over `modes`; `modes` alone is the fallback; a current_mode_update moves both views', () => {
  const options: SessionConfigOption[] = [{ type: 'select', id: 'm', name: 'Mode', category: 'mode', currentValue: 'a', options: [{ group: 'g', name: 'G', options: [{ value: 'a', name: 'A' }, { value: 'b', name: 'B' }] }] }];
  const legacy = { currentModeId: 'x', availableModes: [{ id: 'x', name: 'X' }] };
  assert.deepEqual(modesOf(options, legacy), { modes: [{ id: 'a', name: 'A' }, { id: 'b', name: 'B' }], current: 'a', source: { kind: 'config_option', configId: 'm' } });
  assert.deepEqual(modesOf([], legacy), { modes: legacy.availableModes, current: 'x', source: { kind: 'modes' } });
  assert.deepEqual(modesOf(undefined, undefined), { modes: [] });
  assert.equal(findOption(options, 'MODE')?.id, 'm');
  assert.deepEqual(matchValue(options[0], 'b'), { value: 'b' });
  assert.deepEqual(configLines(options), ['  m  Mode: A (a)', '      ● a (A)', '      ○ b (B)']);
});
