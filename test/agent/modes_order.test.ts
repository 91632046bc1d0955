// The order the built-in agent offers its envelopes as session modes, which is the order Shift+Tab
// walks: the default first, auto_edit one press away, the project's own next, the strict ones last.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modesOf } from '../../src/agent/setup.ts';
import { mergeLayers } from '../../src/config/load.ts';

test('modes: default, then auto_edit, then the project\'s envelopes, then read_only, strict, ask_always, serve', () => {
  assert.deepEqual(modesOf(mergeLayers([])).map((m) => m.id), ['default', 'auto_edit', 'read_only', 'strict', 'ask_always', 'serve']);
  const mine = mergeLayers([['a.toml', { default_envelope: 'mine', envelopes: { mine: { extends: 'default' }, zeta: { extends: 'strict' } } }]]);
  assert.deepEqual(modesOf(mine).map((m) => m.id), ['mine', 'auto_edit', 'default', 'zeta', 'read_only', 'strict', 'ask_always', 'serve']);
});
