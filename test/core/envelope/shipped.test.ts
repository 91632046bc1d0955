// Each shipped envelope against one table of tool calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildEnvelope, decide, type CallFacts } from '../../../src/core/envelope/index.ts';
import { readFileSync } from 'node:fs';
import { DEFAULT_PREFIX_ALLOWLIST, FLOOR_RULES, GIT_READ_PREFIXES, SHIPPED_ENVELOPES, WRITE_WALL_GLOBS } from '../../../src/core/envelope/shipped.ts';
import { QUARANTINE_GLOBS, READ_APPROVE_GLOBS } from '../../../src/core/protect/matcher.ts';

const fs = (tool: string, path: string, resolved?: string): CallFacts => ({ toolset: 'local_fs', tool, paths: [path], resolved: resolved ? [resolved] : undefined });
const line = (...steps: string[][]): CallFacts => ({
  toolset: 'local_shell',
  tool: 'local_shell',
  shell: { command: steps.map((s) => s.join(' ')).join(' && '), steps: steps.map((argv) => ({ argv })) },
});

type A = 'allow' | 'approve' | 'deny';
const CALLS: [string, CallFacts, Record<string, A>][] = [
  // name, call, expected per envelope: read_only, serve (as read_only but missions), ask_always, auto_edit, default, strict
  ['read src/a.ts', fs('read_file', 'src/a.ts'), { read_only: 'allow', serve: 'allow', ask_always: 'allow', auto_edit: 'allow', default: 'allow', strict: 'deny' }],
  ['grep a tree', fs('grep', 'src'), { read_only: 'allow', serve: 'allow', ask_always: 'allow', auto_edit: 'allow', default: 'allow', strict: 'deny' }],
  ['list the root', fs('list_dir', '.'), { read_only: 'allow', serve: 'allow', ask_always: 'allow', auto_edit: 'allow', default: 'allow', strict: 'deny' }],
  ['read .env', fs('read_file', '.env'), { read_only: 'approve', serve: 'approve', ask_always: 'approve', auto_edit: 'approve', default: 'approve', strict: 'deny' }],
  ['read certs/server.key', fs('read_file', 'certs/server.key'), { read_only: 'approve', serve: 'approve', ask_always: 'approve', auto_edit: 'approve', default: 'approve', strict: 'deny' }],
  ['read notes → .ssh/id_ed25519', fs('read_file', 'notes', '.ssh/id_ed25519'), { read_only: 'deny', serve: 'deny', ask_always: 'deny', auto_edit: 'deny', default: 'deny', strict: 'deny' }],
  ['stat .aws/credentials', fs('stat_file', '.aws/credentials'), { read_only: 'deny', serve: 'deny', ask_always: 'deny', auto_edit: 'deny', default: 'deny', strict: 'deny' }],
  ['write src/a.ts', fs('write_file', 'src/a.ts'), { read_only: 'deny', serve: 'deny', ask_always: 'approve', auto_edit: 'allow', default: 'approve', strict: 'deny' }],
  ['edit .env', fs('edit_file', '.env'), { read_only: 'deny', serve: 'deny', ask_always: 'approve', auto_edit: 'approve', default: 'approve', strict: 'deny' }],
  ['sed .git/config', fs('sed', '.git/config'), { read_only: 'deny', serve: 'deny', ask_always: 'deny', auto_edit: 'deny', default: 'deny', strict: 'deny' }],
  ['write .git/hooks/pre-commit', fs('write_file', '.git/hooks/pre-commit'), { read_only: 'deny', serve: 'deny', ask_always: 'deny', auto_edit: 'deny', default: 'deny', strict: 'deny' }],
  ['write .contenox/agents.toml', fs('write_file', '.contenox/agents.toml'), { read_only: 'deny', serve: 'deny', ask_always: 'deny', auto_edit: 'deny', default: 'deny', strict: 'deny' }],
  ['edit .vscode/settings.json', fs('edit_file', '.vscode/settings.json'), { read_only: 'deny', serve: 'deny', ask_always: 'deny', auto_edit: 'deny', default: 'deny', strict: 'deny' }],
  ['write .bashrc', fs('write_file', '.bashrc'), { read_only: 'deny', serve: 'deny', ask_always: 'deny', auto_edit: 'deny', default: 'deny', strict: 'deny' }],
  ['read .bashrc', fs('read_file', '.bashrc'), { read_only: 'allow', serve: 'allow', ask_always: 'allow', auto_edit: 'allow', default: 'allow', strict: 'deny' }],
  ['read .config/gh/hosts.yml', fs('read_file', '.config/gh/hosts.yml'), { read_only: 'deny', serve: 'deny', ask_always: 'deny', auto_edit: 'deny', default: 'deny', strict: 'deny' }],
  ['write .bash_aliases', fs('write_file', '.bash_aliases'), { read_only: 'deny', serve: 'deny', ask_always: 'deny', auto_edit: 'deny', default: 'deny', strict: 'deny' }],
  ['edit .config/git/config', fs('edit_file', '.config/git/config'), { read_only: 'deny', serve: 'deny', ask_always: 'deny', auto_edit: 'deny', default: 'deny', strict: 'deny' }],
  ['write .husky/pre-commit', fs('write_file', '.husky/pre-commit'), { read_only: 'deny', serve: 'deny', ask_always: 'approve', auto_edit: 'approve', default: 'approve', strict: 'deny' }],
  ['edit .envrc', fs('edit_file', '.envrc'), { read_only: 'deny', serve: 'deny', ask_always: 'approve', auto_edit: 'approve', default: 'approve', strict: 'deny' }],
  ['write Makefile', fs('write_file', 'Makefile'), { read_only: 'deny', serve: 'deny', ask_always: 'approve', auto_edit: 'allow', default: 'approve', strict: 'deny' }],
  ['read .husky/pre-commit', fs('read_file', '.husky/pre-commit'), { read_only: 'allow', serve: 'allow', ask_always: 'allow', auto_edit: 'allow', default: 'allow', strict: 'deny' }],
  ['git status', line(['git', 'status']), { read_only: 'deny', serve: 'deny', ask_always: 'approve', auto_edit: 'approve', default: 'approve', strict: 'deny' }],
  ['go test ./...', line(['go', 'test', './...']), { read_only: 'deny', serve: 'deny', ask_always: 'approve', auto_edit: 'approve', default: 'allow', strict: 'deny' }],
  ['git status && go test ./...', line(['git', 'status'], ['go', 'test', './...']), { read_only: 'deny', serve: 'deny', ask_always: 'approve', auto_edit: 'approve', default: 'approve', strict: 'deny' }],
  ['ls && go test ./...', line(['ls'], ['go', 'test', './...']), { read_only: 'deny', serve: 'deny', ask_always: 'approve', auto_edit: 'approve', default: 'allow', strict: 'deny' }],
  ['git commit -m x', line(['git', 'commit', '-m', 'x']), { read_only: 'deny', serve: 'deny', ask_always: 'approve', auto_edit: 'approve', default: 'approve', strict: 'deny' }],
  ['ls && rm -rf build', line(['ls'], ['rm', '-rf', 'build']), { read_only: 'deny', serve: 'deny', ask_always: 'approve', auto_edit: 'approve', default: 'approve', strict: 'deny' }],
  ['chmod +x run.sh', line(['chmod', '+x', 'run.sh']), { read_only: 'deny', serve: 'deny', ask_always: 'approve', auto_edit: 'approve', default: 'approve', strict: 'deny' }],
  ['cat .env', line(['cat', '.env']), { read_only: 'deny', serve: 'deny', ask_always: 'approve', auto_edit: 'approve', default: 'approve', strict: 'deny' }],
  ['cat .ssh/id_rsa', line(['cat', '.ssh/id_rsa']), { read_only: 'deny', serve: 'deny', ask_always: 'deny', auto_edit: 'deny', default: 'deny', strict: 'deny' }],
  ['cp x .git/hooks/pre-push', line(['cp', 'x', '.git/hooks/pre-push']), { read_only: 'deny', serve: 'deny', ask_always: 'deny', auto_edit: 'deny', default: 'deny', strict: 'deny' }],
  ['github.create_issue', { toolset: 'github', tool: 'create_issue' }, { read_only: 'approve', serve: 'approve', ask_always: 'approve', auto_edit: 'approve', default: 'approve', strict: 'deny' }],
];

