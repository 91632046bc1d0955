// The working line above the composer: shown while a turn runs, with the time it has taken once
// the UI animates (a still frame has no clock, so snapshots stay the same); gone when it ends.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { elapsedText, workingRow } from '../../src/ui/working_row.ts';
import { baseStore, streaming } from './states.ts';

const text = (r: ReturnType<typeof workingRow>) => r?.map((s) => s.text).join('');

test('the time a turn has taken, as a person reads it', () => {
  assert.deepEqual([0, 999, 42_000, 59_999, 65_000, 3_599_000, 3_720_000, -5].map(elapsedText), ['0s', '0s', '42s', '59s', '1m 05s', '59m 59s', '1h 02m', '0s']);
});

test('the working line: while a turn runs, with its clock when animated; not while cancelling, nor after the turn', () => {
  const s = streaming();
  const since = s.getState().runningSince!;
  assert.ok(Math.abs(since - Date.now()) < 5000, 'the turn began now');
  assert.equal(text(workingRow(s.getState(), 3, 0)), '⠸ working', 'a still frame has no clock');
  assert.equal(text(workingRow(s.getState(), 0, since + 65_400)), '⠋ working · 1m 05s');
  s.endTurn('end_turn');
  assert.equal(s.getState().runningSince, undefined);
  assert.equal(workingRow(s.getState(), 0, Date.now()), undefined);
  assert.equal(workingRow(baseStore().getState(), 0, Date.now()), undefined, 'no turn yet');
  const c = streaming();
  c.cancelTurn();
  assert.equal(workingRow(c.getState(), 0, Date.now()), undefined, 'the status line says cancelling…');
});
