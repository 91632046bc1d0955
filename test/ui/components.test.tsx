import './env.ts';
// Each component (row builder rendered through <Rows>) at 60, 100 and 140 columns.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ToolCallView } from '../../src/client/session/tool_call.ts';
import { approvalRows } from '../../src/ui/approval_rows.ts';
import { completionAt } from '../../src/ui/completion.ts';
import { completionRows } from '../../src/ui/completion_rows.ts';
import { composerRows } from '../../src/ui/composer.ts';
import { pickerRows } from '../../src/ui/session_picker_rows.ts';
import { transcriptRows } from '../../src/ui/transcript_rows.ts';
import { diffModel, diffRows } from '../../src/ui/diff_rows.ts';
import { footerRows } from '../../src/ui/footer.ts';
import { markdownRows, markdownTail } from '../../src/ui/markdown.ts';
import { historyRows, infoRows, noticeRows } from '../../src/ui/message_rows.ts';
import { planRows } from '../../src/ui/plan_rows.ts';
import { Rows } from '../../src/ui/Rows.tsx';
import { statusRow, tokenCount, usageText } from '../../src/ui/status_line.ts';
import { ClientStore } from '../../src/client/state.ts';
import type { Row } from '../../src/ui/text_layout.ts';
import { toolCallRows } from '../../src/ui/tool_call_rows.ts';
import { matchSnapshot } from '../helpers/snapshot.ts';
import { renderAt, tick } from './harness.ts';
import * as states from './states.ts';

const WIDTHS = [60, 100, 140];

async function show(rows: Row[], width: number): Promise<string> {
  const r = renderAt(<Rows rows={rows} />, width, 200);
  await tick(5);
  const f = r.lastFrame();
  r.unmount();
  for (const line of f.split('\n')) assert.ok([...line].length <= width, `wider than ${width}: ${line}`);
  return f;
}

function foreign(): ClientStore {
  const s = new ClientStore({ label: 'claude-agent-acp', cwd: states.CWD, settleMs: 0 });
  s.agentReady({ name: 'Claude Agent' });
  s.config.setModes([{ id: 'default', name: 'Default' }, { id: 'plan', name: 'Plan mode' }], 'plan');
  s.sessionStarted('0f9e8d7c-6b5a', { model: 'Sonnet 4.5', mode: 'plan' });
  s.applyUpdate({ sessionUpdate: 'usage_update', used: 151_000, size: 200_000 });
  s.setSandbox({ state: 'off' });
  return s;
}

const LONG = 'the quick brown fox jumps over the lazy dog and keeps on running past the river bank until the sun goes down behind the hills';

const call = (over: Partial<ToolCallView>): ToolCallView => ({ id: 'c', title: 'Edit src/app.ts', kind: 'edit', status: 'completed', content: [], locations: [], ...over });
const term = (done: boolean, exitCode?: number) => ({ id: 't', command: 'ls', output: Array.from({ length: 14 }, (_, i) => `file-${i}.txt`).join('\n'), truncated: false, done, exitCode });

/** A 120-line new file, asked about (taller than any modal). */
function tallApproval() {
  const s = states.baseStore();
  s.beginTurn('generate');
  const text = Array.from({ length: 120 }, (_, i) => `line ${i + 1} of the generated module`).join('\n') + '\n';
  void states.permissionAnswers(s).ask('a1b2c3d4e5f6', { toolCallId: 'w1', title: 'Write gen.py', kind: 'edit', status: 'pending', content: [{ type: 'diff', path: `${states.CWD}/gen.py`, oldText: null, newText: text }] }, states.OPTIONS);
  return s.getState().permissions[0];
}

/** `rm -rf "build" + sixty newlines, "src"` in the argv form, as a model sent it. */
function argvApproval() {
  const s = states.baseStore();
  s.beginTurn('clean');
  void states.permissionAnswers(s).ask('a1b2c3d4e5f6', { toolCallId: 'x1', title: 'local_shell: rm -rf build', kind: 'execute', status: 'pending', rawInput: { command: 'rm', args: ['-rf', `build${'\n'.repeat(60)}`, 'src'] } }, states.OPTIONS);
  return s.getState().permissions[0];
}

