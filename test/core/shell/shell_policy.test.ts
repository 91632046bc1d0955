import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { isToolError } from '../../../src/core/errors.ts';
import { childEnv, dropReason, holdsCredentialUrl, isAllowedName } from '../../../src/core/shell/env.ts';
import {
  DEFAULT_ALLOWED_COMMANDS,
  DEFAULT_DENIED_COMMANDS,
  DEFAULT_SHELL_POLICY,
  parseShellPolicy,
  SHIPPED_SHELL_POLICY,
  shellPolicyFromFlat,
  withoutShellOnlyKeys,
} from '../../../src/core/shell/shell_policy.ts';

test('no keys, no policy: the line goes to the platform shell', () => {
  assert.equal(parseShellPolicy(undefined, '/w'), undefined);
  assert.equal(parseShellPolicy({}, '/w'), undefined);
});

test('comma lists are trimmed, empty items dropped; a relative _allowed_dir is taken from the root', () => {
  assert.deepEqual(parseShellPolicy({ _allowed_commands: ' git, go ,,make ', _denied_commands: 'rm', _allowed_dir: 'src' }, '/w'), {
    allowedCommands: ['git', 'go', 'make'],
    deniedCommands: ['rm'],
    allowedDir: path.join('/w', 'src'),
  });
  assert.deepEqual(parseShellPolicy({ _allowed_dir: '/abs' }, '/w'), { allowedDir: '/abs' });
});

test('an empty allowlist is a policy that allows nothing, not no policy', () => {
  assert.deepEqual(parseShellPolicy({ _allowed_commands: '' }, '/w'), { allowedCommands: [] });
});

test('unknown keys and non-string values are errors naming the keys', () => {
  for (const bad of [{ _allowed_cmds: 'git' }, { _allowed_commands: 3 }]) {
    assert.throws(
      () => parseShellPolicy(bad, '/w'),
      (e: unknown) => isToolError(e) && e.code === 'bad_args' && /_allowed_commands/.test(e.message),
    );
  }
  assert.deepEqual(parseShellPolicy({ _allowed_commands: ['git', 'go'] }, '/w'), { allowedCommands: ['git', 'go'] });
});

test('the shipped lists are those: a deny list and no allowlist; the starting allowlist stays for a hard gate', () => {
  assert.equal(DEFAULT_ALLOWED_COMMANDS.length, 50);
  for (const p of ['git', 'go', 'npm', 'rm', 'jq']) assert.ok(DEFAULT_ALLOWED_COMMANDS.includes(p));
  // privilege escalation, raw disks and file systems, kernel and system state
  for (const p of ['sudo', 'su', 'doas', 'pkexec', 'run0', 'dd', 'mkfs', 'mkfs.ext4', 'wipefs', 'blkdiscard', 'losetup', 'insmod', 'iptables', 'nft']) assert.ok(DEFAULT_DENIED_COMMANDS.includes(p), p);
  assert.deepEqual(DEFAULT_ALLOWED_COMMANDS.filter((p) => DEFAULT_DENIED_COMMANDS.includes(p)), []);
  assert.equal(DEFAULT_SHELL_POLICY._allowed_commands, DEFAULT_ALLOWED_COMMANDS.join(','));
  assert.deepEqual(SHIPPED_SHELL_POLICY, { _denied_commands: DEFAULT_DENIED_COMMANDS.join(',') });
});

test('a flat key=value set: local_shell keys over the shipped lists; local_fs keeps _allowed_dir only', () => {
  const flat = { _allowed_commands: 'git', _allowed_dir: 'src', _max_read_bytes: '0' };
  assert.deepEqual(shellPolicyFromFlat(flat), { _allowed_commands: 'git', _denied_commands: DEFAULT_SHELL_POLICY._denied_commands, _allowed_dir: 'src' });
  assert.deepEqual(shellPolicyFromFlat({}), { ...SHIPPED_SHELL_POLICY, _allowed_dir: '.' });
  assert.deepEqual(withoutShellOnlyKeys({ ...flat, _denied_commands: 'rm' }), { _allowed_dir: 'src', _max_read_bytes: '0' });
});

