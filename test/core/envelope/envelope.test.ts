import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildEnvelope, decide, RULE_ORDER, resolveEnvelope, type CallFacts, type EnvelopeSpec, type RuleId } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES } from '../../../src/core/envelope/shipped.ts';

const read = (path: string, resolved?: string): CallFacts => ({ toolset: 'local_fs', tool: 'read_file', paths: [path], resolved: resolved ? [resolved] : undefined });
const write = (path: string): CallFacts => ({ toolset: 'local_fs', tool: 'write_file', paths: [path] });
/** A shell call from argv lists: `sh(['ls', '-la'], ['rm', 'x'])` is `ls -la && rm x`. */
const sh = (...steps: string[][]): CallFacts => ({
  toolset: 'local_shell',
  tool: 'local_shell',
  shell: { command: steps.map((s) => s.join(' ')).join(' && '), steps: steps.map((argv) => ({ argv })) },
});
const opaque = (command: string, steps: string[][] = []): CallFacts => ({
  toolset: 'local_shell',
  tool: 'local_shell',
  shell: { command, steps: steps.map((argv) => ({ argv })), opaque: 'command substitution `$(`' },
});

function run(spec: EnvelopeSpec, call: CallFacts, specs: Record<string, EnvelopeSpec> = {}) {
  return decide(buildEnvelope('t', { ...specs, t: spec }), call);
}

// Each row: an envelope and a call where the rule `wins` and the rule `loses` both match.
// The decision must name `wins`; with the winning part removed (`without`), it names `loses`.
interface Pair {
  wins: RuleId;
  loses: RuleId;
  call: CallFacts;
  spec: EnvelopeSpec;
  without: EnvelopeSpec;
  action?: string;
}

