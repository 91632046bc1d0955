// What an unasked command sees of the home directory: the toolchains' caches and configs, the
// workspace if it lives there, and nothing else (another project, notes, a dot-dir nobody
// listed). The attacker is a test file of the cloned repository run by `node --test`, opening
// paths under $HOME itself; the same file approved sees the home (minus the table's paths), and
// a program installed in ~/.local/bin still runs unasked.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, describe, test } from 'node:test';
import { buildEnvelope } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { Gate, type ApprovalAnswer } from '../../../src/core/gate/gate.ts';
import type { ShellResult } from '../../../src/core/shell/runner.ts';
import { LocalShell } from '../../../src/core/shell/local_shell.ts';
import { hasBwrap } from '../../helpers/system_tools.ts';

// outside /tmp, which every sandboxed command already sees as its own empty one
const base = realpathSync(mkdtempSync(path.join(existsSync('/var/tmp') ? '/var/tmp' : os.homedir(), 'cxl-home-')));
after(() => rmSync(base, { recursive: true, force: true }));
const home = path.join(base, 'home');
const proj = path.join(home, 'src', 'proj');

function put(rel: string, text: string, mode?: number): string {
  const p = path.join(home, rel);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, text);
  if (mode !== undefined) chmodSync(p, mode);
  return p;
}

const hidden = [
  put('src/other-project/.env.production', 'other-project-marker-h\n'),
  put('src/other-project/README.md', 'other-readme-marker-h\n'),
  put('notes.txt', 'notes-marker-h\n'),
  put('.unknown-tool/token', 'unknown-dotdir-marker-h\n'),
  put('.cargo/credentials.toml', 'token = "cargo-marker-h"\n'),
];
const visible = [put('.cargo/registry/index.txt', 'cargo-cache-ok\n'), put('.gitconfig', '[user]\n\tname = gitconfig-ok\n'), put('src/proj/own.txt', 'own-workspace-ok\n')];
put('.local/bin/hello-tool', '#!/bin/sh\necho tool-on-path-ok\n', 0o755);
put(
  'src/proj/test/home.test.js',
  `const fs = require('node:fs');
const { execFileSync } = require('node:child_process');
require('node:test').test('home', () => {
  for (const p of ${JSON.stringify([...hidden, ...visible])}) {
    try { console.log('READ ' + JSON.stringify(fs.readFileSync(p, 'utf8'))); } catch (e) { console.log('REFUSED ' + e.code); }
  }
  console.log('LIST ' + JSON.stringify(fs.readdirSync(${JSON.stringify(home)}).sort()));
  console.log('RAN ' + execFileSync('hello-tool').toString().trim());
});
`,
);
const env = { PATH: `${path.join(home, '.local', 'bin')}:${process.env.PATH}`, HOME: home };

function gateFor(root: string, answers: ApprovalAnswer[] = [], envelope = 'default') {
  const approver = async () => answers.shift() ?? { outcome: 'reject' as const };
  const gate = new Gate({ envelope: buildEnvelope(envelope, SHIPPED_ENVELOPES, FLOOR_RULES), approver, root });
  gate.add(new LocalShell({ root, env }));
  return gate;
}

const haveBwrap = hasBwrap('the home-view tests (test/core/shell/sandbox_home.test.ts)');

describe('the read-only profile sees the home through the toolchain allowlist', () => {
  test('unasked, a test file reads its own workspace and the toolchains, runs a program from ~/.local/bin, and sees nothing else of the home', async () => {
    if (!haveBwrap) return;
    const r = await gateFor(proj).call('local_shell', { command: 'node --test test/home.test.js' });
    const out = (r.result as ShellResult).stdout;
    assert.equal((r.result as ShellResult).sandbox?.profile, 'read-only');
    assert.doesNotMatch(out, /marker-h/, out);
    assert.equal((out.match(/REFUSED ENOENT/g) ?? []).length, hidden.length - 1, out);
    assert.match(out, /REFUSED (EACCES|ENOENT)/, 'the cargo token inside a kept dir stays hidden');
    for (const ok of ['cargo-cache-ok', 'gitconfig-ok', 'own-workspace-ok']) assert.match(out, new RegExp(`READ .*${ok}`));
    assert.match(out, /RAN tool-on-path-ok/);
    assert.match(out, /LIST \["\.cargo","\.gitconfig","\.local","src"\]/, 'the home lists the toolchains and the way to the workspace only');
  });

  test('approved (workspace-write) the home is visible but for the protected paths; a workspace that is the home sees it too', async () => {
    if (!haveBwrap) return;
    const r = await gateFor(proj, [{ outcome: 'allow_once' }], 'ask_always').call('local_shell', { command: 'node --test test/home.test.js' });
    const out = (r.result as ShellResult).stdout;
    assert.equal(r.approvedBy, 'human');
    assert.equal((r.result as ShellResult).sandbox?.profile, 'workspace-write');
    for (const seen of ['other-readme-marker-h', 'notes-marker-h', 'unknown-dotdir-marker-h']) assert.match(out, new RegExp(seen));
    assert.doesNotMatch(out, /cargo-marker-h/, "the table's home names stay hidden");
    const atHome = await gateFor(home).call('local_shell', { command: 'node --test src/proj/test/home.test.js' });
    const homeOut = (atHome.result as ShellResult).stdout;
    assert.equal((atHome.result as ShellResult).sandbox?.profile, 'read-only');
    assert.match(homeOut, /notes-marker-h/, 'the workspace is the home: all of it is the workspace');
    assert.doesNotMatch(homeOut, /cargo-marker-h|other-project-marker-h/, 'and the scan of the workspace hides its .env files');
  });
});

