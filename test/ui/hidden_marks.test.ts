import './env.ts';
// Approvals mark every hidden character (core/hidden_text.ts), in a command's steps and in a
// diff's lines alike, and an agent's answer shows them marked: each class of hidden character
// through the approval's body and the markdown renderer, with ordinary Unicode beside them
// shown as it is.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PendingPermission } from '../../src/client/state.ts';
import { hasHidden } from '../../src/core/hidden_text.ts';
import { approvalBody } from '../../src/ui/approval_rows.ts';
import { markdownRows } from '../../src/ui/markdown.ts';
import type { Row } from '../../src/ui/text_layout.ts';
import { HIDDEN_CASES, ORDINARY } from '../helpers/hidden_cases.ts';

const CWD = '/srv/proj';
const text = (rows: Row[]) => rows.map((r) => r.map((s) => s.text).join('')).join('\n');
const mark = (cp: number) => `⟨U+${cp.toString(16).toUpperCase().padStart(4, '0')}⟩`;

/** An approval asked about writing `line` into a file, and about running `echo line`. */
function asked(line: string): { diff: PendingPermission; command: PendingPermission } {
  const call = (id: string, extra: object) => ({ id, title: id, kind: 'edit' as const, status: 'pending' as const, content: [], locations: [], ...extra });
  return {
    diff: { key: 'd', sessionId: 's', options: [], call: call('write', { content: [{ type: 'diff', path: `${CWD}/notes.md`, oldText: 'first\nsecond\n', newText: `first\n${line}\n` }] }) },
    command: { key: 'c', sessionId: 's', options: [], call: call('run', { kind: 'execute', rawInput: { command: 'echo', args: [line] } }) },
  };
}

describe('an approval marks each class of hidden character, in its diff and its command', () => {
  for (const c of HIDDEN_CASES) {
    test(c.what, () => {
      const p = asked(c.text);
      const diff = text(approvalBody(p.diff, { cwd: CWD, width: 200, terminals: [] }));
      for (const cp of c.codePoints) assert.ok(diff.includes(mark(cp)), `the diff marks U+${cp.toString(16)}: ${diff}`);
      assert.equal(hasHidden(diff, '\n'), false, 'nothing hidden is left in the diff');
      const command = text(approvalBody(p.command, { cwd: CWD, width: 200, terminals: [] }));
      assert.match(command, /\$ echo \$'/, 'the step is its escaped argv');
      assert.equal(hasHidden(command, '\n'), false, 'nothing hidden is left in the command');
      const answer = text(markdownRows(`Done: ${c.text}`, 200));
      assert.equal(hasHidden(answer, '\n'), false, 'nothing hidden is left in an answer');
    });
  }
  test('ordinary Unicode is shown as it is', () => {
    for (const o of ORDINARY) {
      const p = asked(o.text);
      assert.ok(text(approvalBody(p.diff, { cwd: CWD, width: 200, terminals: [] })).includes(`+ ${o.text}`), o.what);
      assert.ok(text(approvalBody(p.command, { cwd: CWD, width: 200, terminals: [] })).includes(o.text), o.what);
      assert.ok(text(markdownRows(`Done: ${o.text}`, 200)).includes(o.text), o.what);
    }
  });
});
