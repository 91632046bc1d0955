// A resumed (or rewound) session replayed by the agent looks like the live screen did: a `!` line
// framed as it ran (`✓ $ line`, its output, how it ended), a change the person approved collapsed
// to `+N -M` (its diff was on screen when asked), a change made unasked with its diff; and the
// resume picker keeps a person's sessions apart from the unattended runs. The store and the row
// functions, as the screen uses them (pure, both runtimes).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionInfo, SessionUpdate } from '@agentclientprotocol/sdk';
import { ClientStore } from '../../src/client/state.ts';
import { pickerOrder } from '../../src/client/session/session_meta.ts';
import { META_ASKED, META_SHELL_RUN, META_UNATTENDED } from '../../src/core/protocol_names.ts';
import { historyRows } from '../../src/ui/message_rows.ts';
import { pickerRows } from '../../src/ui/session_picker_rows.ts';

const text = (rows: ReturnType<typeof historyRows>) => rows.map((r) => r.map((s) => s.text).join('')).join('\n');

function change(id: string, file: string, asked: boolean): SessionUpdate {
  return {
    sessionUpdate: 'tool_call',
    toolCallId: id,
    title: `Edit ${file}`,
    kind: 'edit',
    status: 'completed',
    locations: [{ path: `/r/${file}` }],
    content: [{ type: 'diff', path: `/r/${file}`, oldText: 'one\ntwo\n', newText: 'one\nTWO\n' }],
    ...(asked ? { _meta: { [META_ASKED]: true } } : {}),
  } as SessionUpdate;
}

test('a replay shows a `!` line framed as it ran, an approved change collapsed and an unasked one with its diff', () => {
  const s = new ClientStore({ label: 'cxl acp', builtin: true, cwd: '/r', settleMs: 0 });
  s.resetConversation('s1');
  s.applyUpdate({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: '$ ls\nREADME.md\n', _meta: { [META_SHELL_RUN]: { command: 'ls', output: 'README.md\n', truncated: false, exitCode: 0, signal: null, sandbox: { state: 'bubblewrap' }, handed: true } } } });
  s.applyUpdate({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'change two' } });
  s.applyUpdate(change('c1', 'asked.txt', true));
  s.applyUpdate(change('c2', 'unasked.txt', false));
  s.replayDone();
  const shown = s.getState().history.map((h) => text(historyRows(h, 100, '/r'))).join('\n');
  assert.match(shown, /^✓ \$ ls\n {2}│ README\.md\n {2}└ exit 0 · the agent gets this output with your next prompt\n/, 'the `!` line in its frame');
  assert.doesNotMatch(shown, /your shell, sent with the next prompt/);
  assert.match(shown, /› change two/);
  const asked = shown.slice(shown.indexOf('asked.txt'), shown.indexOf('unasked.txt'));
  assert.match(asked, /\+1 -1/, 'the approved change as one line');
  assert.doesNotMatch(asked, /TWO/, 'its diff is not printed again');
  assert.match(shown.slice(shown.indexOf('unasked.txt')), /\+ TWO/, 'the unasked change shows what changed');
});

test('the resume picker lists a person\'s sessions first, the unattended runs and units under a heading of their own', () => {
  const now = Date.parse('2026-12-06T12:00:00Z');
  const at = (m: number) => new Date(now - m * 60_000).toISOString();
  const sessions: SessionInfo[] = [
    { sessionId: 'run-aaaa1111', cwd: '/r', title: 'fix the flaky test', updatedAt: at(1), _meta: { [META_UNATTENDED]: true } },
    { sessionId: 'mine-1', cwd: '/r', title: 'rename the lexer', updatedAt: at(30) },
    { sessionId: 'run-bbbb2222', cwd: '/r', title: 'bump the deps', updatedAt: at(5), _meta: { [META_UNATTENDED]: true } },
    { sessionId: 'mine-2', cwd: '/r', title: '!git status', updatedAt: at(90) },
  ];
  const ordered = pickerOrder(sessions);
  assert.deepEqual(ordered.map((x) => x.sessionId), ['mine-1', 'mine-2', 'run-aaaa1111', 'run-bbbb2222']);
  const rows = pickerRows({ sessions: ordered, startup: true }, 0, 80, 14, now).map((r) => r.map((x) => x.text).join(''));
  assert.deepEqual(
    rows.map((r) => r.replace(/\s+\d+[mh] ago · .*$/, '')),
    ['── resume a session (4) ' + '─'.repeat(56), '› rename the lexer', '  !git status', '  unattended runs and mission units (2)', '  fix the flaky test', '  bump the deps', '  Esc starts a new session instead'],
  );
});
