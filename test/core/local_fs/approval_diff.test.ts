// The approval diff: windowed around the change yet identical to a whole-file diff, caps and
// markers, new files, no-change, unsafe cases without a diff, and no side effects on the ledger.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { structuredPatch } from 'diff';
import { buildApprovalDiff, DIFF_MAX_LINES } from '../../../src/core/local_fs/approval_diff.ts';
import { WorkspaceFileIO } from '../../../src/core/local_fs/file_io.ts';
import { confine } from '../../../src/core/paths.ts';
import { toolset, tree } from '../fs_helpers.ts';

const numbered = (n: number, f = (i: number) => `line ${i}`) => Array.from({ length: n }, (_, i) => f(i + 1)).join('\n') + '\n';

/** The whole-file unified diff the windowed one must equal. */
function fullDiff(rel: string, a: string, b: string): string {
  const p = structuredPatch(`a/${rel}`, `b/${rel}`, a, b, undefined, undefined, { context: 3 });
  const out = [`--- a/${rel}`, `+++ b/${rel}`];
  for (const h of p.hunks) out.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines);
  return out.join('\n');
}

async function diffFor(root: string, tool: 'write_file' | 'edit_file' | 'sed', args: Record<string, unknown>) {
  return buildApprovalDiff(new WorkspaceFileIO(root), confine(root, String(args.path)), tool, args);
}