// Credentials inside the toolchains' own dirs: a config file that mixes what a build needs with a
// token is read as a copy without the token's lines; a credential store is hidden; code that may
// carry credentials is withheld. Each marker `…-marker-c` must never be printed; each `…-ok`
// beside it must be.
const chome = path.join(base, 'chome');
const cproj = path.join(chome, 'src', 'proj');
function cput(rel: string, text: string): string {
  const p = path.join(chome, rel);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, text);
  return p;
}
const creds = {
  gitconfig: cput(
    '.gitconfig',
    [
      '[user]',
      '\tname = gitconfig-user-ok',
      '\temail = me@example.com',
      '[url "https://ghp_insteadof-marker-c@github.com/"]',
      '\tinsteadOf = https://github.com/',
      '[credential]',
      '\thelper = "!f() { echo password=credhelper-marker-c; }; f"',
      '[http "https://git.internal/"]',
      '\textraHeader = Authorization: Bearer extraheader-marker-c',
      '[http]',
      '\tproxy = proxyuser:gitproxy-marker-c@proxy.internal:3128',
      '[alias]',
      '\tst = status # alias-ok',
      '',
    ].join('\n'),
  ),
  xdgGit: cput('.config/git/config', '[github]\n\ttoken = xdg-git-marker-c\n[core]\n\tautocrlf = input # xdg-git-ok\n'),
  gitInclude: cput('.config/git/work.inc', '[user]\n\temail = include-marker-c@work\n'),
  cargo: cput(
    '.cargo/config.toml',
    [
      '[build]',
      'jobs = 2 # cargo-config-ok',
      '[registry]',
      'token = "cargo-config-token-marker-c"',
      'global-credential-providers = [',
      '  "cargo:token-from-marker-c",',
      ']',
      '[registries.private]',
      'index = "https://cargo-user:cargo-index-marker-c@crates.internal/index"',
      '[http]',
      'proxy = "cuser:cargo-proxy-marker-c@proxy:3128"',
      'timeout = 30 # cargo-http-ok',
      '',
    ].join('\n'),
  ),
  goEnv: cput('.config/go/env', 'GOPROXY=https://gouser:goproxy-marker-c@athens.internal,direct\nGOFLAGS=-mod=mod\n'),
  npmGlobal: cput('.nvm/versions/node/v20.0.0/etc/npmrc', '//registry.npmjs.org/:_authToken=npm-global-marker-c\nregistry=https://registry.npmjs.org/ ; npm-registry-ok\n'),
  venvPip: cput('.virtualenvs/proj/pip.conf', '[global]\nindex-url = https://u:pip-venv-marker-c@pypi.internal/simple\ntimeout = 60 ; pip-timeout-ok\n'),
  cabal: cput('.cabal/config', 'repository hackage.haskell.org\n  url: http://hackage.haskell.org/\nusername: me\npassword: cabal-marker-c\njobs: $ncpus -- cabal-jobs-ok\n'),
  ivy: cput('.ivy2/.credentials', 'realm=Sonatype\nhost=oss\nuser=me\npassword=ivy-marker-c\n'),
  sbt: cput('.sbt/.credentials', 'password=sbt-marker-c\n'),
  stack: cput('.stack/upload/credentials.json', '{"username":"me","password":"stack-marker-c"}\n'),
  uv: cput('.local/share/uv/credentials/credentials.toml', '[[credential]]\npassword = "uv-marker-c"\n'),
  julia: cput('.julia/servers/pkg.example.com/auth.toml', 'access_token = "julia-marker-c"\n'),
  gradleInit: cput('.gradle/init.d/repos.gradle', 'credentials { password "gradle-init-marker-c" }\n'),
};
const cvisible = [cput('.stack/config.yaml', 'stack-config-ok\n'), cput('.julia/registries/General.toml', 'julia-registry-ok\n'), cput('.gradle/caches/x', 'gradle-cache-ok\n'), cput('.local/share/uv/python/x', 'uv-python-ok\n')];
cput(
  'src/proj/test/creds.test.js',
  `const fs = require('node:fs');
const { execFileSync } = require('node:child_process');
require('node:test').test('creds', () => {
  for (const p of ${JSON.stringify([...Object.values(creds), ...cvisible])}) {
    try { console.log('READ ' + JSON.stringify(fs.readFileSync(p, 'utf8'))); } catch (e) { console.log('REFUSED ' + e.code); }
  }
  const git = (...a) => { try { return execFileSync('git', a, { encoding: 'utf8' }).trim(); } catch (e) { return 'FAILED ' + e.status; } };
  console.log('GIT NAME ' + git('config', '--global', 'user.name'));
  console.log('GIT URLS ' + JSON.stringify(git('config', '--global', '--get-regexp', '^url')));
  console.log('GO FLAGS ' + execFileSync('go', ['env', 'GOFLAGS', 'GOPROXY'], { encoding: 'utf8' }).trim().split('\\n').join(' '));
});
`,
);
const cenv = { PATH: process.env.PATH, HOME: chome, GOTOOLCHAIN: 'local' };

