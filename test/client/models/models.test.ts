// Models as agents offer them (a config option, or the older `models` field, as codex-acp and
// claude-code-acp send them), and a wish matched to one of them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionConfigOption } from '@agentclientprotocol/sdk';
import { matchModel, modelLabel, modelStateOf } from '../../../src/client/models/models.ts';

const codex: SessionConfigOption[] = [
  { type: 'select', id: 'model', name: 'Model', category: 'model', currentValue: 'gpt-5.5', options: [
    { group: 'recommended', name: 'Recommended', options: [{ value: 'gpt-5.5', name: 'GPT-5.5' }, { value: 'gpt-5.4-mini', name: 'GPT-5.4-Mini' }] },
    { group: 'other', name: 'Other', options: [{ value: 'gpt-5.4', name: 'gpt-5.4' }] },
  ] },
];
const claudeCode = { availableModels: [{ modelId: 'default', name: 'Default (recommended)' }, { modelId: 'opus', name: 'Opus' }, { modelId: 'opus[1m]', name: 'Opus (1M context)' }, { modelId: 'haiku', name: 'Haiku' }], currentModelId: 'default' };

test('a config option (grouped) and the models field both read as the models and the one in use', () => {
  const c = modelStateOf(codex)!;
  assert.deepEqual([c.source, c.configId, c.current, c.available.map((m) => m.id)], ['config_option', 'model', 'gpt-5.5', ['gpt-5.5', 'gpt-5.4-mini', 'gpt-5.4']]);
  assert.equal(modelLabel(c), 'GPT-5.5');
  const m = modelStateOf(undefined, claudeCode)!;
  assert.deepEqual([m.source, m.current, m.available.length], ['models', 'default', 4]);
  assert.equal(modelLabel(m), 'Default (recommended)');
  assert.equal(modelStateOf(undefined, { availableModels: 'nope' }), undefined);
  assert.equal(modelStateOf([{ type: 'boolean', id: 'fast', name: 'Fast', currentValue: true }]), undefined);
});

test('a wish matches an id or a name, case and separators aside, then a unique prefix or substring', () => {
  const c = modelStateOf(codex)!;
  assert.equal(matchModel(c, 'gpt-5.4 mini').hit?.id, 'gpt-5.4-mini');
  assert.equal(matchModel(c, 'GPT-5.4-MINI').hit?.id, 'gpt-5.4-mini');
  assert.equal(matchModel(c, 'gpt-5.4').hit?.id, 'gpt-5.4', 'an exact id wins over a longer one it begins');
  assert.deepEqual(matchModel(c, 'gpt').candidates.map((x) => x.id), ['gpt-5.5', 'gpt-5.4-mini', 'gpt-5.4']);
  assert.equal(matchModel(c, 'gpt').hit, undefined);
  assert.equal(matchModel(c, 'claude').candidates.length, 0);
  const m = modelStateOf(undefined, claudeCode)!;
  assert.equal(matchModel(m, 'opus').hit?.id, 'opus');
  assert.equal(matchModel(m, '1m').hit?.id, 'opus[1m]');
  assert.equal(matchModel(m, 'opus 1m').hit?.id, 'opus[1m]');
  assert.equal(matchModel(m, 'recommended').hit?.id, 'default');
});