const pairs: Pair[] = [
  {
    wins: 'always_deny',
    loses: 'files.write.deny_paths',
    call: write('x/a.txt'),
    spec: { always_deny: [{ tool: '*', path: 'x/**' }], files: { write: { deny_paths: ['x/**'] } } },
    without: { files: { write: { deny_paths: ['x/**'] } } },
  },
  {
    wins: 'files.write.deny_paths',
    loses: 'files.read.deny_paths',
    call: write('x/a.txt'),
    spec: { files: { write: { deny_paths: ['x/**'] }, read: { deny_paths: ['x/**'] } } },
    without: { files: { read: { deny_paths: ['x/**'] } } },
  },
  {
    wins: 'files.read.deny_paths',
    loses: 'files.read.approve_paths',
    call: read('x/a.txt'),
    spec: { files: { read: { deny_paths: ['x/**'], approve_paths: ['x/**'] } } },
    without: { files: { read: { approve_paths: ['x/**'] } } },
    action: 'deny',
  },
  {
    wins: 'files.read.approve_paths',
    loses: 'files.write.approve_paths',
    call: write('x/a.txt'),
    spec: { files: { read: { approve_paths: ['x/**'] }, write: { approve_paths: ['x/**'] } } },
    without: { files: { write: { approve_paths: ['x/**'] } } },
  },
  {
    wins: 'files.write.approve_paths',
    loses: 'tools',
    call: write('x/a.txt'),
    spec: { files: { write: { approve_paths: ['x/**'] } }, tools: { 'local_fs.write_file': { grant: 'allow' } } },
    without: { tools: { 'local_fs.write_file': { grant: 'allow' } } },
    action: 'approve',
  },
  {
    wins: 'tools',
    loses: 'always_allow',
    call: read('docs/a.md'),
    spec: { tools: { local_fs: { grant: 'deny' } }, always_allow: [{ tool: 'local_fs.read_file', path: 'docs/**' }] },
    without: { always_allow: [{ tool: 'local_fs.read_file', path: 'docs/**' }] },
    action: 'deny',
  },
  {
    wins: 'always_allow',
    loses: 'files.read',
    call: read('docs/a.md'),
    spec: { always_allow: [{ tool: 'local_fs.read_file', path: 'docs/**' }], files: { read: { grant: { grant: 'deny' } } } },
    without: { files: { read: { grant: { grant: 'deny' } } } },
    action: 'allow',
  },
  {
    wins: 'always_allow',
    loses: 'missions.own',
    call: { toolset: 'mission', tool: 'mission_report', axis: 'missions.own' },
    spec: { always_allow: [{ tool: 'mission.mission_report' }] },
    without: {},
    action: 'allow',
  },
  {
    wins: 'missions.fire',
    loses: 'default_action',
    call: { toolset: 'mission', tool: 'mission_start', axis: 'missions.fire' },
    spec: { missions: { fire: { grant: 'deny' } }, default_action: { grant: 'allow' } },
    without: { default_action: { grant: 'allow' } },
    action: 'deny',
  },
  {
    wins: 'missions.answer',
    loses: 'default_action',
    call: { toolset: 'mission', tool: 'mission_answer', axis: 'missions.answer' },
    spec: { missions: { answer: { grant: 'allow' } }, default_action: { grant: 'deny' } },
    without: { default_action: { grant: 'deny' } },
    action: 'allow',
  },
  {
    // read and write grants never meet on one call: a read is decided by files.read even with files.write set
    wins: 'files.read',
    loses: 'default_action',
    call: read('a.txt'),
    spec: { files: { read: { grant: { grant: 'allow' } }, write: { grant: { grant: 'deny' } } }, default_action: { grant: 'deny' } },
    without: { files: { write: { grant: { grant: 'allow' } } }, default_action: { grant: 'deny' } },
    action: 'allow',
  },
  {
    wins: 'files.write',
    loses: 'default_action',
    call: write('a.txt'),
    spec: { files: { write: { grant: { grant: 'allow' } }, read: { grant: { grant: 'deny' } } }, shell: { grant: { grant: 'deny' } }, default_action: { grant: 'deny' } },
    without: { files: { read: { grant: { grant: 'allow' } } }, default_action: { grant: 'deny' } },
    action: 'allow',
  },
  {
    wins: 'shell.blacklist',
    loses: 'shell.substitution',
    call: opaque('echo $(shred x)'),
    spec: { shell: { blacklist: ['shred'], substitution: { grant: 'allow' } } },
    without: { shell: { substitution: { grant: 'allow' } } },
    action: 'deny',
  },
  {
    wins: 'shell.substitution',
    loses: 'shell.ask_always',
    call: opaque('git log $(rm -rf x)', [['git', 'log']]),
    spec: { shell: { substitution: { grant: 'deny' }, prefix_allowlist: ['git log'], ask_always: ['rm'] } },
    // without substitution, the prefix_allowlist may not allow a line it cannot fully see: rm asks
    without: { shell: { prefix_allowlist: ['git log'], ask_always: ['rm'] } },
    action: 'deny',
  },
  {
    wins: 'shell.prefix_allowlist',
    loses: 'shell.ask_always',
    call: sh(['rm', 'build/x']),
    spec: { shell: { prefix_allowlist: ['rm build/x'], ask_always: ['rm'] } },
    without: { shell: { ask_always: ['rm'] } },
    action: 'allow',
  },
  {
    wins: 'shell.ask_always',
    loses: 'shell',
    call: sh(['rm', 'x']),
    spec: { shell: { ask_always: ['rm'], grant: { grant: 'allow' } } },
    without: { shell: { grant: { grant: 'allow' } } },
    action: 'approve',
  },
  {
    wins: 'shell',
    loses: 'default_action',
    call: sh(['make']),
    spec: { shell: { grant: { grant: 'allow' } }, default_action: { grant: 'deny' } },
    without: { default_action: { grant: 'deny' } },
    action: 'allow',
  },
];

