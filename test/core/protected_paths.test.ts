// The one table of protected paths: every consumer's list is a tier of it, each entry explains
// itself, and the names the sandbox acts on (`at`) are matched by their own entry's glob.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FLOOR_RULES, SHIPPED_ENVELOPES, WRITE_WALL_GLOBS } from '../../src/core/envelopes_shipped.ts';
import { globTester } from '../../src/core/glob.ts';
import { entriesOf, globsOf, PROTECTED_PATHS, TIERS } from '../../src/core/protected_paths.ts';
import { QUARANTINE_GLOBS, READ_APPROVE_GLOBS } from '../../src/core/quarantine.ts';

test('every entry has a known tier, a glob and a reason; no glob is listed twice', () => {
  const seen = new Set<string>();
  for (const e of PROTECTED_PATHS) {
    assert.ok(TIERS.includes(e.tier), `${e.glob}: tier ${e.tier}`);
    assert.ok(e.glob.startsWith('**/'), `${e.glob}: matches at any depth`);
    assert.ok(e.reason.length > 10, `${e.glob}: says why`);
    const key = `${e.tier} ${e.glob.toLowerCase()}`;
    assert.ok(!seen.has(key), `${e.glob} listed twice in ${e.tier}`);
    seen.add(key);
  }
});

test('the quarantine, read-approve and write-wall lists are tiers of the table, in its order', () => {
  assert.deepEqual([...QUARANTINE_GLOBS], entriesOf('quarantine').map((e) => e.glob));
  assert.deepEqual([...READ_APPROVE_GLOBS], entriesOf('read_approve').map((e) => e.glob));
  assert.deepEqual([...WRITE_WALL_GLOBS], entriesOf('write_wall').map((e) => e.glob));
  assert.deepEqual(globsOf('always_ask'), entriesOf('always_ask').map((e) => e.glob));
  assert.deepEqual(SHIPPED_ENVELOPES.default.files?.read?.approve_paths, [...READ_APPROVE_GLOBS]);
});

test('the envelope floor holds every quarantine entry for every tool and every wall entry for writers, with its reason', () => {
  for (const e of entriesOf('quarantine')) {
    const r = FLOOR_RULES.find((x) => x.path === e.glob);
    assert.ok(r, e.glob);
    assert.equal(r.tool, '*');
    assert.match(r.reason ?? '', new RegExp(`^credential quarantine: ${e.reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  }
  for (const e of entriesOf('write_wall')) {
    const r = FLOOR_RULES.find((x) => x.path === e.glob);
    assert.ok(r, e.glob);
    assert.ok(Array.isArray(r.tool) && r.tool.includes('local_fs.write_file') && r.tool.includes('local_shell'));
    assert.ok(!r.tool.includes('local_fs.read_file'), 'the wall does not stop reads');
  }
  assert.equal(FLOOR_RULES.length, entriesOf('quarantine').length + entriesOf('write_wall').length);
});

test('each name the sandbox acts on is matched by its own entry, under $HOME and under the root', () => {
  for (const e of PROTECTED_PATHS) {
    const hit = globTester([e.glob]);
    for (const name of e.at ?? []) {
      assert.ok(hit(name), `${e.glob} matches ${name}`);
      assert.ok(hit(`/home/u/${name}`), `${e.glob} matches /home/u/${name}`);
      assert.ok(!name.startsWith('/') && !name.includes('..') && !/[*?{}[\]]/.test(name), `${name} is a plain relative name`);
    }
  }
});

test('the file-tool wall covers all of .git, but the names the sandbox re-protects inside it are hooks and config only', () => {
  const git = PROTECTED_PATHS.filter((e) => e.tier === 'write_wall' && e.glob.includes('.git/'));
  assert.ok(git.some((e) => e.glob === '**/.git/**' && e.at === undefined), 'an approved commit may still write .git/objects');
  assert.deepEqual(git.flatMap((e) => e.at ?? []).sort(), ['.git/config', '.git/hooks']);
});
