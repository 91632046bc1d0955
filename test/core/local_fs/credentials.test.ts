// Every credential store the table names, as a real file in a workspace: read_file and stat
// refuse it, write_file cannot overwrite it, and no traversal shows its name or its content.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expectCode, toolset, tree } from '../fs_helpers.ts';
import { NEW_CREDENTIALS } from '../credential_paths.ts';

const relative = NEW_CREDENTIALS.filter((p) => !p.startsWith('/') && !p.startsWith('home/'));

test('each new credential path is refused by the file tools and hidden from traversals', async () => {
  const entries: Record<string, string> = { 'src/ok.ts': 'TOKEN_NEEDLE in code' };
  for (const p of relative) entries[p] = 'TOKEN_NEEDLE=secret\n';
  const root = tree(entries);
  const ts = toolset(root, {}, { grepEngine: 'builtin' });
  for (const p of relative) {
    await expectCode(ts, 'read_file', { path: p }, 'quarantined');
    await expectCode(ts, 'stat_file', { path: p }, 'quarantined');
    await expectCode(ts, 'write_file', { path: p, content: 'x' }, 'quarantined');
  }
  assert.equal(String(await ts.call('grep', { path: '.', pattern: 'TOKEN_NEEDLE' })), 'src/ok.ts:1: TOKEN_NEEDLE in code');
  const listed = String(await ts.call('list_dir', { recursive: true, max_depth: 6 })).split('\n');
  for (const p of relative) assert.ok(!listed.includes(p), `listed ${p}`);
  const found = (await ts.call('find_files', { pattern: '**/*' })) as { matches: string[] };
  assert.deepEqual(found.matches, ['src/ok.ts']);
});