describe('rule order: each rule beats the ones after it', () => {
  test('the table covers every adjacent pair of the rule order that can meet on one call', () => {
    const covered = new Set(pairs.map((p) => `${p.wins}>${p.loses}`));
    for (let i = 0; i + 1 < RULE_ORDER.length; i++) {
      const [a, b] = [RULE_ORDER[i], RULE_ORDER[i + 1]];
      // read/write grants and the write grant/shell rules are on disjoint axes; they are covered
      // by the rows deciding against default_action instead.
      if (`${a}>${b}` === 'files.read>files.write' || `${a}>${b}` === 'files.write>shell.blacklist') continue;
      // substitution vs prefix_allowlist: covered by the substitution row, whose `without`
      // shows the prefix never allowing an opaque line
      if (`${a}>${b}` === 'shell.substitution>shell.prefix_allowlist') continue;
      // a call is on one missions axis or none: missions.own, .fire, .answer and the file axes
      // never meet; fire and answer are covered by their rows against default_action
      if (['missions.own>missions.fire', 'missions.fire>missions.answer', 'missions.answer>files.read'].includes(`${a}>${b}`)) continue;
      assert.ok(covered.has(`${a}>${b}`), `missing pair ${a} > ${b}`);
    }
  });
  for (const p of pairs) {
    test(`${p.wins} beats ${p.loses}`, () => {
      const d = run(p.spec, p.call);
      assert.equal(d.rule, p.wins, d.sentence);
      if (p.action) assert.equal(d.action, p.action, d.sentence);
      const w = run(p.without, p.call);
      assert.equal(w.rule, p.loses, w.sentence);
    });
  }
  test('always_deny beats always_allow and every tools pattern', () => {
    const d = run({ always_deny: [{ tool: '*', path: 'x/**' }], always_allow: [{ tool: '*', path: 'x/**' }], tools: { '*': { grant: 'allow' } } }, read('x/y'));
    assert.equal(d.action, 'deny');
    assert.equal(d.rule, 'always_deny');
  });
  test('omitted default_action fails closed to approve', () => {
    const d = run({}, { toolset: 'github', tool: 'create_issue' });
    assert.equal(d.action, 'approve');
    assert.equal(d.rule, 'default_action');
  });
});

describe('inheritance', () => {
  const base: EnvelopeSpec = {
    description: 'base',
    default_action: { grant: 'deny' },
    files: { read: { grant: { grant: 'allow' }, deny_paths: ['secret/**'] }, write: { grant: { grant: 'approve' } } },
    shell: { grant: { grant: 'approve' }, ask_always: ['rm'], prefix_allowlist: ['ls'] },
    tools: { github: { grant: 'approve' }, 'github.list_issues': { grant: 'allow' } },
    always_deny: [{ tool: '*', path: 'vault/**' }],
  };
  test('a child list replaces the parent list', () => {
    const specs = { base, t: { extends: 'base', shell: { ask_always: ['chmod'] } } };
    const e = buildEnvelope('t', specs);
    assert.equal(decide(e, sh(['rm', 'x'])).rule, 'shell');
    assert.equal(decide(e, sh(['chmod', '+x', 'a'])).rule, 'shell.ask_always');
    // the rest of the axis is inherited
    assert.equal(decide(e, sh(['ls'])).action, 'allow');
  });
  test('a bare axis grant replaces the whole axis', () => {
    const e = buildEnvelope('t', { base, t: { extends: 'base', files: { read: { bare: true, grant: { grant: 'approve' } } } } });
    const d = decide(e, read('secret/a'));
    assert.equal(d.action, 'approve'); // deny_paths went with the parent's axis
    assert.equal(d.rule, 'files.read');
    const s = buildEnvelope('t', { base, t: { extends: 'base', shell: { bare: true, grant: { grant: 'deny' } } } });
    assert.equal(decide(s, sh(['ls'])).action, 'deny');
  });
  test('an axis table merges with the parent axis', () => {
    const e = buildEnvelope('t', { base, t: { extends: 'base', files: { read: { grant: { grant: 'approve' } } } } });
    assert.equal(decide(e, read('secret/a')).rule, 'files.read.deny_paths');
    assert.equal(decide(e, read('a')).action, 'approve');
  });
  test('always_deny and always_allow accumulate; the floor is always first', () => {
    const specs = { base, mid: { extends: 'base', always_deny: [{ tool: '*', path: 'x/**' }] }, t: { extends: 'mid', always_allow: [{ tool: 'local_fs', path: 'ok/**' }] } };
    const r = resolveEnvelope('t', specs, FLOOR_RULES);
    assert.equal(r.always_deny.length, FLOOR_RULES.filter((x) => !x.ask).length + 2);
    assert.equal(r.always_ask.length, FLOOR_RULES.filter((x) => x.ask).length);
    assert.deepEqual(r.lineage, ['t', 'mid', 'base']);
    const e = buildEnvelope('t', specs, FLOOR_RULES);
    assert.equal(decide(e, read('vault/k')).rule, 'always_deny');
    assert.equal(decide(e, read('x/k')).rule, 'always_deny');
    assert.equal(decide(e, read('ok/k')).rule, 'always_allow');
    assert.equal(decide(e, read('.ssh/id_rsa')).rule, 'always_deny');
  });
  test('tools patterns merge per pattern; default_action and description are inherited', () => {
    const e = buildEnvelope('t', { base, t: { extends: 'base', tools: { github: { grant: 'deny' } } } });
    assert.equal(decide(e, { toolset: 'github', tool: 'create_issue' }).action, 'deny');
    assert.equal(decide(e, { toolset: 'github', tool: 'list_issues' }).action, 'allow');
    assert.equal(decide(e, { toolset: 'slack', tool: 'post' }).action, 'deny');
    assert.equal(e.resolved.description, 'base');
  });
  test('the sentence names the envelope that defined an inherited rule', () => {
    const e = buildEnvelope('t', { base, t: { extends: 'base' } });
    const d = decide(e, sh(['rm', 'x']));
    assert.equal(d.sentence, 'approve: shell program `rm` is in ask_always of envelope t (from base)');
    assert.equal(d.from, 'base');
  });
  test('unknown parents, cycles and unknown names are errors that name them', () => {
    assert.throws(() => buildEnvelope('t', { t: { extends: 'nope' } }), /envelope `t` extends `nope`, which is not defined/);
    assert.throws(() => buildEnvelope('a', { a: { extends: 'b' }, b: { extends: 'a' } }), /cycle \(a → b → a\)/);
    assert.throws(() => buildEnvelope('zzz', { a: {} }), /unknown envelope `zzz`\. Known envelopes: a/);
  });
});

