// What a command inherits from cxl's environment: only the allowlist (PATH, HOME, the locale,
// toolchain variables) and what the person's own envelope adds with shell.env, never an agent
// socket's address, a display, a secret under an unguessable name, or a URL with credentials in
// it. Run as users run it: `cxl tool local_shell` with the variables in its environment, a test
// file run unasked by `node --test` printing everything it got.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { runCxl } from '../../helpers/cxl.ts';

const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'cxl-env-')));
after(() => rmSync(base, { recursive: true, force: true }));
const home = path.join(base, 'home');
const ws = path.join(base, 'ws');
mkdirSync(path.join(home, '.contenox'), { recursive: true });
mkdirSync(path.join(ws, 'test'), { recursive: true });
writeFileSync(path.join(ws, 'test', 'env.test.js'), "require('node:test').test('env', () => { for (const [k, v] of Object.entries(process.env)) console.log(`ENV ${k}=${v}`); });\n");

const planted = {
  DB_PASS: 'hunter2-env-test',
  MYSQL_PWD: 'mysql-env-test',
  DATABASE_URL: 'postgres://app:pg-env-test@db.internal:5432/app',
  SSH_AUTH_SOCK: '/run/user/1000/ssh-agent.socket',
  GPG_AGENT_INFO: '/run/user/1000/gnupg/S.gpg-agent:0:1',
  DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
  DISPLAY: ':0',
  WAYLAND_DISPLAY: 'wayland-0',
  XDG_RUNTIME_DIR: '/run/user/1000',
  GITHUB_TOKEN: 'ghp_env-test',
  CUSTOM_DEPLOY_THING: 'deploy-env-test',
  MYAPP_MODE: 'fast',
  HTTPS_PROXY: 'http://proxy-user:proxy-env-test@proxy.internal:3128',
  // curl, git, pip and npm take a proxy's login without a scheme too
  HTTP_PROXY: 'proxy-user:noscheme-env-test@proxy.internal:3128',
  all_proxy: 'us%40er:pct-env-test@proxy.internal:1080',
  GOPROXY: 'https://proxy.golang.org,athens:goproxy-env-test@athens.internal|direct',
  MAVEN_OPTS: '-Xmx1g -Dhttps.proxyPassword=maven-env-test',
  // the same kinds without a secret: passed
  http_proxy: 'http://proxy.internal:3128',
  NO_PROXY: 'localhost,.internal',
  GRADLE_OPTS: '-Xmx2g -Dhttps.proxyHost=proxy.internal',
  GOPATH: path.join(base, 'go'),
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
};

async function seen(envelopeToml: string): Promise<Map<string, string>> {
  writeFileSync(path.join(home, '.contenox', 'agents.toml'), envelopeToml);
  const env: Record<string, string | undefined> = { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: path.join(base, 'data'), ...planted };
  const r = await runCxl(['tool', 'local_shell', JSON.stringify({ command: 'node --test test/env.test.js' }), '--root', ws], { cwd: ws, env });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.envelope.rule, 'shell.prefix_allowlist', 'the test file ran unasked');
  const vars = new Map<string, string>();
  for (const m of String(out.result.stdout).matchAll(/^# ENV ([^=\n]+)=(.*)$/gm)) vars.set(m[1], m[2]);
  assert.ok(vars.has('PATH'), out.result.stdout);
  return vars;
}

test('an unasked test run gets the allowlist only: no agent sockets, no display, no secrets by other names, no URL with credentials', async () => {
  const vars = await seen('');
  for (const name of ['DB_PASS', 'MYSQL_PWD', 'DATABASE_URL', 'SSH_AUTH_SOCK', 'GPG_AGENT_INFO', 'DBUS_SESSION_BUS_ADDRESS', 'DISPLAY', 'WAYLAND_DISPLAY', 'XDG_RUNTIME_DIR', 'GITHUB_TOKEN', 'CUSTOM_DEPLOY_THING', 'MYAPP_MODE', 'HTTPS_PROXY', 'HTTP_PROXY', 'all_proxy', 'GOPROXY', 'MAVEN_OPTS']) {
    assert.equal(vars.has(name), false, `${name} reached the command`);
  }
  assert.equal(vars.get('http_proxy'), planted.http_proxy, 'a proxy without a login passes');
  assert.equal(vars.get('NO_PROXY'), planted.NO_PROXY);
  assert.equal(vars.get('GRADLE_OPTS'), planted.GRADLE_OPTS);
  assert.doesNotMatch([...vars.values()].join('\n'), /env-test/);
  assert.equal(vars.get('HOME'), home);
  assert.equal(vars.get('GOPATH'), planted.GOPATH);
  assert.equal(vars.get('LC_ALL'), 'C.UTF-8');
  assert.equal(vars.get('GIT_TERMINAL_PROMPT'), '0');
});

test("the person's shell.env adds names and prefixes; a URL with credentials still never passes", async () => {
  const vars = await seen(['default_envelope = "mine"', '[envelopes.mine]', 'extends = "default"', '[envelopes.mine.shell]', 'env = ["MYAPP_*", "DATABASE_URL", "CUSTOM_DEPLOY_THING"]', ''].join('\n'));
  assert.equal(vars.get('MYAPP_MODE'), 'fast');
  assert.equal(vars.get('CUSTOM_DEPLOY_THING'), 'deploy-env-test');
  assert.equal(vars.has('DATABASE_URL'), false, 'postgres://app:PASS@… is dropped even when named');
  assert.equal(vars.has('DB_PASS'), false);
});

test('shell.env takes names only, and a project cannot set it', async () => {
  writeFileSync(path.join(home, '.contenox', 'agents.toml'), '[envelopes.bad]\nextends = "default"\n[envelopes.bad.shell]\nenv = ["OK_NAME", "NOT A NAME"]\n');
  const bad = await runCxl(['config'], { cwd: ws, env: { PATH: process.env.PATH, HOME: home } });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /envelopes\.bad\.shell\.env` lists environment variable names .*"NOT A NAME" is not one/);
  writeFileSync(path.join(home, '.contenox', 'agents.toml'), '');
  mkdirSync(path.join(ws, '.contenox'), { recursive: true });
  writeFileSync(path.join(ws, '.contenox', 'agents.toml'), '[envelopes.leaky]\nextends = "default"\n[envelopes.leaky.shell]\nenv = ["AWS_*"]\n');
  const project = await runCxl(['config', '--trust-project'], { cwd: ws, env: { PATH: process.env.PATH, HOME: home } });
  assert.equal(project.code, 1);
  assert.match(project.stderr, /a project cannot pass more of your environment to commands/);
  rmSync(path.join(ws, '.contenox'), { recursive: true });
});
