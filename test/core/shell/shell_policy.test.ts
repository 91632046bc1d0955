import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { isToolError } from '../../../src/core/errors.ts';
import { childEnv, isSecretName } from '../../../src/core/shell/env.ts';
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

test('secret-looking names are scrubbed, ordinary ones kept', () => {
  for (const n of ['GITHUB_TOKEN', 'NPM_TOKEN', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'DB_PASSWORD', 'PGPASSWORD', 'MY_SECRET', 'SSH_KEY', 'GOOGLE_API_KEY', 'HF_TOKEN', 'GCP_CREDENTIALS', 'api_key']) {
    assert.ok(isSecretName(n), n);
  }
  for (const n of ['PATH', 'HOME', 'TERM', 'LANG', 'SSH_AUTH_SOCK', 'MONKEY', 'TOKENIZERS_PARALLELISM', 'KEYBOARD', 'GOPATH', 'NODE_OPTIONS', 'EDITOR']) {
    assert.ok(!isSecretName(n), n);
  }
  const env = childEnv({ PATH: '/bin', GITHUB_TOKEN: 't', UNSET: undefined }, { keep: [] });
  assert.deepEqual(env, { PATH: '/bin', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', PAGER: 'cat' });
  assert.equal(childEnv({ GITHUB_TOKEN: 't' }, { keep: ['GITHUB_TOKEN'] }).GITHUB_TOKEN, 't');
});
