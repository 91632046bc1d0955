// The one table of protected paths: every consumer's list is a tier of it, each entry explains
// itself (and a credential store names its source), the names the sandbox acts on (`at`) are
// matched by their own entry's glob, and the docs list exactly the table.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { test } from 'node:test';
import { describeProtectedPaths } from '../../../src/cli/config.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES, WRITE_WALL_GLOBS } from '../../../src/core/envelope/shipped.ts';
import { globTester } from '../../../src/core/glob.ts';
import { entriesOf, FOUND_ON_DISK, globsOf, matchGlob, ownDataGlob, PROTECTED_PATHS, RUNTIME_DIR_ROW, SERVICE_SOCKETS, shownPattern, TIERS } from '../../../src/core/protect/table.ts';
import { ALWAYS_ASK_GLOBS, PathMatcher, QUARANTINE_GLOBS, READ_APPROVE_GLOBS } from '../../../src/core/protect/matcher.ts';
import { repoRoot } from '../../helpers/cxl.ts';

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

test('every credential store and every always-ask entry says where it comes from', () => {
  for (const e of [...entriesOf('quarantine'), ...entriesOf('always_ask')]) assert.ok((e.source ?? '').length > 5, `${e.glob}: source`);
});

test('the quarantine, read-approve, write-wall and always-ask lists are tiers of the table, in its order', () => {
  const own = ownDataGlob(process.env);
  assert.deepEqual([...QUARANTINE_GLOBS], [...entriesOf('quarantine').map((e) => matchGlob(e)), ...(own === null ? [] : [own])]);
  assert.deepEqual([...READ_APPROVE_GLOBS], entriesOf('read_approve').map((e) => matchGlob(e)));
  assert.deepEqual([...WRITE_WALL_GLOBS], entriesOf('write_wall').map((e) => matchGlob(e)));
  assert.deepEqual([...ALWAYS_ASK_GLOBS], entriesOf('always_ask').map((e) => matchGlob(e)));
  assert.deepEqual(globsOf('always_ask'), ALWAYS_ASK_GLOBS);
  assert.ok(ALWAYS_ASK_GLOBS.length >= 10, 'the always-ask tier is filled');
  assert.deepEqual(SHIPPED_ENVELOPES.default.files?.read?.approve_paths, [...READ_APPROVE_GLOBS]);
});

test('the envelope floor holds every quarantine entry for every tool, every wall and always-ask entry for writers, with its reason', () => {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const e of entriesOf('quarantine')) {
    const r = FLOOR_RULES.find((x) => x.path === matchGlob(e));
    assert.ok(r, e.glob);
    assert.equal(r.tool, '*');
    assert.ok(!r.ask);
    assert.match(r.reason ?? '', new RegExp(`^credential quarantine: ${esc(e.reason)}$`));
  }
  for (const [tier, prefix, ask] of [['write_wall', 'write wall', undefined], ['always_ask', 'always ask', true]] as const) {
    for (const e of entriesOf(tier)) {
      const r = FLOOR_RULES.find((x) => x.path === matchGlob(e) && x.ask === ask);
      assert.ok(r, e.glob);
      assert.ok(Array.isArray(r.tool) && r.tool.includes('local_fs.write_file') && r.tool.includes('local_fs.edit_file') && r.tool.includes('local_shell'));
      assert.ok(!r.tool.includes('local_fs.read_file'), 'neither stops reads');
      assert.match(r.reason ?? '', new RegExp(`^${prefix}: ${esc(e.reason)}$`));
    }
  }
  assert.equal(FLOOR_RULES.length, PROTECTED_PATHS.length - entriesOf('read_approve').length);
});

test('each name the sandbox acts on is matched by its own entry, under $HOME and under the root', () => {
  for (const e of PROTECTED_PATHS) {
    const hit = globTester([e.glob]);
    const anchored = globTester([matchGlob(e, '/home/u')]);
    for (const name of e.at ?? []) {
      assert.ok(hit(name), `${e.glob} matches ${name}`);
      assert.ok(anchored(`/home/u/${name}`), `${e.glob} matches /home/u/${name}`);
      assert.ok(!name.startsWith('/') && !name.includes('..') && !/[*?{}[\]]/.test(name), `${name} is a plain relative name`);
    }
  }
});

