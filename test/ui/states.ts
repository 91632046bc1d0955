// Client stores in the states the screen tests show, built through the store's own API (the
// same calls the protocol layer makes), with fixed ids and paths so frames are stable.
import type { PermissionOption, RequestPermissionOutcome, SessionInfo } from '@agentclientprotocol/sdk';
import { PermissionAnswers } from '../../src/client/permissions/permission_answers.ts';
import { ClientStore } from '../../src/client/state.ts';

export const CWD = '/srv/proj';

export const OPTIONS: PermissionOption[] = [
  { optionId: 'once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'always', name: 'Allow for this session', kind: 'allow_always' },
  { optionId: 'no', name: 'Reject', kind: 'reject_once' },
];

const OLD = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
const NEW = OLD.replace('line 3\n', 'line three\nline 3.5\n').replace('line 25\n', 'line twenty-five\n');

export const DIFF = { type: 'diff' as const, path: `${CWD}/src/app.ts`, oldText: OLD, newText: NEW };

const asked = new WeakMap<ClientStore, PermissionAnswers>();

/** The permission requests of a store, answered as the client answers them (one per store). */
export function permissionAnswers(s: ClientStore): PermissionAnswers {
  let p = asked.get(s);
  if (!p) asked.set(s, (p = new PermissionAnswers(s)));
  return p;
}

export function baseStore(): ClientStore {
  const s = new ClientStore({ label: 'cxl acp', builtin: true, cwd: CWD, model: 'qwen3:8b', envelope: 'default', settleMs: 0 });
  s.agentReady({ name: 'cxl', version: '0.1.0' });
  s.sessionStarted('a1b2c3d4e5f6', { mode: 'default' });
  return s;
}

export function idle(): ClientStore {
  const s = baseStore();
  s.beginTurn('What does this project do?');
  s.applyUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'It is a **terminal agent**. It has:\n\n- a TUI\n- an ACP agent\n\n```ts\nconst x = 1;\n```\n' } });
  s.endTurn('end_turn');
  s.settle();
  return s;
}

export function streaming(): ClientStore {
  const s = baseStore();
  s.beginTurn('Explain the layout');
  s.applyUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'The code is split in layers:\n\n1. `src/core` holds the tools\n2. `src/client` speaks ACP and serves files to the agent, confined to the session root' } });
  s.applyUpdate({ sessionUpdate: 'plan', entries: [
    { content: 'Read the layout', priority: 'high', status: 'completed' },
    { content: 'Summarise each layer', priority: 'medium', status: 'in_progress' },
    { content: 'Answer', priority: 'low', status: 'pending' },
  ] });
  return s;
}

export function toolRunning(): ClientStore {
  const s = baseStore();
  s.beginTurn('run the tests');
  s.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Read package.json', kind: 'read', status: 'completed', locations: [{ path: `${CWD}/package.json` }] });
  s.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: 'c2', title: 'npm test', kind: 'execute', status: 'in_progress', content: [{ type: 'terminal', terminalId: 't1' }] });
  s.updateTerminal({ id: 't1', command: 'npm test', output: Array.from({ length: 20 }, (_, i) => `ok ${i + 1} - test number ${i + 1}`).join('\n') + '\n', truncated: false, done: false });
  return s;
}

export function approvalWithDiff(count = 1): { store: ClientStore; answers: Promise<RequestPermissionOutcome>[] } {
  const s = baseStore();
  s.beginTurn('rename the lines');
  s.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: 'e1', title: 'Edit src/app.ts', kind: 'edit', status: 'pending', locations: [{ path: DIFF.path }] });
  const answers = [permissionAnswers(s).ask('a1b2c3d4e5f6', { toolCallId: 'e1', content: [DIFF] }, OPTIONS)];
  if (count > 1) {
    answers.push(permissionAnswers(s).ask('a1b2c3d4e5f6', { toolCallId: 'x2', title: 'rm -rf build', kind: 'execute', status: 'pending', rawInput: { command: 'rm -rf build' } }, OPTIONS));
  }
  return { store: s, answers };
}

export function finishedTurn(): ClientStore {
  const s = baseStore();
  s.beginTurn('rename the lines');
  s.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: 'e1', title: 'Edit src/app.ts', kind: 'edit', status: 'completed', content: [DIFF], locations: [{ path: DIFF.path }] });
  s.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: 'e2', title: 'Write docs/new.md', kind: 'edit', status: 'completed', content: [{ type: 'diff', path: `${CWD}/docs/new.md`, oldText: null, newText: '# New\n\nA new page.\n' }] });
  s.applyUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Done: two files changed.' } });
  s.endTurn('end_turn');
  s.settle();
  return s;
}

/** The same changes as finishedTurn, each asked about and allowed first: their diffs were on screen, so history shows them collapsed. */
export function approvedTurn(): ClientStore {
  const s = baseStore();
  s.beginTurn('rename the lines');
  for (const [id, title, diff] of [['e1', 'Edit src/app.ts', DIFF], ['e2', 'Write docs/new.md', { type: 'diff' as const, path: `${CWD}/docs/new.md`, oldText: null, newText: '# New\n\nA new page.\n' }]] as const) {
    s.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: id, title, kind: 'edit', status: 'pending' });
    void permissionAnswers(s).ask('a1b2c3d4e5f6', { toolCallId: id, content: [diff] }, OPTIONS);
    permissionAnswers(s).answer(s.getState().permissions[0].key, { outcome: 'selected', optionId: 'once' });
    s.applyUpdate({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed', content: [diff] });
  }
  s.applyUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Done: two files changed.' } });
  s.endTurn('end_turn');
  s.settle();
  return s;
}