test('the environment is an allowlist: what toolchains need passes, anything else does not, whatever its name', () => {
  for (const n of ['PATH', 'HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TERM', 'TMPDIR', 'GOPATH', 'CARGO_HOME', 'RUSTUP_HOME', 'NVM_DIR', 'JAVA_HOME', 'VIRTUAL_ENV', 'PYTHONPATH', 'SSL_CERT_FILE', 'HTTPS_PROXY']) {
    assert.ok(isAllowedName(n), n);
  }
  for (const n of ['GITHUB_TOKEN', 'OPENAI_API_KEY', 'DB_PASS', 'MYSQL_PWD', 'DATABASE_URL', 'PGPASSWORD', 'SSH_AUTH_SOCK', 'GPG_AGENT_INFO', 'DBUS_SESSION_BUS_ADDRESS', 'DISPLAY', 'WAYLAND_DISPLAY', 'XDG_RUNTIME_DIR', 'NODE_OPTIONS', 'LD_PRELOAD', 'GOOGLE_APPLICATION_CREDENTIALS', 'EDITOR', 'path']) {
    assert.ok(!isAllowedName(n), n);
  }
  const env = childEnv({ PATH: '/bin', GITHUB_TOKEN: 't', UNSET: undefined });
  assert.deepEqual(env, { PATH: '/bin', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', PAGER: 'cat' });
  assert.equal(childEnv({ MYAPP_MODE: 'x' }, { allow: ['MYAPP_*'] }).MYAPP_MODE, 'x', 'a prefix the person allows');
  assert.equal(childEnv({ MYAPP_MODE: 'x' }, { allow: ['MYAPP'] }).MYAPP_MODE, undefined, 'a name is exact');
});

test('a value holding a URL with credentials is never passed, allowed or not', () => {
  for (const v of ['postgres://app:PASS@db:5432/x', 'https://TOKEN@github.com/o/r.git', 'http://u:p@proxy:3128', 'x redis://:pw@h:6379 y', 'https://a.example/simple https://user:tok@b.example/simple']) {
    assert.ok(holdsCredentialUrl(v), v);
    assert.equal(dropReason('HTTPS_PROXY', v), 'credentials in a URL');
    assert.equal(dropReason('DATABASE_URL', v, { allow: ['DATABASE_URL'] }), 'credentials in a URL');
  }
  for (const v of ['http://proxy:3128', 'https://pypi.org/simple', 'git@github.com:o/r.git', 'mailto:a@b.c', '/usr/bin:/bin', 'a@b']) {
    assert.ok(!holdsCredentialUrl(v), v);
  }
  assert.equal(dropReason('HTTPS_PROXY', 'http://proxy:3128'), undefined);
});

test('a proxy holding a user and password is dropped with or without a scheme, in any case of name and any element of a list; JVM options setting a password too', () => {
  for (const [n, v] of [
    ['HTTP_PROXY', 'user:pass@proxy:3128'],
    ['https_proxy', 'TOKEN@proxy.internal:8080'],
    ['ALL_PROXY', 'us%40er:p%3Ass@proxy:1080'],
    ['all_proxy', 'socks5h://user:pw@proxy:1080'],
    ['GOPROXY', 'https://proxy.golang.org,user:pw@athens.internal|direct'],
    ['NO_PROXY', 'localhost,u:p@weird'],
    ['HTTPS_PROXY', 'user:pass@[::1]:3128'],
  ]) {
    assert.ok(dropReason(n, v) === 'credentials in a proxy' || dropReason(n, v) === 'credentials in a URL', `${n}=${v}`);
  }
  for (const [n, v] of [
    ['HTTP_PROXY', 'proxy:3128'],
    ['http_proxy', 'http://proxy.internal:3128/'],
    ['NO_PROXY', 'localhost,127.0.0.1,.internal,*.example.com'],
    ['GOPROXY', 'https://proxy.golang.org,direct'],
    ['GONOPROXY', 'github.com/me/*'],
    ['GIT_AUTHOR_EMAIL', 'me@example.com'],
  ]) {
    assert.equal(dropReason(n, v), undefined, `${n}=${v}`);
  }
  assert.equal(dropReason('MAVEN_OPTS', '-Xmx1g -Dhttps.proxyPassword=secret'), 'a secret in a JVM option');
  assert.equal(dropReason('GRADLE_OPTS', '-Dorg.gradle.project.repoToken=t'), 'a secret in a JVM option');
  assert.equal(dropReason('MAVEN_OPTS', '-Xmx1g -Dmaven.repo.local=/m2'), undefined);
  assert.equal(dropReason('GRADLE_OPTS', '-Xmx2g -Dhttps.proxyHost=proxy -Dhttps.proxyPort=3128'), undefined);
});
