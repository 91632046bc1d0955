// The credential quarantine and read-approve matcher: every shipped glob, by hostile class
// (case, nesting, absolute paths, trailing dots/spaces, lookalikes that must not match).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { compileGlobs, expandBraces, globTester } from '../../../src/core/glob.ts';
import { classifyPath, PathMatcher, QUARANTINE_GLOBS, READ_APPROVE_GLOBS } from '../../../src/core/protect/matcher.ts';
import { globsOf } from '../../../src/core/protect/table.ts';
import { AGENT_CREDENTIALS, AGENT_HOME_FILES, NEW_CREDENTIALS } from '../credential_paths.ts';

const QUARANTINED = [
  '.ssh/id_rsa', 'home/u/.ssh/config', '/home/u/.ssh/known_hosts', '.ssh', '.SSH/ID_RSA', 'a/b/.gnupg/pubring.kbx',
  '.aws/credentials', '.azure/accessTokens.json', '.kube/config', 'x/.kube/config', '.config/gcloud/application_default_credentials.json',
  '.docker/config.json', '.password-store/mail.gpg', '.local/share/keyrings/login.keyring', '.netrc', 'deep/.git-credentials',
  '.npmrc', '.pypirc', '.bash_history', '.zsh_history', '.python_history', 'id_rsa', 'id_rsa.pub', 'keys/id_dsa', 'id_ecdsa_sk',
  'backup/id_ed25519', 'vault.kdbx', 'Passwords.KDBX', 'wallet.dat', '.netrc.', '.npmrc ', 'ID_ED25519',
];
const APPROVE = ['.envrc', 'app/.envrc', '.ENVRC', '.env', '.env.local', '.env.production', 'app/.env', 'certs/server.pem', 'TLS.PEM', 'private.key', 'a/b/c.Key', '.env.', '/abs/path/.ENV'];
const CLEAN = [
  'src/env.ts', 'environment.md', '.envrc.example.md', 'env', 'dotenv.js', 'src/keys.ts', 'key.txt', 'pem.md', 'sshd_config.md', '.sshconfig',
  'ssh/notes.txt', 'my.ssh.txt', 'docs/aws.md', 'kube/config', 'netrc.md', '.npmrc.md', 'history', 'rsa.txt', 'wallet.dat.md', 'x.kdbx.txt',
  '.config/other/x', 'README.md', '.',
  // lookalikes of the new entries that are ordinary project files
  'gh/hosts.yml', '.config/ghost/x', 'cargo/credentials.toml', '.cargo/config.toml', 'pgpass.md', 'vault-token.ts', 'my.cnf', 'docs/.my.cnf.md',
  'terraform.d/credentials.tfrc.json', 'main.tf', '.m2repo/settings.xml', 'settings.xml', 'gradle.properties', 'auth.json', 'NuGet.Config',
  'src/mozilla.ts', '.config/chromium-flags.conf', 'Library/Application Support/Other/x', '.yarnrc.yml', 'app/.yarnrc.yml', 'docker/config.json',
];

for (const p of QUARANTINED) test(`quarantined: ${JSON.stringify(p)}`, () => assert.equal(classifyPath(p), 'quarantined'));
test('every new credential store is quarantined', () => {
  for (const p of [...NEW_CREDENTIALS, ...AGENT_CREDENTIALS]) assert.equal(classifyPath(p), 'quarantined', p);
  for (const p of [...NEW_CREDENTIALS, ...AGENT_CREDENTIALS]) assert.equal(classifyPath(p.toUpperCase()), 'quarantined', p.toUpperCase());
});

test("other agents' transcripts and state, and cxl's own data, are quarantined under $HOME; the same names in a project are not", () => {
  const home = '/home/u';
  const m = new PathMatcher(globsOf('quarantine', home), globsOf('read_approve', home), globsOf('always_ask', home));
  for (const p of AGENT_HOME_FILES) assert.equal(m.classify(`${home}/${p}`), 'quarantined', p);
  for (const p of AGENT_HOME_FILES) assert.equal(m.classify(`${home}/proj/${p}`), null, `proj/${p}`);
});
for (const p of APPROVE) test(`read-approve: ${JSON.stringify(p)}`, () => assert.equal(classifyPath(p), 'read_approve'));
for (const p of CLEAN) test(`not matched: ${JSON.stringify(p)}`, () => assert.equal(classifyPath(p), null));