export function failedCall(): ClientStore {
  const s = baseStore();
  s.beginTurn('read the secret');
  s.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: 'f1', title: 'Read .ssh/id_rsa', kind: 'read', status: 'in_progress', locations: [{ path: `${CWD}/.ssh/id_rsa` }] });
  s.applyUpdate({ sessionUpdate: 'tool_call_update', toolCallId: 'f1', status: 'failed', content: [{ type: 'content', content: { type: 'text', text: 'quarantined: .ssh/id_rsa is in the credential quarantine; work without that file.' } }] });
  s.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: 'f2', title: 'ls build', kind: 'execute', status: 'pending' });
  s.cancelTurn();
  s.endTurn('cancelled');
  return s;
}

export function crashed(): ClientStore {
  const s = baseStore();
  s.beginTurn('hello');
  s.applyUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Working on' } });
  s.agentExited({ code: 3, signal: null, stderrTail: ['cxl acp: loading model', 'cxl acp: fatal: connection refused (127.0.0.1:11434)'] });
  return s;
}

/** Idle, with modes (the built-in agent's envelopes) and commands the agent advertised. */
export function withModes(): ClientStore {
  const s = idle();
  s.config.setModes([{ id: 'default', name: 'default' }, { id: 'read_only', name: 'read_only', description: 'reads allowed, writes and shell denied' }], 'default');
  s.applyUpdate({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'compact', description: 'summarise the session' }, { name: 'tool', description: 'run one tool', input: { hint: 'name {json}' } }] });
  return s;
}

/** Two finished turns: edits in the first, a command in the second. */
export function twoTurns(): ClientStore {
  const s = finishedTurn();
  s.beginTurn('run the tests');
  s.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: 'r1', title: 'npm test', kind: 'execute', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'ok 1 - passes' } }] });
  s.applyUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'All green.' } });
  s.endTurn('end_turn');
  s.settle();
  return s;
}

/** Sessions as session/list gives them, newest first; times relative to now so "ago" is stable. */
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
export const SESSIONS: SessionInfo[] = [
  { sessionId: 'aaaaaaaa-1111', cwd: CWD, title: 'fix the flaky test', updatedAt: ago(5 * 60_000) },
  { sessionId: 'bbbbbbbb-2222', cwd: CWD, title: 'rename the helpers in the utilities module so that the names say what they return', updatedAt: ago(3 * 3600_000) },
  { sessionId: 'cccccccc-3333', cwd: CWD, title: null, updatedAt: ago(4 * 86400_000) },
];

/** withModes, plus the workspace's files for @ and the context use and sandbox on the status line. */
export function daily(): ClientStore {
  const s = withModes();
  s.setFiles({ paths: ['README.md', 'docs/tui.md', 'src/app.ts', 'src/ui/text_layout.ts', 'src/ui/theme.ts', 'test/ui/text_layout.test.ts'], loading: false, truncated: false });
  s.applyUpdate({ sessionUpdate: 'usage_update', used: 13440, size: 32768 });
  s.setSandbox({ state: 'bubblewrap' });
  return s;
}

/** The picker over this directory's sessions, at startup. */
export function picker(): ClientStore {
  const s = withModes();
  s.offerSessions({ sessions: SESSIONS, startup: true });
  return s;
}

/** A session resumed with session/load: its history replayed by the agent. */
export function resumed(): ClientStore {
  const s = baseStore();
  s.resetConversation('a1b2c3d4e5f6');
  s.applyUpdate({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'rename the lines' } });
  s.applyUpdate({ sessionUpdate: 'tool_call', toolCallId: 'e1', title: 'Edit src/app.ts', kind: 'edit', status: 'completed', content: [DIFF], locations: [{ path: DIFF.path }] });
  s.applyUpdate({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Renamed.' } });
  s.replayDone();
  s.sessionStarted('a1b2c3d4e5f6', { mode: 'default' });
  return s;
}

const REWIND_PROMPTS = [
  { n: 1, text: 'rename the lines in src/app.ts', conversation: true, files: [{ path: 'src/app.ts', change: 'modified' as const }] },
  { n: 2, text: 'add a test for it', conversation: true, files: [{ path: 'test/app.test.ts', change: 'created' as const }, { path: 'src/app.ts', change: 'modified' as const }] },
  { n: 3, text: 'clean up the build output with rm -rf dist', conversation: true, files: [{ path: 'dist/app.js', change: 'deleted' as const }] },
];

/** The rewind picker (/rewind, Esc Esc): the session's prompts, newest first. */
export function rewindPick(): ClientStore {
  const s = idle();
  const at = Date.now() - 7 * 60_000;
  s.rewind.offer({ step: 'pick', prompts: REWIND_PROMPTS.map((p, i) => ({ ...p, at: new Date(at + i * 60_000).toISOString() })) });
  return s;
}

/** What going back to before prompt 2 would do: a diff, a file deleted, one changed by someone else since. */
export function rewindPreview(): ClientStore {
  const s = rewindPick();
  const prompts = s.getState().rewind!.prompts;
  s.rewind.offer({
    step: 'preview',
    prompts,
    plan: {
      n: 2,
      restore: 'both',
      conversation: { prompts: 2 },
      files: [
        { path: 'src/app.ts', action: 'restore', diff: '--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,3 +1,3 @@\n line 1\n-line two\n+line 2\n line 3', changedSince: 'it was changed since the session last changed it' },
        { path: 'test/app.test.ts', action: 'delete', diff: '--- a/test/app.test.ts\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-test("app", () => {});' },
        { path: 'dist/app.js', action: 'recreate', diff: '', cannot: 'its content before was not kept (17000000 bytes, over the 16777216 a checkpoint keeps of one file)' },
      ],
    },
  });
  return s;
}