describe('shell lines: every program of a compound line is checked', () => {
  const spec: EnvelopeSpec = { shell: { grant: { grant: 'approve' }, blacklist: ['shred'], prefix_allowlist: ['git log', 'ls'], ask_always: ['rm'] } };
  test('a blacklisted program in the last step denies the line', () => {
    const d = run(spec, sh(['ls'], ['git', 'log'], ['shred', 'x']));
    assert.equal(d.action, 'deny');
    assert.equal(d.sentence, 'deny: shell program `shred` is in blacklist of envelope t');
  });
  test('the prefix allowlist allows only when every step matches', () => {
    assert.equal(run(spec, sh(['ls', '-la'], ['git', 'log', '--oneline'])).action, 'allow');
    const d = run(spec, sh(['ls'], ['rm', '-rf', 'build']));
    assert.equal(d.rule, 'shell.ask_always');
    assert.equal(run(spec, sh(['git', 'clean', '-fdx'])).rule, 'shell');
  });
  test('token prefixes: `git log` matches `git log --oneline`, not `git logx` or `git`', () => {
    assert.equal(run(spec, sh(['git', 'log', '--oneline'])).action, 'allow');
    assert.equal(run(spec, sh(['git', 'logx'])).rule, 'shell');
    assert.equal(run(spec, sh(['git'])).rule, 'shell');
  });
  test('cd steps run nothing and need no entry', () => {
    assert.equal(run(spec, sh(['cd', 'src'], ['ls'])).action, 'allow');
  });
  test('deny-type lists match a program by base name and case; allow-type lists only as written', () => {
    assert.equal(run(spec, sh(['/usr/bin/shred', 'x'])).action, 'deny');
    assert.equal(run(spec, sh(['RM', 'x'])).rule, 'shell.ask_always');
    // `/tmp/evil/ls` is not the `ls` the allowlist meant
    assert.equal(run(spec, sh(['/tmp/evil/ls'])).rule, 'shell');
  });
  test('an opaque line never takes the prefix allowlist and still shows its programs', () => {
    assert.equal(run(spec, opaque('ls $(shred x)', [['ls']])).action, 'deny');
    const d = run(spec, opaque('ls $(rm -rf x)', [['ls']]));
    assert.equal(d.rule, 'shell.ask_always');
    const allowAll = run({ shell: { grant: { grant: 'allow' } } }, opaque('echo `id`'));
    assert.equal(allowAll.action, 'approve');
    assert.match(allowAll.sentence, /substitution is unset \(ask\)/);
    assert.equal(run({ shell: { grant: { grant: 'allow' }, substitution: { grant: 'allow' } } }, opaque('echo `id`')).action, 'allow');
  });
  test('argument words are paths: always_deny and the read lists see them', () => {
    const e: EnvelopeSpec = { ...spec, shell: { ...spec.shell, prefix_allowlist: ['cat'] }, files: { read: { approve_paths: ['**/.env'] } } };
    const d = run(e, sh(['cat', '.env']), {});
    assert.equal(d.rule, 'files.read.approve_paths');
    const q = decide(buildEnvelope('t', { t: e }, FLOOR_RULES), sh(['cat', '--file=.ssh/id_rsa']));
    assert.equal(q.rule, 'always_deny');
  });
});