test('an edit deep in a file: ±3 context, real line numbers, same as diffing the whole file', async () => {
  const text = numbered(1000);
  const root = tree({ 'f.txt': text });
  const d = await diffFor(root, 'edit_file', { path: 'f.txt', old_string: 'line 500\n', new_string: 'LINE 500\nadded\n' });
  assert.equal(d.diff, ['--- a/f.txt', '+++ b/f.txt', '@@ -497,7 +497,8 @@', ' line 497', ' line 498', ' line 499', '-line 500', '+LINE 500', '+added', ' line 501', ' line 502', ' line 503'].join('\n'));
  assert.equal(d.diff, fullDiff('f.txt', text, text.replace('line 500\n', 'LINE 500\nadded\n')));
  assert.equal(d.startLine, 497);
  assert.equal(d.isNew, false);
  // only the window around the change was decoded and diffed, not the 1000-line file
  const window = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}\n`).join('');
  assert.equal(d.oldText, window(497, 503));
  assert.equal(d.newText, window(497, 503).replace('line 500\n', 'LINE 500\nadded\n'));
});

test('windowed diffs equal whole-file diffs across random edits, sed windows and rewrites', async () => {
  let seed = 42;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  for (let k = 0; k < 40; k++) {
    const n = 5 + rand(300);
    const text = numbered(n, (i) => `v${i % 7} ${i}`) + (rand(2) ? 'no newline at end' : '');
    const root = tree({ 'f.txt': text });
    const li = 1 + rand(n);
    const target = `v${li % 7} ${li}\n`;
    const repl = rand(2) ? '' : 'X\nY\n';
    const d = await diffFor(root, 'edit_file', { path: 'f.txt', old_string: target, new_string: repl });
    assert.equal(d.diff, fullDiff('f.txt', text, text.replace(target, repl)), `case ${k}`);
    const s = await diffFor(root, 'sed', { path: 'f.txt', pattern: 'v3', replacement: 'w3', all: true, start_line: 2, end_line: Math.min(n, 40) });
    if (s.diff !== null) {
      const lines = text.split('\n');
      for (let i = 1; i < Math.min(n, 40); i++) lines[i] = lines[i].replaceAll('v3', 'w3');
      assert.equal(s.diff, fullDiff('f.txt', text, lines.join('\n')), `sed case ${k}`);
    }
    const w = await diffFor(root, 'write_file', { path: 'f.txt', content: text.slice(0, Math.floor(text.length / 2)) + 'tail\n' });
    if (!w.diff?.includes('(diff truncated)')) assert.equal(w.diff, fullDiff('f.txt', text, text.slice(0, Math.floor(text.length / 2)) + 'tail\n'), `write case ${k}`);
  }
});

test('windowed diffs equal whole-file diffs: start, middle, end, no final newline, CRLF, replace_all, multi-line, lines added and removed', async () => {
  const lf = numbered(2000);
  const bare = lf.slice(0, -1); // no newline at the end
  const crlf = lf.replaceAll('\n', '\r\n');
  const keyed = numbered(2000, (i) => (i === 100 || i === 103 || i === 110 ? `key = 1 (${i})` : `line ${i}`));
  // the expected text: the one replacement unless a row says otherwise
  const cases: [string, string, { old_string: string; new_string: string; replace_all?: boolean }, ((t: string) => string)?][] = [
    ['first line', lf, { old_string: 'line 1\n', new_string: 'first\n' }],
    ['second line', lf, { old_string: 'line 2\n', new_string: 'second\n' }],
    ['middle', lf, { old_string: 'line 1000\n', new_string: 'middle\n' }],
    ['last line', lf, { old_string: 'line 2000\n', new_string: 'last\n' }],
    ['last line, no final newline', bare, { old_string: 'line 2000', new_string: 'the end' }],
    ['near the end, no final newline', bare, { old_string: 'line 1998\n', new_string: 'x\n' }],
    ['a final newline added', bare, { old_string: 'line 2000', new_string: 'line 2000\n' }, (t) => `${t}\n`],
    ['a final newline removed', lf, { old_string: 'line 2000\n', new_string: 'line 2000' }, (t) => t.slice(0, -1)],
    ['CRLF', crlf, { old_string: 'line 500\r\n', new_string: 'x\r\ny\r\n' }],
    ['CRLF, inside a line', crlf, { old_string: 'ne 77\r', new_string: 'NE 77\r' }],
    ['replace_all, three occurrences', keyed, { old_string: 'key = 1', new_string: 'key = 2', replace_all: true }, (t) => t.replaceAll('key = 1', 'key = 2')],
    ['multi-line old_string, lines removed', lf, { old_string: 'line 700\nline 701\nline 702\n', new_string: 'merged\n' }],
    ['lines added', lf, { old_string: 'line 300\n', new_string: 'a\nb\nc\nd\n' }],
    ['lines removed, nothing in their place', lf, { old_string: 'line 301\nline 302\n', new_string: '' }],
    ['the first three lines removed', lf, { old_string: 'line 1\nline 2\nline 3\n', new_string: '' }],
    ['the last line removed, no final newline', bare, { old_string: '\nline 2000', new_string: '' }],
    ['a line joined with the next', lf, { old_string: 'line 40\n', new_string: 'line 40 ' }],
    ['a line split in two', lf, { old_string: 'line 41\n', new_string: 'line\n41\n' }],
    ['replacing the start of a line', lf, { old_string: 'line 45\nli', new_string: 'L' }],
    ['ending mid-line before, at a line end after', lf, { old_string: '42\nline 43', new_string: '42\n' }],
  ];
  for (const [what, text, args, apply = (t: string) => t.replace(args.old_string, args.new_string)] of cases) {
    const root = tree({ 'f.txt': text });
    const d = await diffFor(root, 'edit_file', { path: 'f.txt', ...args });
    const want = fullDiff('f.txt', text, apply(text));
    assert.ok(want.includes('@@'), `${what}: the oracle shows a change`);
    assert.equal(d.diff, want, what);
  }
});

test('new files show as additions; identical content says (no changes)', async () => {
  const root = tree({ 'same.txt': 'a\nb\n' });
  const n = await diffFor(root, 'write_file', { path: 'dir/new.txt', content: 'x\ny\n' });
  assert.equal(n.isNew, true);
  assert.equal(n.diff, '--- /dev/null\n+++ b/dir/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y');
  assert.equal((await diffFor(root, 'write_file', { path: 'same.txt', content: 'a\nb\n' })).diff, '(no changes)');
  assert.equal(fs.existsSync(path.join(root, 'dir')), false, 'building the diff writes nothing');
});

test('caps: at most 120 hunk lines then a marker; each side cut to 500 lines', async () => {
  const root = tree({ 'f.txt': numbered(2000), 'g.txt': numbered(2000, (i) => `k ${i}`) });
  const many = await diffFor(root, 'write_file', { path: 'f.txt', content: numbered(2000, (i) => `changed ${i}`) });
  const lines = many.diff!.split('\n');
  assert.equal(lines.at(-1), '... (diff truncated)');
  assert.equal(lines.filter((l) => /^[ +-]/.test(l) && !l.startsWith('---') && !l.startsWith('+++')).length, DIFF_MAX_LINES);
  const big = await diffFor(root, 'sed', { path: 'g.txt', pattern: 'k ', replacement: 'K ', all: true });
  assert.ok(big.diff!.endsWith('... (diff truncated)'));
  assert.ok(big.oldText!.split('\n').length <= 501);
  const newFile = await diffFor(root, 'write_file', { path: 'n.txt', content: numbered(700) });
  assert.ok(newFile.diff!.endsWith('... (diff truncated)'));
  assert.equal(newFile.diff!.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++')).length, DIFF_MAX_LINES);
});

test('no diff when it cannot be built safely: binary, missing, a mutation that would fail, bad args', async () => {
  const root = tree({ 'b.bin': Buffer.from([0, 1, 2]), 't.txt': 'one\none\n' });
  for (const [tool, args, why] of [
    ['edit_file', { path: 'b.bin', old_string: 'a', new_string: 'b' }, /binary/],
    ['edit_file', { path: 'missing.txt', old_string: 'a', new_string: 'b' }, /could not be read/],
    ['edit_file', { path: 't.txt', old_string: 'one', new_string: 'two' }, /would fail: .*occurs 2 times/],
    ['sed', { path: 't.txt', pattern: 'zzz', replacement: 'y' }, /would fail/],
    ['write_file', { path: 't.txt' }, /content.*required/],
  ] as const) {
    const d = await diffFor(root, tool, args);
    assert.equal(d.diff, null, JSON.stringify(args));
    assert.match(d.reason ?? '', why);
  }
});

test('building a diff bypasses and leaves the ledger alone', async () => {
  const root = tree({ 'f.txt': 'a\n' });
  const ts = toolset(root);
  await ts.call('read_file', { path: 'f.txt' });
  const before = JSON.stringify(ts.ledger.toJSON().entries);
  fs.writeFileSync(path.join(root, 'f.txt'), 'changed on disk\n');
  const d = await buildApprovalDiff(ts.io, await ts.resolve('write_file', 'f.txt'), 'write_file', { path: 'f.txt', content: 'mine\n' });
  assert.equal(d.diff, '--- a/f.txt\n+++ b/f.txt\n@@ -1,1 +1,1 @@\n-changed on disk\n+mine', 'the diff is built from the current disk, not the read');
  assert.equal(JSON.stringify(ts.ledger.toJSON().entries), before);
});

test('a big file read into the scan arena gives the diff its own read gives; diffs at once each get theirs', async () => {
  // 200,000 lines (~4 MB): read into the arena and scanned there when it is free
  const a = numbered(200_000, (i) => `line ${i} of a`);
  const b = numbered(150_000, (i) => `line ${i} of b`);
  const root = tree({ 'a.txt': a, 'b.txt': b });
  const io = new WorkspaceFileIO(root);
  const editA = { path: 'a.txt', old_string: 'line 150000 of a\n', new_string: 'LINE 150000\n' };
  const editB = { path: 'b.txt', old_string: 'line 7 of b\n', new_string: '' };
  const wantA = fullDiff('a.txt', a, a.replace(editA.old_string, editA.new_string));
  const wantB = fullDiff('b.txt', b, b.replace(editB.old_string, editB.new_string));
  assert.equal((await diffFor(root, 'edit_file', editA)).diff, wantA);
  // from a snapshot the caller read (no arena): the same
  const snap = await io.read(confine(root, 'a.txt'), { maxBytes: 1 << 30 });
  assert.equal((await buildApprovalDiff(io, confine(root, 'a.txt'), 'edit_file', editA, snap)).diff, wantA);
  // two at once: one holds the arena while the other reads into its own buffer
  for (let round = 0; round < 3; round++) {
    const [da, db, dn] = await Promise.all([diffFor(root, 'edit_file', editA), diffFor(root, 'edit_file', editB), diffFor(root, 'edit_file', { ...editA, old_string: 'not there' })]);
    assert.equal(da.diff, wantA, `round ${round}: a`);
    assert.equal(db.diff, wantB, `round ${round}: b`);
    assert.equal(dn.diff, null);
  }
  // a needle twice (not unique) is found in the arena as outside it
  const twice = await diffFor(root, 'edit_file', { path: 'a.txt', old_string: 'of a\nline 2', new_string: 'x' });
  assert.match(twice.reason ?? '', /occurs \d+ times/);
});
