// The toolset surface: the ten specs, argument checking and coercion, tool names, approvals
// for read-approve paths, _allowed_dir, and errors as stable codes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ERROR_CODES } from '../../../src/core/errors.ts';
import { LOCAL_FS_TOOLS } from '../../../src/core/local_fs/toolset.ts';
import { qualifiedName } from '../../../src/core/tool.ts';
import { expectCode, readText, toolset, tree } from '../fs_helpers.ts';

test('ten tools with schemas, short and long descriptions, kinds', () => {
  const ts = toolset(tree());
  const specs = ts.list();
  assert.deepEqual(specs.map(qualifiedName), [
    'local_fs.read_file', 'local_fs.read_file_range', 'local_fs.write_file', 'local_fs.edit_file', 'local_fs.sed',
    'local_fs.list_dir', 'local_fs.grep', 'local_fs.find_files', 'local_fs.stat_file', 'local_fs.count_stats',
  ]);
  const kinds = Object.fromEntries(specs.map((s) => [s.name, s.kind]));
  assert.deepEqual(kinds, { read_file: 'read', read_file_range: 'read', write_file: 'edit', edit_file: 'edit', sed: 'edit', list_dir: 'read', grep: 'search', find_files: 'search', stat_file: 'read', count_stats: 'read' });
  for (const s of specs) {
    assert.equal(s.inputSchema.type, 'object');
    assert.equal(s.inputSchema.additionalProperties, false);
    assert.ok(s.description.length > 20 && s.description.length < 120, `${s.name}: ${s.description.length}`);
    assert.ok((s.longDescription ?? '').length > s.description.length);
    for (const r of s.inputSchema.required ?? []) assert.ok(r in s.inputSchema.properties);
  }
  const long = toolset(tree(), { _long_descriptions: 'true' }).list();
  assert.deepEqual(long.map((s) => s.description), LOCAL_FS_TOOLS.map((t) => t.longDescription));
});

test('unknown arguments list the allowed ones; types are coerced leniently or refused', async () => {
  const root = tree({ 'f.txt': 'a\nb\nc\n' });
  const ts = toolset(root);
  const msg = await expectCode(ts, 'read_file', { path: 'f.txt', lines: 3 }, 'bad_args');
  assert.match(msg, /unknown argument `lines`\. Allowed: path, start_line, end_line, force/);
  assert.equal(await ts.call('read_file_range', { path: 'f.txt', start_line: ' 2 ', end_line: 2 }), 'b\n');
  await expectCode(ts, 'read_file_range', { path: 'f.txt', start_line: 'two' }, 'bad_args');
  await expectCode(ts, 'read_file_range', { path: 'f.txt', start_line: 1.5 }, 'bad_args');
  await expectCode(ts, 'read_file', { path: 'f.txt', force: 'maybe' }, 'bad_args');
  await expectCode(ts, 'read_file', { path: ['f.txt'] }, 'bad_args');
  await expectCode(ts, 'read_file', {}, 'bad_args');
  await expectCode(ts, 'read_file', null as unknown as Record<string, unknown>, 'bad_args');
  assert.equal(readText(root, 'f.txt'), 'a\nb\nc\n');
  // a number for a string argument is taken as its text
  await ts.call('write_file', { path: 'n.txt', content: 12 });
  assert.equal(readText(root, 'n.txt'), '12');
});

test('tool names: bare or qualified; an unknown tool is unknown_tool', async () => {
  const ts = toolset(tree({ 'f': 'x' }));
  assert.equal(await ts.call('local_fs.read_file', { path: 'f' }), 'x');
  await expectCode(ts, 'rm_rf', {}, 'unknown_tool');
  await expectCode(ts, 'local_shell.run', {}, 'unknown_tool');
});

test('read-approve paths: refuse (approval_required), allow, or ask a human (yes / no → rejected)', async () => {
  const root = tree({ '.env': 'K=V\n', 'tls.key': 'k\n' });
  await expectCode(toolset(root), 'read_file', { path: '.env' }, 'approval_required');
  assert.equal(await toolset(root, {}, { approvals: 'allow' }).call('read_file', { path: '.env' }), 'K=V\n');
  await expectCode(toolset(root, {}, { approvals: 'ask' }), 'read_file', { path: '.env' }, 'approval_required');
  const asked: unknown[] = [];
  const yes = toolset(root, {}, { approvals: 'ask', ask: async (r) => (asked.push(r), true) });
  assert.equal(await yes.call('read_file', { path: 'tls.key' }), 'k\n');
  assert.deepEqual(asked, [{ tool: 'read_file', path: 'tls.key', reason: 'matches the read-approve list (.env, *.pem, *.key)' }]);
  await expectCode(toolset(root, {}, { approvals: 'ask', ask: async () => false }), 'read_file', { path: '.env' }, 'rejected');
  // quarantine is never askable
  await expectCode(toolset(tree({ 'id_rsa': 'k' }), {}, { approvals: 'allow' }), 'read_file', { path: 'id_rsa' }, 'quarantined');
});

test('_allowed_dir moves the root (relative to the session cwd); paths outside it escape', async () => {
  const root = tree({ 'sub/in.txt': 'in\n', 'top.txt': 'top\n' });
  const ts = toolset(root, { _allowed_dir: 'sub' });
  assert.equal(await ts.call('read_file', { path: 'in.txt' }), 'in\n');
  await expectCode(ts, 'read_file', { path: '../top.txt' }, 'escape');
});

test('every failure is a ToolError with a listed code, and a cancelled signal stops the call', async () => {
  const ts = toolset(tree({ 'f': 'x' }));
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(ts.call('grep', { path: '.', pattern: 'x' }, { signal: ac.signal }), { code: 'cancelled' });
  for (const [tool, args] of [['read_file', { path: '\u0000' }], ['grep', { path: '.' }], ['stat_file', { path: 'zz' }]] as const) {
    await assert.rejects(ts.call(tool, args), (e: { code: string }) => (ERROR_CODES as readonly string[]).includes(e.code));
  }
});