function cgate(root: string, answers: ApprovalAnswer[] = [], envelope = 'default') {
  const approver = async () => answers.shift() ?? { outcome: 'reject' as const };
  const gate = new Gate({ envelope: buildEnvelope(envelope, SHIPPED_ENVELOPES, FLOOR_RULES), approver, root });
  gate.add(new LocalShell({ root, env: cenv }));
  return gate;
}

const OK = ['gitconfig-user-ok', 'alias-ok', 'xdg-git-ok', 'cargo-config-ok', 'cargo-http-ok', 'GOFLAGS=-mod=mod', 'npm-registry-ok', 'pip-timeout-ok', 'cabal-jobs-ok', 'stack-config-ok', 'julia-registry-ok', 'gradle-cache-ok', 'uv-python-ok'];

describe("credentials inside the toolchains' own dirs", () => {
  test('unasked, a test reads user.name and each config without its token lines; the credential stores and init scripts are not readable; git and go still read their config', async () => {
    if (!haveBwrap) return;
    const r = await cgate(cproj).call('local_shell', { command: 'node --test test/creds.test.js' });
    const res = r.result as ShellResult;
    const out = res.stdout;
    assert.equal(res.sandbox?.profile, 'read-only');
    assert.doesNotMatch(out, /marker-c/, out);
    for (const ok of OK) assert.match(out, new RegExp(`READ .*${ok.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), `${ok} is readable: ${out}`);
    assert.match(out, /GIT NAME gitconfig-user-ok/);
    assert.match(out, /GIT URLS "FAILED 1"/, 'no url.* key reaches git (exit 1: none found)');
    assert.match(out, /GO FLAGS -mod=mod https:\/\/proxy\.golang\.org,direct/, "go reads its env file, without the login's GOPROXY");
    // the stores: ivy, sbt, stack, uv, julia, the gradle init script, git's include file
    assert.ok((out.match(/REFUSED (ENOENT|EACCES)/g) ?? []).length >= 7, out);
  });

  test('a workspace that is the home: an unasked command still reads the scrubbed copy', async () => {
    if (!haveBwrap) return;
    const r = await cgate(chome).call('local_shell', { command: 'node --test src/proj/test/creds.test.js' });
    const out = (r.result as ShellResult).stdout;
    assert.equal((r.result as ShellResult).sandbox?.profile, 'read-only');
    assert.match(out, /GIT NAME gitconfig-user-ok/);
    assert.doesNotMatch(out, /insteadof-marker-c|credhelper-marker-c|extraheader-marker-c|gitproxy-marker-c|cargo-config-token-marker-c|goproxy-marker-c|ivy-marker-c|stack-marker-c/, out);
  });

  test('approved, the credential stores stay hidden (the table), while the config files are the person’s own again', async () => {
    if (!haveBwrap) return;
    const r = await cgate(cproj, [{ outcome: 'allow_once' }], 'ask_always').call('local_shell', { command: 'node --test test/creds.test.js' });
    const out = (r.result as ShellResult).stdout;
    assert.equal((r.result as ShellResult).sandbox?.profile, 'workspace-write');
    assert.doesNotMatch(out, /ivy-marker-c|sbt-marker-c|stack-marker-c|uv-marker-c|julia-marker-c/, out);
    assert.match(out, /gradle-init-marker-c/, 'an approved build runs with its init scripts');
  });
});
