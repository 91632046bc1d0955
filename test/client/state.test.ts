// The client store on its own: how updates become history and live items, and how calls merge.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClientStore } from '../../src/client/state.ts';
import { mergeToolCall } from '../../src/client/tool_call.ts';

const store = () => {
  const s = new ClientStore({ label: 'x', cwd: '/r', settleMs: 10_000 });
  s.sessionStarted('s');
  return s;
};
const text = (t: string) => ({ sessionUpdate: 'agent_message_chunk' as const, content: { type: 'text' as const, text: t } });

test('chunks join one message; it goes to history when something follows it', () => {
  const s = store();
  s.beginTurn('hi');
  s.applyUpdate(text('Hel'));
  s.applyUpdate(text('lo'));
  assert.deepEqual(s.getState().live.map((i) => ('text' in i ? i.text : i.id)), ['Hello']);
  s.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: 'a', title: 'A', status: 'in_progress' });
  const st = s.getState();
  assert.deepEqual(st.history.map((h) => h.kind), ['user', 'agent']);
  assert.deepEqual(st.live.map((i) => i.kind), ['tool']);
  s.dispose();
});

test('a finished call leaves the live region only when everything before it has finished', () => {
  const s = store();
  s.beginTurn('go');
  s.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: 'a', title: 'A', status: 'in_progress' });
  s.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: 'b', title: 'B', status: 'completed' });
  assert.deepEqual(s.getState().live.map((i) => (i.kind === 'tool' ? i.id : '')), ['a', 'b'], 'order is kept');
  s.applyUpdate({ sessionUpdate: 'tool_call_update', toolCallId: 'a', status: 'failed' });
  assert.equal(s.getState().live.length, 0);
  assert.deepEqual(s.getState().history.flatMap((h) => (h.kind === 'tool' ? [`${h.call.id}:${h.call.status}`] : [])), ['a:failed', 'b:completed']);
  s.dispose();
});

test('late text after the turn ended joins the last message until it settles', () => {
  const s = store();
  s.beginTurn('go');
  s.applyUpdate(text('one'));
  s.endTurn('end_turn');
  s.applyUpdate(text(' two'));
  assert.equal(s.getState().live.length, 1);
  s.settle();
  const last = s.getState().history.at(-1);
  assert.ok(last && last.kind === 'agent' && last.text === 'one two');
  s.dispose();
});

test('updates merge by id and keep what they leave out; a cancelled call is not reopened', () => {
  let c = mergeToolCall(undefined, { toolCallId: 'x', title: 'T', kind: 'edit', status: 'pending', locations: [{ path: '/a' }] });
  c = mergeToolCall(c, { toolCallId: 'x', status: 'in_progress' });
  assert.equal(c.title, 'T');
  assert.equal(c.kind, 'edit');
  assert.deepEqual(c.locations, [{ path: '/a' }]);
  c = { ...c, status: 'cancelled' };
  assert.equal(mergeToolCall(c, { toolCallId: 'x', status: 'in_progress' }).status, 'cancelled');
  assert.equal(mergeToolCall(c, { toolCallId: 'x', status: 'failed' }).status, 'failed', 'a final status still lands');
});

test('a permission for an unseen call creates it; cancelTurn answers all and marks unfinished calls', async () => {
  const s = store();
  s.beginTurn('go');
  const p1 = s.requestPermission('s', { toolCallId: 'n1', title: 'New' }, [{ optionId: 'o', name: 'Ok', kind: 'allow_once' }]);
  const p2 = s.requestPermission('s', { toolCallId: 'n2', title: 'New 2' }, [{ optionId: 'o', name: 'Ok', kind: 'allow_once' }]);
  assert.deepEqual(s.getState().turnCalls, ['n1', 'n2']);
  s.cancelTurn();
  assert.deepEqual(await Promise.all([p1, p2]), [{ outcome: 'cancelled' }, { outcome: 'cancelled' }]);
  assert.equal(s.getState().toolCalls.n1.status, 'cancelled');
  assert.equal(s.getState().permissions.length, 0);
  s.dispose();
});

test('an agent exit settles pending approvals and reports code and stderr', async () => {
  const s = store();
  s.beginTurn('go');
  const p = s.requestPermission('s', { toolCallId: 'k', title: 'K' }, [{ optionId: 'o', name: 'Ok', kind: 'allow_once' }]);
  s.agentExited({ code: null, signal: 'SIGKILL', stderrTail: ['boom'] });
  assert.deepEqual(await p, { outcome: 'cancelled' });
  const n = s.getState().history.at(-1);
  assert.ok(n && n.kind === 'notice' && /killed by SIGKILL/.test(n.text) && n.detail?.[0] === 'boom');
  assert.equal(s.getState().agent.status, 'exited');
  s.dispose();
});
