// A plan stays in history when its turn ends (a summary row), live and replayed; a replayed cancel
// marker from cxl acp shows `⊘ cancelled` as the live turn did. The store, driven as the protocol
// layer drives it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClientStore } from '../../src/client/state.ts';
import { planSummaryRows } from '../../src/ui/plan_rows.ts';

const PLAN = [
  { content: 'Read the parser', priority: 'high' as const, status: 'completed' as const },
  { content: 'Fix the bug', priority: 'medium' as const, status: 'in_progress' as const },
  { content: 'Run the tests', priority: 'low' as const, status: 'pending' as const },
];

function store(): ClientStore {
  const s = new ClientStore({ label: 'cxl acp', builtin: true, cwd: '/srv/proj', settleMs: 0 });
  s.agentReady({ name: 'cxl' });
  s.sessionStarted('s1');
  return s;
}

test('the plan of a finished turn stays in history after its text, and the live plan is cleared', () => {
  const s = store();
  s.beginTurn('fix the parser');
  s.applyUpdate({ sessionUpdate: 'plan', entries: PLAN });
  s.applyUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Working on it.' } });
  s.endTurn('end_turn');
  s.settle();
  const h = s.getState().history;
  assert.deepEqual(h.map((x) => x.kind), ['user', 'agent', 'plan']);
  assert.equal(s.getState().plan.length, 0);
  const row = planSummaryRows((h[2] as { entries: typeof PLAN }).entries, 100).map((r) => r.map((x) => x.text).join(''));
  assert.deepEqual(row, ['plan 1/3: ✓ Read the parser · ~ Fix the bug · ○ Run the tests']);
  assert.ok(planSummaryRows(PLAN, 30).length <= 3, 'compact at any width');
});

test('a replayed session keeps each turn\'s plan and its cancel marker in order', () => {
  const s = store();
  s.resetConversation('s1');
  s.applyUpdate({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'first' } });
  s.applyUpdate({ sessionUpdate: 'plan', entries: PLAN });
  s.applyUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'half way' } });
  s.applyUpdate({ sessionUpdate: 'session_info_update', _meta: { 'cxl/turnEnded': 'cancelled' } });
  s.applyUpdate({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'second' } });
  s.applyUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'done' } });
  s.replayDone();
  assert.deepEqual(
    s.getState().history.map((x) => (x.kind === 'marker' ? `marker:${x.text}` : x.kind)),
    ['user', 'agent', 'plan', 'marker:cancelled', 'user', 'agent'],
  );
});

test('a replayed prompt shows its mentions as written: a file link (percent-encoded) is @path, and not twice', () => {
  const s = store();
  s.resetConversation('s1');
  s.applyUpdate({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'compare @módulo.py' } });
  s.applyUpdate({ sessionUpdate: 'user_message_chunk', content: { type: 'resource_link', uri: 'file:///srv/proj/m%C3%B3dulo.py', name: 'módulo.py' } });
  s.applyUpdate({ sessionUpdate: 'user_message_chunk', content: { type: 'resource_link', uri: 'file:///srv/proj/docs/my%20notes.md', name: 'my notes.md' } });
  s.applyUpdate({ sessionUpdate: 'user_message_chunk', content: { type: 'resource_link', uri: 'file:///elsewhere/x.md', name: 'x.md' } });
  s.replayDone();
  const user = s.getState().history.find((h) => h.kind === 'user');
  assert.equal(user?.kind === 'user' && user.text, 'compare @módulo.py @"docs/my notes.md"[x.md](file:///elsewhere/x.md)');
});