test('a home entry is anchored at $HOME: ~/.yarnrc.yml is quarantined, a project .yarnrc.yml is an always-ask write; ~/bin asks, a project bin/ is ordinary', () => {
  const home = '/home/u';
  const m = new PathMatcher(globsOf('quarantine', home), globsOf('read_approve', home), globsOf('always_ask', home));
  assert.equal(m.classify('/home/u/.yarnrc.yml'), 'quarantined');
  assert.equal(m.classify('/HOME/U/.YARNRC.YML'), 'quarantined');
  for (const p of ['/home/u/proj/.yarnrc.yml', '.yarnrc.yml', 'proj/.yarnrc.yml', '/home/uu/.yarnrc.yml', '/x/home/u2/.yarnrc.yml']) assert.equal(m.classify(p), null, p);
  assert.ok(m.alwaysAsk('/home/u/proj/.yarnrc.yml'));
  assert.ok(m.alwaysAsk('/home/u/bin/tool'));
  for (const p of ['/home/u/proj/bin/tool', 'bin/tool', 'src/bin/x.ts']) assert.ok(!m.alwaysAsk(p), p);
  // a home path with glob characters is matched literally
  assert.equal(matchGlob(entriesOf('quarantine').find((e) => e.home)!, '/home/a[b]'), '**/home/a\\[b\\]/.yarnrc.yml');
  assert.ok(globTester([matchGlob(entriesOf('quarantine').find((e) => e.home)!, '/home/a[b]')])('/home/a[b]/.yarnrc.yml'));
  assert.ok(!globTester([matchGlob(entriesOf('quarantine').find((e) => e.home)!, '/home/a[b]')])('/home/ab/.yarnrc.yml'));
});

test('the file-tool wall covers all of .git, but the names the sandbox re-protects inside it are hooks and config only', () => {
  const git = PROTECTED_PATHS.filter((e) => e.tier === 'write_wall' && e.glob.includes('.git/'));
  assert.ok(git.some((e) => e.glob === '**/.git/**' && e.at === undefined), 'an approved commit may still write .git/objects');
  assert.deepEqual(git.flatMap((e) => e.at ?? []).sort(), ['.git/config', '.git/hooks']);
});

/** The docs table, as docs/local-fs.md must hold it between its markers. */
function docsTable(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const rows = [
    ...PROTECTED_PATHS.map((e) => `| ${e.tier} | \`${cell(shownPattern(e))}\` | ${cell(e.reason)} | ${cell(e.source ?? '')} |`),
    ...FOUND_ON_DISK.map((f) => `| ${f.tier} | ${cell(f.pattern)} | ${cell(f.reason)} | found on disk |`),
  ];
  return ['| tier | pattern | why | source |', '|---|---|---|---|', ...rows].join('\n');
}

test('docs/local-fs.md lists exactly the table (regenerate the block from this test when the table changes)', () => {
  const doc = fs.readFileSync(path.join(repoRoot, 'docs', 'local-fs.md'), 'utf8');
  const m = /<!-- protected-paths:start -->\n([\s\S]*?)\n<!-- protected-paths:end -->/.exec(doc);
  assert.ok(m, 'docs/local-fs.md has the protected-paths block');
  assert.equal(m[1], docsTable());
});

test('cxl config prints every entry: tier, pattern, reason and source; and what the sandbox hides where services listen', () => {
  const lines = describeProtectedPaths();
  for (const e of PROTECTED_PATHS) assert.ok(lines.some((l) => l.includes(e.tier) && l.includes(shownPattern(e)) && l.includes(e.reason) && l.includes(e.source ?? '')), e.glob);
  for (const f of FOUND_ON_DISK) assert.ok(lines.some((l) => l.includes(f.pattern)), f.pattern);
  for (const s of SERVICE_SOCKETS) assert.ok(lines.some((l) => l.includes(s.path) && l.includes(s.source)), s.path);
  assert.ok(lines.some((l) => l.includes(RUNTIME_DIR_ROW.pattern)));
  assert.ok(lines.every((l) => l.startsWith('# ')));
});

test("cxl's data dir is quarantined wherever XDG_DATA_HOME puts it, and covered by the table's own entry when it does not", () => {
  assert.equal(ownDataGlob({ HOME: '/home/u' }, '/home/u'), null);
  assert.equal(ownDataGlob({ HOME: '/home/u', XDG_DATA_HOME: '/home/u/.local/share' }, '/home/u'), null);
  const g = ownDataGlob({ HOME: '/home/u', XDG_DATA_HOME: '/srv/state' }, '/home/u');
  assert.equal(g, '**/srv/state/cxl/**');
  const m = new PathMatcher([...globsOf('quarantine', '/home/u'), g!]);
  for (const p of ['/home/u/.local/share/cxl/sessions/s1.jsonl', '/srv/state/cxl/history', '/srv/state/cxl']) assert.equal(m.classify(p), 'quarantined', p);
  for (const p of ['/srv/state/other', 'proj/.local/share/cxl/x']) assert.equal(m.classify(p), null, p);
});