test('the strongest class of several paths wins (requested vs resolved)', () => {
  assert.equal(classifyPath('notes.txt', '.env'), 'read_approve');
  assert.equal(classifyPath('.env', 'k/id_rsa'), 'quarantined');
  assert.equal(classifyPath('a', 'b'), null);
});

test('the lists are exported as frozen data for the envelope engine', () => {
  assert.ok(Object.isFrozen(QUARANTINE_GLOBS) && Object.isFrozen(READ_APPROVE_GLOBS));
  assert.ok(QUARANTINE_GLOBS.includes('**/.kube/**'));
  assert.deepEqual([...READ_APPROVE_GLOBS], ['**/{*.pem,*.key,.env,.env.*}', '**/.envrc']);
  const custom = new PathMatcher(['**/secret/**'], []);
  assert.equal(custom.classify('a/secret/b'), 'quarantined');
  assert.equal(custom.classify('.ssh/id_rsa'), null);
});

test('globs: braces expand (nested, with slashes), ** spans segments, * and ? stay in one', () => {
  assert.deepEqual(expandBraces('**/{a,b/c}/*.{js,ts}'), ['**/a/*.js', '**/a/*.ts', '**/b/c/*.js', '**/b/c/*.ts']);
  assert.deepEqual(expandBraces('x{y}z'), ['x{y}z']);
  assert.deepEqual(expandBraces('{a,{b,c}}'), ['a', 'b', 'c']);
  const re = compileGlobs(['src/**/*.ts'], { caseInsensitive: false });
  for (const ok of ['src/a.ts', 'src/x/y/z.ts']) assert.ok(re.test(ok), ok);
  for (const no of ['src/a.tsx', 'lib/a.ts', 'src/A.TS', 'xsrc/a.ts']) assert.ok(!re.test(no), no);
  const q = compileGlobs(['a?c', 'd[0-9]', 'e[!x]']);
  assert.ok(q.test('abc') && !q.test('a/c') && q.test('d7') && !q.test('dx') && q.test('ey') && !q.test('ex'));
  assert.ok(compileGlobs(['a/**']).test('a') && compileGlobs(['a/**']).test('a/b/c') && !compileGlobs(['a/**']).test('ab'));
  assert.ok(compileGlobs(['*.md']).test('README.MD'), 'case-insensitive by default');
  assert.ok(!compileGlobs([]).test(''), 'no globs match nothing');
  assert.ok(compileGlobs(['a.b']).test('a.b') && !compileGlobs(['a.b']).test('axb'), 'dots are literal');
});

test('the matcher is fast: a classification costs little more than normalising the path', () => {
  // against a reference timed in the same rounds, so a loaded machine slows both alike (an
  // absolute bound flaked under load); the best of three rounds each. Today ~2-3x.
  const paths = Array.from({ length: 20_000 }, (_, i) => `/home/user/projects/app/src/module${i % 97}/file${i}.ts`);
  const timed = (f: (p: string) => unknown) => {
    const t0 = performance.now();
    for (const p of paths) f(p);
    return performance.now() - t0;
  };
  let ours = Infinity;
  let reference = Infinity;
  for (let round = 0; round < 3; round++) {
    ours = Math.min(ours, timed((p) => classifyPath(p)));
    reference = Math.min(reference, timed((p) => path.posix.normalize(p)));
  }
  assert.ok(ours < 20 * reference, `${ours.toFixed(1)} ms against ${reference.toFixed(1)} ms normalising`);
});

test('the literal prefilter never changes an answer of the full glob RegExp', () => {
  const globs = [...QUARANTINE_GLOBS, ...READ_APPROVE_GLOBS, 'src/**/*.ts', '**/a?c', 'x/**'];
  const re = compileGlobs(globs);
  const fast = globTester(globs);
  const paths = [...QUARANTINED, ...APPROVE, ...CLEAN, 'src/a.ts', 'SRC/B/C.TS', 'q/abc', 'x', 'x/y', '/h/.SSH', '/h/.ssh', 'a/.kube/config/x', 'id_rsa/x'];
  for (const p of paths) assert.equal(fast(p), re.test(p), p);
  assert.equal(globTester(['**/*'])('anything/at/all'), true, 'a glob with no literal falls back to the RegExp');
});