for (const name of Object.keys(SHIPPED_ENVELOPES)) {
  test(`shipped envelope ${name} against the table of calls`, () => {
    const env = buildEnvelope(name, SHIPPED_ENVELOPES, FLOOR_RULES);
    const wrong: string[] = [];
    for (const [label, call, expect] of CALLS) {
      const d = decide(env, call);
      if (d.action !== expect[name]) wrong.push(`${label}: expected ${expect[name]}, got ${d.sentence}`);
    }
    assert.deepEqual(wrong, []);
  });
}

test('the floor is built from the quarantine lists of quarantine.ts, and read-approve from its list', () => {
  const paths = FLOOR_RULES.map((r) => r.path);
  for (const g of QUARANTINE_GLOBS) assert.ok(paths.includes(g), g);
  for (const g of WRITE_WALL_GLOBS) assert.ok(paths.includes(g), g);
  assert.deepEqual(SHIPPED_ENVELOPES.default.files?.read?.approve_paths, [...READ_APPROVE_GLOBS]);
});

test('the default envelope explains itself', () => {
  const env = buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES);
  assert.equal(decide(env, line(['rm', 'x'])).sentence, 'approve: shell program `rm` is in ask_always of envelope default');
  assert.equal(decide(env, line(['go', 'test', './...'])).sentence, 'allow: `go test ./...` starts with `go test` of prefix_allowlist of envelope default');
  // git's reads are native-git's: through the shell they ask
  assert.equal(decide(env, line(['git', 'log', '--oneline'])).action, 'approve');
  assert.equal(decide(env, fs('write_file', 'a.ts')).sentence, 'approve: local_fs.write_file is a write, files.write is `approve` of envelope default');
});

test("docs/config.md's envelope that adds git's reads back lists exactly default's allowlist and git's reads", () => {
  const doc = readFileSync(new URL('../../../docs/config.md', import.meta.url), 'utf8');
  const block = /\[envelopes\.mine\.shell\]\nprefix_allowlist = (\[[^\]]*"git status"[^\]]*\])/.exec(doc);
  assert.ok(block, 'the example is in docs/config.md');
  assert.deepEqual(JSON.parse(block[1]), [...DEFAULT_PREFIX_ALLOWLIST, ...GIT_READ_PREFIXES]);
  const env = buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES);
  for (const g of GIT_READ_PREFIXES) assert.equal(decide(env, line(g.split(' '))).action, 'approve', g);
});
