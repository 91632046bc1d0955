// The client store on its own: how updates become history and live items, and how calls merge.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestPermissionOutcome } from '@agentclientprotocol/sdk';
import { PermissionAnswers } from '../../src/client/permissions/permission_answers.ts';
import { ClientStore, type ClientState } from '../../src/client/state.ts';
import { mergeToolCall } from '../../src/client/session/tool_call.ts';

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

test('a permission for an unseen call creates it; a cancel answers all and cancelTurn marks unfinished calls', async () => {
  const s = store();
  const asks = new PermissionAnswers(s);
  s.beginTurn('go');
  const p1 = asks.ask('s', { toolCallId: 'n1', title: 'New' }, [{ optionId: 'o', name: 'Ok', kind: 'allow_once' }]);
  const p2 = asks.ask('s', { toolCallId: 'n2', title: 'New 2' }, [{ optionId: 'o', name: 'Ok', kind: 'allow_once' }]);
  assert.deepEqual(s.getState().turnCalls, ['n1', 'n2']);
  asks.cancelAll();
  s.cancelTurn();
  assert.deepEqual(await Promise.all([p1, p2]), [{ outcome: 'cancelled' }, { outcome: 'cancelled' }]);
  assert.equal(s.getState().toolCalls.n1.status, 'cancelled');
  assert.equal(s.getState().permissions.length, 0);
  s.dispose();
});

test('an agent exit settles pending approvals and reports code and stderr', async () => {
  const s = store();
  const asks = new PermissionAnswers(s);
  s.beginTurn('go');
  const p = asks.ask('s', { toolCallId: 'k', title: 'K' }, [{ optionId: 'o', name: 'Ok', kind: 'allow_once' }]);
  asks.cancelAll();
  s.agentExited({ code: null, signal: 'SIGKILL', stderrTail: ['boom'] });
  assert.deepEqual(await p, { outcome: 'cancelled' });
  const n = s.getState().history.at(-1);
  assert.ok(n && n.kind === 'notice' && /killed by SIGKILL/.test(n.text) && n.detail?.[0] === 'boom');
  assert.equal(s.getState().agent.status, 'exited');
  s.dispose();
});

test('an agent that could not start: a missing program is named as such, and no stderr is promised when it wrote none', () => {
  const s = store();
  s.agentExited({ code: null, signal: null, stderrTail: [], error: 'spawn no-such-agent ENOENT', missing: 'no-such-agent' });
  const n = s.getState().history.at(-1);
  assert.ok(n && n.kind === 'notice');
  assert.equal(n.text, 'the agent could not start: no-such-agent was not found (is it installed, and on PATH?). Quit with Ctrl+D and start cxl again.');
  s.agentExited({ code: null, signal: null, stderrTail: ['oops'], error: 'spawn EACCES' });
  const m = s.getState().history.at(-1);
  assert.ok(m && m.kind === 'notice' && m.text === 'the agent could not start: spawn EACCES. Its last stderr lines are below; quit with Ctrl+D and start cxl again.');
  s.dispose();
});

// The SDK's example agent: ids `call_1`/`call_2` in every turn, and after a rejected edit the
// turn ends with call_2 still `pending`.
function exampleTurn(s: ClientStore, prompt: string, n: number): Promise<RequestPermissionOutcome> {
  const asks = new PermissionAnswers(s);
  s.beginTurn(prompt);
  s.applyUpdate(text(`reading ${n}`));
  s.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: 'call_1', title: `Read ${n}`, kind: 'read', status: 'pending' });
  s.applyUpdate({ sessionUpdate: 'tool_call_update', toolCallId: 'call_1', status: 'completed' });
  s.applyUpdate(text(`changing ${n}`));
  s.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: 'call_2', title: `Edit ${n}`, kind: 'edit', status: 'pending' });
  const answer = asks.ask('s', { toolCallId: 'call_2', title: `Edit ${n}`, kind: 'edit', status: 'pending' }, [{ optionId: 'reject', name: 'Skip', kind: 'reject_once' }]);
  asks.answer(s.getState().permissions[0].key, { outcome: 'selected', optionId: 'reject' });
  s.applyUpdate(text(`skipped ${n}`));
  s.endTurn('end_turn');
  return answer;
}

const shape = (st: ClientState) =>
  st.history.map((h) => (h.kind === 'tool' ? `${h.late ? 'late ' : ''}${h.call.id}:${h.call.title}:${h.call.leftPending ? 'left' : h.call.status}` : h.kind !== 'marker' && 'text' in h ? `${h.kind}:${h.text}` : h.kind));

test('a turn that ends with a call pending closes it; the next turn prints after it, in order, each call once', async () => {
  const s = store();
  await exampleTurn(s, 'first', 1);
  await exampleTurn(s, 'second', 2);
  s.settle();
  const st = s.getState();
  assert.deepEqual(shape(st), [
    'user:first', 'agent:reading 1', 'call_1:Read 1:completed', 'agent:changing 1', 'call_2:Edit 1:left', 'agent:skipped 1',
    'user:second', 'agent:reading 2', 'call_1:Read 2:completed', 'agent:changing 2', 'call_2:Edit 2:left', 'agent:skipped 2',
  ]);
  assert.equal(st.live.length, 0);
  s.dispose();
});

test('a settled turn closes what the agent left unfinished; a late final status is shown against that call', () => {
  const s = store();
  s.beginTurn('go');
  s.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: 'r', title: 'Run tests', kind: 'execute', status: 'in_progress' });
  s.endTurn('end_turn');
  s.settle();
  assert.equal(s.getState().live.length, 0, 'nothing of the turn stays live');
  s.applyUpdate({ sessionUpdate: 'tool_call_update', toolCallId: 'r', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: '12 passed' } }] });
  const st = s.getState();
  assert.deepEqual(shape(st), ['user:go', 'r:Run tests:left', 'late r:Run tests:completed']);
  assert.equal(st.live.length, 0, 'the late update is not a new live call');
  assert.equal(st.toolCalls.r.status, 'completed');
  // a late non-final status does not reopen it
  s.applyUpdate({ sessionUpdate: 'tool_call_update', toolCallId: 'r', status: 'in_progress' });
  assert.equal(s.getState().toolCalls.r.status, 'completed');
  assert.equal(s.getState().history.length, 3);
  s.dispose();
});

test('text of a later turn never joins the earlier turn\'s message', () => {
  const s = store();
  s.beginTurn('one');
  s.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: 'p', title: 'P', status: 'pending' });
  s.applyUpdate(text('first answer'));
  s.endTurn('end_turn');
  s.beginTurn('two');
  s.applyUpdate(text('second answer'));
  s.endTurn('end_turn');
  s.settle();
  assert.deepEqual(shape(s.getState()), ['user:one', 'p:P:left', 'agent:first answer', 'user:two', 'agent:second answer']);
  s.dispose();
});

test('Ctrl+C shows cancelling until the turn ends, then a cancelled marker', () => {
  const s = store();
  s.beginTurn('go');
  s.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: 'w', title: 'W', status: 'in_progress' });
  s.cancelTurn();
  assert.equal(s.getState().cancelling, true);
  s.endTurn('cancelled');
  const st = s.getState();
  assert.equal(st.cancelling, false);
  assert.deepEqual(shape(st), ['user:go', 'w:W:cancelled', 'marker']);
  assert.ok(st.history.some((h) => h.kind === 'marker' && h.text === 'cancelled'));
  s.dispose();
});