/** A window of a long file from line 37 (the agent says so), a word changed at line 40, a Trojan Source line. */
const LINE40_DIFF = {
  type: 'diff' as const,
  path: `${states.CWD}/src/auth.ts`,
  oldText: 'line 37\nline 38\nline 39\nconst limit = total * 2;\nline 41\nline 42\nline 43\n',
  newText: 'line 37\nline 38\nline 39\nconst limit = count * 2;\nif (isAdmin) { \u202e } \u2066// check later\u2069 {\nline 41\nline 42\nline 43\n',
  _meta: { 'cxl/startLine': 37 },
};

const COMPONENTS: [string, (w: number) => Row[]][] = [
  ['diff', (w) => diffRows(diffModel(states.DIFF), w)],
  ['diff new file', (w) => diffRows(diffModel({ path: '/srv/proj/n.md', oldText: null, newText: 'a\nb\n' }), w)],
  ['tool pending', (w) => toolCallRows(call({ status: 'pending', kind: 'read', title: 'Read README.md', locations: [{ path: '/srv/proj/README.md', line: 3 }] }), { cwd: states.CWD, width: w, expanded: false, terminals: [] })],
  ['tool running', (w) => toolCallRows(call({ status: 'in_progress', kind: 'execute', title: 'ls', content: [{ type: 'terminal', terminalId: 't' }] }), { cwd: states.CWD, width: w, expanded: false, terminals: [term(false)], outputLines: 5 })],
  ['tool done collapsed', (w) => toolCallRows(call({ content: [states.DIFF] }), { cwd: states.CWD, width: w, expanded: false, terminals: [] })],
  ['tool done expanded', (w) => toolCallRows(call({ content: [states.DIFF] }), { cwd: states.CWD, width: w, expanded: true, terminals: [] })],
  ['tool failed', (w) => toolCallRows(call({ status: 'failed', kind: 'execute', title: 'make', content: [{ type: 'terminal', terminalId: 't' }] }), { cwd: states.CWD, width: w, expanded: false, terminals: [term(true, 2)], outputLines: 4 })],
  ['tool cancelled', (w) => toolCallRows(call({ status: 'cancelled', kind: 'delete', title: 'rm -rf build' }), { cwd: states.CWD, width: w, expanded: false, terminals: [] })],
  ['tool awaiting', (w) => toolCallRows(call({ status: 'pending' }), { cwd: states.CWD, width: w, expanded: false, terminals: [], awaiting: true, selected: true })],
  ['plan', (w) => planRows([{ content: 'Read the code', priority: 'high', status: 'completed' }, { content: 'Change it', priority: 'medium', status: 'in_progress' }, { content: 'Test it', priority: 'low', status: 'pending' }], w)],
  ['status line', (w) => [statusRow(states.baseStore().getState(), w)]],
  ['footer composer', (w) => footerRows('composer', w)],
  ['footer tools', (w) => footerRows('tools', w)],
  ['footer approval', (w) => footerRows('approval', w)],
  ['footer reason', (w) => footerRows('reason', w)],
  ['approval', (w) => approvalRows(states.approvalWithDiff(2).store.getState().permissions[1], { cwd: states.CWD, width: w, index: 1, total: 2, maxLines: 12, terminals: [] })],
  ['approval reason', (w) => approvalRows(states.approvalWithDiff(1).store.getState().permissions[0], { cwd: states.CWD, width: w, index: 0, total: 1, maxLines: 10, terminals: [], reason: 'use a const' })],
  ['approval held, typing in the draft', (w) => approvalRows(states.approvalWithDiff(1).store.getState().permissions[0], { cwd: states.CWD, width: w, index: 0, total: 1, maxLines: 14, terminals: [], armed: false, draft: 'yes and also run the app' })],
  ['approval scrolled, its position shown', (w) => approvalRows(tallApproval(), { cwd: states.CWD, width: w, index: 0, total: 1, maxLines: 16, terminals: [], scroll: 40 })],
  ['approval full screen', (w) => approvalRows(tallApproval(), { cwd: states.CWD, width: w, index: 0, total: 1, maxLines: 26, terminals: [], scroll: 110, full: true })],
  ['approval in a small room: options on one line', (w) => approvalRows(tallApproval(), { cwd: states.CWD, width: w, index: 0, total: 1, maxLines: 9, terminals: [] })],
  ['approval of an argv with newlines: one line, every operand', (w) => approvalRows(argvApproval(), { cwd: states.CWD, width: w, index: 0, total: 1, maxLines: 14, terminals: [] })],
  ['diff at line 40: true numbers, changed words, bidi marks', (w) => diffRows(diffModel(LINE40_DIFF), w)],
  ['composer empty', (w) => composerRows({ text: '', cursor: 0 }, w, 5, { active: true, placeholder: 'message the agent' })],
  ['composer multi-line', (w) => composerRows({ text: 'first line\nsecond line that is long enough to wrap at sixty columns, surely it is', cursor: 5 }, w, 5, { active: true })],
  ['markdown', (w) => markdownRows('# Title\n\nSome **bold** and `code` text that goes on for a while so that it wraps at the narrow width.\n\n- one\n  - nested item\n2. numbered\n\n```sh\nnpm test\n```', w)],
  ['notice', (w) => noticeRows('error', 'the agent exited with code 1', ['last stderr line'], w)],
  ['history user', (w) => historyRows({ kind: 'user', key: 'u', text: 'please fix the tests' }, w, states.CWD)],
  ['history thought', (w) => historyRows({ kind: 'thought', key: 't', text: 'I should read the file first.' }, w, states.CWD)],
  ['history output', (w) => historyRows({ kind: 'output', key: 'o', title: 'ls', text: 'a\nb' }, w, states.CWD)],
  ['status line, another agent with modes, usage and sandbox', (w) => [statusRow(foreign().getState(), w)]],
  ['completion commands', (w) => { const st = states.daily().getState(); return completionRows(completionAt(st, { text: '/', cursor: 1 })!, 2, w, 9); }],
  ['completion files', (w) => { const st = states.daily().getState(); return completionRows(completionAt(st, { text: '@ui', cursor: 3 })!, 0, w, 9); }],
  ['session picker', (w) => pickerRows({ sessions: states.SESSIONS, startup: false }, 0, w, 10)],
  ['transcript', (w) => transcriptRows(states.twoTurns().getState(), { selected: 1, expanded: new Set(['e2']) }, w, 14)],
  ['info block', (w) => infoRows('help', ['Commands:', '  /mode NAME          switch the session mode (Shift+Tab cycles through the modes the agent offers)'], w)],
  ['diff long lines wrap', (w) => diffRows(diffModel({ path: '/srv/proj/a.ts', oldText: `short\n${LONG}\n`, newText: `short\n${LONG.replace('quick', 'slow')}\n` }), w)],
  ['tool output long lines wrap', (w) => toolCallRows(call({ status: 'completed', kind: 'execute', title: 'cat notes', content: [{ type: 'terminal', terminalId: 't' }] }), { cwd: states.CWD, width: w, expanded: false, terminals: [{ ...term(true, 0), output: `first\n${LONG}\nlast\n` }], outputLines: 8 })],
  ['markdown long code line wraps', (w) => markdownRows(`Code:\n\n\`\`\`js\nconst s = "${LONG}";\n\`\`\``, w)],
  ['tool multi-line title', (w) => toolCallRows(call({ status: 'completed', kind: 'execute', title: 'python3 -c "\nimport os\nprint(os.getcwd())"' }), { cwd: states.CWD, width: w, expanded: false, terminals: [] })],
  ['tool location named once', (w) => toolCallRows(call({ status: 'completed', kind: 'read', title: 'app.py', locations: [{ path: '/srv/proj/app.py' }, { path: '/srv/proj/lib/util.py', line: 9 }] }), { cwd: states.CWD, width: w, expanded: false, terminals: [] })],
];