describe('paths', () => {
  const e = buildEnvelope('t', { t: { files: { read: { grant: { grant: 'allow' }, approve_paths: ['**/{*.pem,*.key,.env,.env.*}'] } } } }, FLOOR_RULES);
  test('quarantine on the requested path and on the resolved path', () => {
    assert.equal(decide(e, read('.ssh/id_ed25519')).action, 'deny');
    const viaLink = decide(e, read('notes', '.ssh/id_ed25519'));
    assert.equal(viaLink.action, 'deny');
    assert.match(viaLink.sentence, /^deny: path `\.ssh\/id_ed25519` matches always_deny rule \{ tool = "\*", path = "\*\*\/\.ssh\/\*\*" \} \(credential quarantine: SSH keys/);
    assert.equal(decide(e, read('/home/u/.aws/credentials')).action, 'deny');
  });
  test('case, doubled slashes, ./ segments and trailing dots do not slip past', () => {
    for (const p of ['.SSH/ID_RSA', './.ssh//id_rsa', 'a/./.git-credentials', '.ssh', 'x/.Kube/config']) assert.equal(decide(e, read(p)).action, 'deny', p);
    assert.equal(decide(e, read('.env.')).action, 'approve');
    assert.equal(decide(e, read('config/.ENV')).action, 'approve');
  });
  test('always_allow needs every path of the call to match', () => {
    const a = buildEnvelope('t', { t: { always_allow: [{ tool: 'local_fs', path: 'docs/**' }] } });
    assert.equal(decide(a, read('docs/a.md')).action, 'allow');
    assert.equal(decide(a, read('docs/a.md', 'private/a.md')).action, 'approve');
  });
  test('directory-level deny of a trailing /** also covers the directory itself', () => {
    const d = buildEnvelope('t', { t: { files: { read: { grant: { grant: 'allow' }, deny_paths: ['build/**'] } } } });
    assert.equal(decide(d, { toolset: 'local_fs', tool: 'list_dir', paths: ['build'] }).action, 'deny');
  });
});

describe('tools table and MCP-style names', () => {
  test('an MCP tool falls to default_action until named under tools', () => {
    const call: CallFacts = { toolset: 'github', tool: 'create_issue' };
    const plain = run({ files: { read: { bare: true, grant: { grant: 'allow' } } }, shell: { bare: true, grant: { grant: 'allow' } }, default_action: { grant: 'deny' } }, call);
    assert.equal(plain.rule, 'default_action');
    assert.equal(plain.action, 'deny');
    assert.equal(plain.sentence, 'deny: github.create_issue is named by no axis and no tools pattern, default_action is `deny` of envelope t');
    const named = run({ default_action: { grant: 'deny' }, tools: { 'github.create_issue': { grant: 'approve', timeoutMs: 5000 } } }, call);
    assert.deepEqual([named.rule, named.action, named.matched, named.timeoutMs], ['tools', 'approve', 'github.create_issue', 5000]);
    const server = run({ default_action: { grant: 'deny' }, tools: { github: { grant: 'allow' } } }, call);
    assert.equal(server.action, 'allow');
    assert.equal(run({ tools: { github: { grant: 'allow' } } }, { toolset: 'githubx', tool: 'a' }).rule, 'default_action');
  });
  test('the most specific pattern wins; `*` also reaches the local tools', () => {
    const spec: EnvelopeSpec = { tools: { '*': { grant: 'deny' }, local_fs: { grant: 'approve' }, 'local_fs.stat_file': { grant: 'allow' } }, files: { read: { grant: { grant: 'allow' } } } };
    assert.equal(run(spec, { toolset: 'local_fs', tool: 'stat_file', paths: ['a'] }).action, 'allow');
    assert.equal(run(spec, read('a')).action, 'approve');
    assert.equal(run(spec, sh(['ls'])).action, 'deny');
  });
  test('a tool not on any axis is not covered by the axes (local_fs has no eleventh tool)', () => {
    const d = run({ files: { read: { bare: true, grant: { grant: 'allow' } }, write: { bare: true, grant: { grant: 'allow' } } } }, { toolset: 'local_fs', tool: 'delete_file', paths: ['a'] });
    assert.equal(d.rule, 'default_action');
  });
});

test('timeouts travel with approve decisions from the axis or the grant', () => {
  const d = run({ shell: { grant: { grant: 'approve' }, timeoutMs: 30_000, ask_always: ['rm'] } }, sh(['rm', 'x']));
  assert.equal(d.timeoutMs, 30_000);
  const a = run({ shell: { grant: { grant: 'allow' }, timeoutMs: 30_000 } }, sh(['ls']));
  assert.equal(a.timeoutMs, undefined);
});

test('an approve_paths list reached from another axis never turns a deny into an ask', () => {
  const spec: EnvelopeSpec = { files: { read: { approve_paths: ['**/.env'] }, write: { bare: true, grant: { grant: 'deny' } } }, shell: { grant: { grant: 'deny' }, blacklist: ['shred'] } };
  assert.equal(run(spec, write('.env')).action, 'deny');
  assert.equal(run(spec, sh(['cat', '.env'])).action, 'deny');
  assert.equal(run(spec, sh(['shred', '.env'])).rule, 'shell.blacklist');
  // and raises an allow to an ask
  const open: EnvelopeSpec = { files: { read: { approve_paths: ['**/.env'] }, write: { bare: true, grant: { grant: 'allow' } } }, shell: { grant: { grant: 'allow' } } };
  assert.equal(run(open, write('.env')).rule, 'files.read.approve_paths');
  assert.equal(run(open, sh(['cat', '.env'])).action, 'approve');
  assert.equal(run(open, write('a.txt')).action, 'allow');
});

test('the envelope glob compiler means what glob.ts means, on hostile and ordinary paths', async () => {
  const { compileGlobs } = await import('../../../src/core/glob.ts');
  const { compileGlobList } = await import('../../../src/core/envelope/glob_lists.ts');
  const { QUARANTINE_GLOBS, READ_APPROVE_GLOBS } = await import('../../../src/core/protect/matcher.ts');
  const { WRITE_WALL_GLOBS } = await import('../../../src/core/envelope/shipped.ts');
  const lists = [QUARANTINE_GLOBS, READ_APPROVE_GLOBS, WRITE_WALL_GLOBS, ['src/**', '*.md', 'a/**/b', '**', 'docs/[a-c]?.txt', '{x,y/z}/**']];
  const paths = ['.ssh', '.ssh/id_rsa', 'a/b/.SSH/k', 'x.ssh/k', '.sshx', 'id_ed25519.pub', 'a/id_rsa', 'aid_rsa', '.env', '.env.local', 'a/.env/x', 'k.pem', 'src', 'src/a/b.ts', 'srcx/a', 'README.md', 'd/README.md',
    'a/b', 'a/x/y/b', 'ab', 'docs/a1.txt', 'docs/d1.txt', 'x', 'y/z/w', 'y/zz', '.git', '.git/hooks/pre-commit', 'a/.git/config', '.bashrc', 'a/.zshrc', '.vscode/settings.json', '.contenox/agents.toml',
    'home/u/.config/gcloud/creds.json', '.config/fish/config.fish', 'wallet.dat', 'x/secret.kdbx', '.kube/config', 'a'.repeat(300) + '/.netrc'];
  for (const list of lists) {
    const a = compileGlobs(list);
    // both forms a list takes: strings while it is new, RegExps after
    for (const stringTests of [Infinity, 0]) {
      const b = compileGlobList(list, { stringTests });
      for (const p of paths) assert.equal(b.test(p), a.test(p), `${list.join(' ')} on ${p} (stringTests ${stringTests})`);
    }
  }
});

test('literal entries tested as strings agree with the RegExp on every protected path and its near misses', async () => {
  const { compileGlobs, expandBraces } = await import('../../../src/core/glob.ts');
  const { compileGlobList } = await import('../../../src/core/envelope/glob_lists.ts');
  const { PROTECTED_PATHS } = await import('../../../src/core/protect/table.ts');
  const globs = PROTECTED_PATHS.map((e) => e.glob);
  const regex = compileGlobs(globs);
  const fast = compileGlobList(globs, { stringTests: Infinity });
  const warm = compileGlobList(globs, { stringTests: 0 });
  // each entry's own paths, in other cases, under a prefix, inside, and one character off
  const paths = new Set<string>();
  for (const g of globs.flatMap(expandBraces)) {
    const core = g.replace(/^\*\*\//, '').replace(/\/\*\*$/, '').replace(/\*/g, 'x').replace(/\?/g, 'q');
    for (const v of [core, core.toUpperCase(), core.replace(/^./, (c) => c.toUpperCase())]) {
      for (const p of [v, `a/${v}`, `a/b/${v}/k`, `${v}/k`, `${v}x`, `x${v}`, `a/x${v}`, `${v}.bak`, `${v.slice(0, -1)}`, `${v}/`, `/${v}`, `a/${v}x/k`]) paths.add(p);
    }
  }
  assert.ok(paths.size > 1000, `only ${paths.size} paths`);
  for (const p of paths) {
    assert.equal(fast.test(p), regex.test(p), p);
    assert.equal(warm.test(p), regex.test(p), `${p} (RegExp form)`);
  }
  // a list switches form after STRING_TESTS tests and keeps its answers
  const { STRING_TESTS } = await import('../../../src/core/envelope/glob_lists.ts');
  const switching = compileGlobList(globs);
  const sample = [...paths].slice(0, STRING_TESTS * 3);
  for (const p of sample) assert.equal(switching.test(p), regex.test(p), `${p} (switching)`);
  // where the two may differ the string test protects more, never less
  for (const p of ['a\n/.ssh/k', '.ssh\n', 'x\r/.netrc', '.\u212Aube/config', '.netrc\u2028', 'dir\u2029/.aws/credentials']) {
    if (regex.test(p)) assert.ok(fast.test(p), JSON.stringify(p));
  }
  assert.ok(fast.test('a\n/.ssh/k') && fast.test('.\u212Aube/config'));
});

test('programs run through wrappers and shells are still seen by blacklist and ask_always', () => {
  const spec: EnvelopeSpec = { shell: { grant: { grant: 'allow' }, blacklist: ['shred'], ask_always: ['rm'] } };
  for (const argv of [['env', 'rm', '-rf', 'x'], ['sudo', '/bin/rm', 'x'], ['timeout', '5', 'rm', 'x'], ['xargs', 'rm'], ['sh', '-c', 'rm -rf x'], ['bash', '-c', 'cd / && RM x'], ['find', '.', '-exec', 'rm', '{}', ';'], ['nice', '-n', '5', 'env', 'rm']]) {
    assert.equal(run(spec, sh(argv)).rule, 'shell.ask_always', argv.join(' '));
  }
  assert.equal(run(spec, sh(['env', 'FOO=1', 'shred', 'x'])).action, 'deny');
  assert.equal(run(spec, sh(['sh', '-c', 'echo hi; shred -u k'])).action, 'deny');
  // an ordinary program's arguments are operands, not programs
  assert.equal(run(spec, sh(['grep', '-r', 'rm', 'docs'])).action, 'allow');
  assert.equal(run(spec, sh(['echo', 'shred'])).action, 'allow');
});

test('a call that says it reads or writes (remote tools) meets the file grants after tools patterns and always_allow', () => {
  const get: CallFacts = { toolset: 'pets', tool: 'getPet', access: 'read', accessReason: 'GET /pets/{id}' };
  const post: CallFacts = { toolset: 'pets', tool: 'addPet', access: 'write', accessReason: 'POST /pets' };
  const spec: EnvelopeSpec = { files: { read: { grant: { grant: 'allow' } }, write: { grant: { grant: 'approve' } } } };
  assert.equal(run(spec, get).rule, 'files.read');
  assert.equal(run(spec, get).action, 'allow');
  assert.match(run(spec, post).sentence, /^approve: pets\.addPet is a write \(POST \/pets\), files\.write is `approve`/);
  // earlier rules still come first: a tools pattern, then always_allow
  assert.equal(run({ ...spec, tools: { 'pets.addPet': { grant: 'deny' } } }, post).rule, 'tools');
  assert.equal(run({ ...spec, always_allow: [{ tool: 'pets' }] }, post).rule, 'always_allow');
  // without a grant on that axis it falls to default_action; without access it never meets an axis
  assert.equal(run({ default_action: { grant: 'deny' } }, get).rule, 'default_action');
  assert.equal(run(spec, { toolset: 'pets', tool: 'getPet' }).rule, 'default_action');
  // a local tool's own axis is not changed by it
  assert.equal(run(spec, { ...write('a.txt'), access: 'read' }).rule, 'files.write');
});
