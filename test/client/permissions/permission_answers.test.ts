// The requests waiting for the user: the store shows each one, the promise the agent's request
// waits on is settled exactly once, by an answer, a withdrawal or a cancel.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PermissionOption, RequestPermissionOutcome } from '@agentclientprotocol/sdk';
import { PermissionAnswers } from '../../../src/client/permissions/permission_answers.ts';
import { ClientStore } from '../../../src/client/state.ts';

const OPTIONS: PermissionOption[] = [
  { optionId: 'once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'no', name: 'Reject', kind: 'reject_once' },
];

function setup() {
  const store = new ClientStore({ label: 'x', cwd: '/r', settleMs: 10_000 });
  store.sessionStarted('s');
  store.beginTurn('go');
  return { store, asks: new PermissionAnswers(store) };
}

const settled = (p: Promise<RequestPermissionOutcome>) => Promise.race([p, new Promise<'pending'>((r) => setTimeout(() => r('pending'), 20))]);

test('a request is on screen until answered; the answer reaches its asker only, once', async () => {
  const { store, asks } = setup();
  const a = asks.ask('s', { toolCallId: 'a', title: 'A' }, OPTIONS);
  const b = asks.ask('s', { toolCallId: 'b', title: 'B' }, OPTIONS);
  assert.deepEqual(store.getState().permissions.map((p) => p.call.id), ['a', 'b']);
  const [first, second] = store.getState().permissions;
  asks.answer(second.key, { outcome: 'selected', optionId: 'no' });
  assert.deepEqual(await settled(b), { outcome: 'selected', optionId: 'no' });
  assert.equal(await settled(a), 'pending');
  assert.deepEqual(store.getState().permissions.map((p) => p.call.id), ['a']);
  asks.answer(first.key, { outcome: 'selected', optionId: 'once' });
  asks.answer(first.key, { outcome: 'cancelled' });
  assert.deepEqual(await a, { outcome: 'selected', optionId: 'once' }, 'a second answer changes nothing');
  assert.equal(store.getState().permissions.length, 0);
  store.dispose();
});

test('a request the agent withdraws is answered cancelled and leaves the screen; cancelAll answers the rest', async () => {
  const { store, asks } = setup();
  const a = asks.ask('s', { toolCallId: 'a', title: 'A' }, OPTIONS);
  const b = asks.ask('s', { toolCallId: 'b', title: 'B' }, OPTIONS);
  const c = asks.ask('s', { toolCallId: 'c', title: 'C' }, OPTIONS);
  asks.withdraw('b');
  assert.deepEqual(await settled(b), { outcome: 'cancelled' });
  assert.deepEqual(store.getState().permissions.map((p) => p.call.id), ['a', 'c']);
  asks.withdraw('nothing-asked');
  asks.cancelAll();
  assert.deepEqual(await Promise.all([a, c]), [{ outcome: 'cancelled' }, { outcome: 'cancelled' }]);
  assert.equal(store.getState().permissions.length, 0);
  store.dispose();
});