for (const [name, build] of COMPONENTS) {
  test(`component: ${name}`, async () => {
    for (const w of WIDTHS) matchSnapshot(import.meta.url, `${name} @${w}`, await show(build(w), w));
  });
}

test('a diff window numbers lines as the file does: an edit at line 40 shows 40', () => {
  const m = diffModel(LINE40_DIFF);
  const changed = m.hunks[0].lines.filter((l) => l.type !== 'ctx');
  assert.deepEqual(changed.map((l) => [l.type, l.oldLine ?? l.newLine]), [['del', 40], ['add', 40], ['add', 41]]);
  assert.equal(m.hunks[0].oldStart, 37);
  const rows = diffRows(m, 100).map((r) => r.map((x) => x.text).join(''));
  assert.ok(rows.includes('40 - const limit = total * 2;'), rows.join('\n'));
  assert.ok(rows.includes('40 + const limit = count * 2;'));
  assert.ok(rows.includes('43   line 42'), 'the lines after the change follow on');
  // without the agent saying where the window starts, it would have been numbered from 1
  assert.equal(diffModel({ ...LINE40_DIFF, _meta: undefined }).hunks[0].lines.find((l) => l.type === 'del')?.oldLine, 4);
});

test('inside a changed line only the words that changed are highlighted (inverse, so NO_COLOR shows them)', () => {
  const rows = diffRows(diffModel(LINE40_DIFF), 100);
  const hi = (sign: string) => rows.find((r) => r.some((x) => x.text === `${sign} `) && r.some((x) => x.text.includes('limit')))!.filter((x) => x.inverse).map((x) => x.text);
  assert.deepEqual(hi('-'), ['total']);
  assert.deepEqual(hi('+'), ['count']);
  // a line with nothing in common is simply added: nothing inside it is singled out
  const added = rows.find((r) => r.some((x) => x.text.includes('isAdmin')))!;
  assert.equal(added.filter((x) => x.inverse).length, 0);
});

