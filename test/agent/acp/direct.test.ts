import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDirect } from '../../../src/agent/acp/direct.ts';

test('direct commands parse; anything else goes to the model', () => {
  assert.deepEqual(parseDirect('!ls -la && pwd'), { kind: 'shell', command: 'ls -la && pwd' });
  assert.deepEqual(parseDirect('  /tool read_file {"path":"a b.txt"}'), { kind: 'tool', name: 'read_file', args: { path: 'a b.txt' } });
  assert.deepEqual(parseDirect('/tool list_dir'), { kind: 'tool', name: 'list_dir', args: {} });
  assert.deepEqual(parseDirect('/help'), { kind: 'help' });
  assert.deepEqual(parseDirect(' /compact '), { kind: 'compact' });
  assert.equal(parseDirect('/compact the history please'), undefined);
  assert.equal(parseDirect('what does /tool do?'), undefined);
  assert.equal(parseDirect('/toolbox'), undefined);
  assert.equal(parseDirect('hello'), undefined);
  assert.equal(parseDirect('!')?.kind, 'error');
  assert.match((parseDirect('/tool read_file {bad') as { message: string }).message, /not valid JSON/);
  assert.match((parseDirect('/tool read_file [1]') as { message: string }).message, /JSON object/);
  assert.equal(parseDirect('/tool')?.kind, 'error');
});