test('bidi and zero-width characters in a diff show as marks (Trojan Source reads as what it is)', () => {
  const text = diffRows(diffModel(LINE40_DIFF), 140).map((r) => r.map((x) => x.text).join('')).join('\n');
  assert.match(text, /41 \+ if \(isAdmin\) \{ ⟨U\+202E⟩ \} ⟨U\+2066⟩\/\/ check later⟨U\+2069⟩ \{/);
  assert.doesNotMatch(text, /[\u202e\u2066\u2069]/);
  const zw = diffRows(diffModel({ path: '/p/a', oldText: 'admin\n', newText: 'ad\u200bmin\n' }), 60).map((r) => r.map((x) => x.text).join('')).join('\n');
  assert.match(zw, /1 \+ ad⟨U\+200B⟩min/);
});

test('diff summary counts and line numbers follow the text', () => {
  const m = diffModel(states.DIFF);
  assert.equal(m.added, 3);
  assert.equal(m.removed, 2);
  assert.equal(m.hunks.length, 2);
  const del = m.hunks[1].lines.find((l) => l.type === 'del');
  assert.equal(del?.oldLine, 25);
  assert.equal(del?.text, 'line 25');
});

test('control characters and escapes in agent text cannot reach the terminal', async () => {
  const f = await show(markdownRows('evil \u001B[2J\u001B]0;title\u0007 text\u0008', 60), 60);
  assert.doesNotMatch(f, /\u001B\[2J|\u0007|\u0008/);
});

test('the tail of a long streamed message is laid out exactly as the end of the whole one', () => {
  const text = ['intro', '```ts', ...Array.from({ length: 50 }, (_, i) => `code line ${i} that is long enough to wrap at forty columns`), '```', 'after', '- a', '- b'].join('\n');
  const full = markdownRows(text, 40);
  for (const k of [1, 3, 10, 53, 60]) {
    const { rows, omitted } = markdownTail(text, 40, k);
    assert.deepEqual(rows, full.slice(full.length - rows.length), `last ${k} lines`);
    assert.equal(omitted, Math.max(0, text.split('\n').length - k));
  }
  // inside a code block that is still open, the tail is still code
  const open = markdownTail(['x', '```', 'c1', 'c2', 'c3'].join('\n'), 40, 2).rows;
  assert.deepEqual(open.map((r) => r.map((sp) => sp.text).join('')), ['c2', 'c3', '└']);
});

test('long lines wrap on word boundaries and lose nothing: diffs keep their gutter, output its rule', async () => {
  const words = LONG.split(' ');
  for (const w of WIDTHS) {
    const diff = await show(diffRows(diffModel({ path: '/srv/proj/a.ts', oldText: 'x\n', newText: `${LONG}\n` }), w), w);
    const lines = diff.split('\n').filter((l) => l.trim() !== '');
    assert.match(lines[1], /^1 \+ the quick/, `the first row carries the number (${w})`);
    for (const l of lines.slice(2)) assert.match(l, /^ {2}\+ \S/, `continuations keep the gutter and sign (${w}): ${l}`);
    const text = lines.slice(1).map((l) => l.slice(4)).join(' ');
    assert.deepEqual(text.split(' '), words, `every word, in order, none split (${w})`);
    assert.doesNotMatch(diff, /…/);
    const out = await show(toolCallRows(call({ kind: 'execute', title: 'cat', content: [{ type: 'terminal', terminalId: 't' }] }), { cwd: states.CWD, width: w, expanded: false, terminals: [{ ...term(true, 0), output: `${LONG}\n` }] }), w);
    const rule = out.split('\n').filter((l) => l.startsWith('    │ '));
    assert.ok(rule.length >= (w < 140 ? 2 : 1));
    assert.deepEqual(rule.map((l) => l.slice(6)).join(' ').split(' '), words);
  }
});

test('the status line of an agent that could not start says so, not an exit code it never had', () => {
  const s = states.baseStore();
  s.agentExited({ code: null, signal: null, stderrTail: [], error: 'spawn no-such-agent ENOENT' });
  assert.match(statusRow(s.getState(), 100).map((x) => x.text).join(''), /^cxl \(could not start\) · /);
  const c = states.baseStore();
  c.agentExited({ code: 3, signal: null, stderrTail: [] });
  assert.match(statusRow(c.getState(), 100).map((x) => x.text).join(''), /^cxl \(exited 3\) · /);
});

test('context use reads as people say it', () => {
  assert.equal(usageText(13440, 32768), '41% of 32k');
  assert.equal(usageText(0, 128_000), '0% of 128k');
  assert.equal(usageText(1_500_000, 1_000_000), '150% of 1M');
  assert.equal(tokenCount(131_072), '128k');
  assert.equal(tokenCount(200_000), '200k');
  assert.equal(tokenCount(1_048_576), '1M');
  assert.equal(tokenCount(1_500_000), '1.5M');
  assert.equal(tokenCount(512), '512');
});

test('a long working directory gives up its start before the status line loses the session id', () => {
  const cwd = '/srv/builds/a-rather-long-checkout-directory-name/of/a/project/deep/inside/app';
  const s = new ClientStore({ label: 'cxl acp', builtin: true, cwd, model: 'qwen3:8b', envelope: 'default', settleMs: 0 });
  s.agentReady({ name: 'cxl', version: '0.1.0' });
  s.sessionStarted('a1b2c3d4e5f6', { mode: 'default' });
  const full = statusRow(s.getState(), 400).map((x) => x.text).join('');
  assert.ok(full.includes(cwd) && full.endsWith('session a1b2c3d4e5f6'), full);
  const line = statusRow(s.getState(), 100).map((x) => x.text).join('');
  assert.ok(line.endsWith('session a1b2c3d4e5f6'), line);
  // cut at a directory boundary, never inside a name
  assert.match(line, / · …\/[^ ]*\/inside\/app · session/);
  assert.ok(line.length <= 100, `${line.length} columns`);
  // too narrow for the row even so: the directory goes, then the words `model` and `envelope`;
  // the session id (for `cxl --resume ID`) stays whole
  const narrow = statusRow(s.getState(), 60).map((x) => x.text).join('');
  assert.equal(narrow, 'cxl · qwen3:8b · default · session a1b2c3d4e5f6');
});

test('at 100 columns the directory gives way (at a `/`, then whole) before the sandbox or the session id', () => {
  const cwd = '/home/someone/src/the-app';
  const s = new ClientStore({ label: 'cxl acp', builtin: true, cwd, model: 'qwen3:14b', envelope: 'default', settleMs: 0 });
  s.agentReady({ name: 'cxl', version: '0.1.0' });
  s.sessionStarted('0192f3a1-7b2c-7d3e-8f40-5a6b7c8d9c4e', { mode: 'default' });
  s.applyUpdate({ sessionUpdate: 'usage_update', used: 13_000, size: 32_768 });
  const line = statusRow(s.getState(), 100, (p) => p).map((x) => x.text).join('');
  assert.ok(line.length <= 100, `${line.length} columns: ${line}`);
  assert.ok(line.endsWith(' · …/src/the-app · session 0192f3a1…9c4e'), `cut at a directory boundary: ${line}`);
  s.setSandbox({ state: 'bubblewrap' });
  const boxed = statusRow(s.getState(), 100, (p) => p).map((x) => x.text).join('');
  assert.ok(boxed.length <= 100, boxed);
  assert.ok(boxed.endsWith(' · 40% of 32k · sandbox bubblewrap · session 0192f3a1…9c4e'), `the directory went, the sandbox and the id stay: ${boxed}`);
});
