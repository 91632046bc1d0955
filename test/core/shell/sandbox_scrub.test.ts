// What is left of a toolchain's config file once its credential lines are taken out (what an
// unasked command reads in its place: sandbox_home.test.ts runs it for real). Each secret below
// is written the ways the tools accept it; beside each, a setting the build needs must survive.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scrubGitConfig, scrubLines } from '../../../src/core/shell/sandbox/scrub.ts';

const SECRET = /SECRET/;

test('git config: credential sections, a login in a section name, secret keys and logins in values go; names, aliases, ssh insteadOf and signing key ids stay', () => {
  const text = [
    '[user]',
    '\tname = Jane',
    '\temail = jane@example.com',
    '\tsigningkey = ABCDEF0123',
    '[credential]',
    '\thelper = "!f() { echo password=SECRET; }; f"',
    '[credential "https://git.internal"]',
    '\tusername = jane',
    '[url "https://SECRET@github.com/"]',
    '\tinsteadOf = https://github.com/',
    '[url "git@github.com:"]',
    '\tinsteadOf = https://github.com/',
    '\tpushInsteadOf = https://oauth2:SECRET@gitlab.com/',
    '[http "https://git.internal/"]',
    '\textraHeader = Authorization: Basic SECRETSECRET',
    '\tsslVerify = true',
    '[http]',
    '\tproxy = user:SECRET@proxy:3128',
    '[sendemail]',
    '\tsmtpPass = SECRET',
    '\tsmtpServer = smtp.example.com',
    '[github] token = SECRET',
    '[core] pager = less',
    '[alias]',
    '\tlg = log --graph \\',
    '\t  --oneline',
    '[hub]',
    '\toauthtoken = long \\',
    '\t  SECRET',
  ].join('\n');
  const out = scrubGitConfig(text);
  assert.doesNotMatch(out, SECRET, out);
  for (const kept of ['name = Jane', 'email = jane@example.com', 'signingkey = ABCDEF0123', '[url "git@github.com:"]', 'insteadOf = https://github.com/', 'sslVerify = true', 'smtpServer = smtp.example.com', '[github]', '[core] pager = less', 'lg = log --graph \\\n\t  --oneline']) {
    assert.ok(out.includes(kept), `${kept} stays:\n${out}`);
  }
  assert.doesNotMatch(out, /credential|username = jane/);
  assert.equal(scrubGitConfig('[user]\n\tname = x\n'), '[user]\n\tname = x\n', 'a file without secrets is unchanged');
});

test('key = value files: cargo, npm, pip, go env, cabal, condarc, mise; each secret form goes, the settings beside it stay', () => {
  const cases: [string, string[]][] = [
    [
      '[build]\njobs = 2\n[registry]\ntoken = "SECRET"\ndefault = "crates-io"\nglobal-credential-providers = [\n  "cargo:SECRET",\n]\n[registries]\nmine = { index = "https://u:SECRET@crates.internal/index" }\nother = { index = "sparse+https://crates.internal/", token = "SECRET" }\n[http]\nproxy = "u:SECRET@proxy:3128"\ntimeout = 30\n[net]\ngit-fetch-with-cli = true',
      ['jobs = 2', 'default = "crates-io"', '[registries]', 'timeout = 30', 'git-fetch-with-cli = true'],
    ],
    ['//registry.npmjs.org/:_authToken=SECRET\n//npm.internal/:_auth=SECRET\n//npm.internal/:_password=SECRET\nregistry=https://registry.npmjs.org/\nprefix=/opt/node', ['registry=https://registry.npmjs.org/', 'prefix=/opt/node']],
    ['[global]\nextra-index-url =\n    https://u:SECRET@pypi.internal/simple\n    https://pypi.org/simple\ntimeout = 60', ['[global]', 'https://pypi.org/simple', 'timeout = 60']],
    ['GOPROXY=https://u:SECRET@athens.internal,direct\nGOFLAGS=-mod=mod\nGOPRIVATE=github.com/me/*\nGOAUTH=git dir', ['GOFLAGS=-mod=mod', 'GOPRIVATE=github.com/me/*', 'GOAUTH=git dir']],
    ['username: jane\npassword: SECRET\npassword-command: pass show SECRET\njobs: $ncpus', ['username: jane', 'jobs: $ncpus']],
    ['channels:\n  - https://conda.anaconda.org/t/ab-SECRETSECRET-cd/private\n  - conda-forge\nproxy_servers:\n  https: u:SECRET@proxy:3128\nssl_verify: true', ['channels:', '- conda-forge', 'ssl_verify: true']],
    ['[env]\nGITHUB_TOKEN = "SECRET"\nAWS_SECRET_ACCESS_KEY = "SECRET"\nOPENAI_API_KEY = "SECRET"\nDATABASE_URL = "postgres://app:SECRET@db/app"\nNODE_ENV = "development"\n[tools]\nnode = "20"', ['NODE_ENV = "development"', 'node = "20"']],
  ];
  for (const [text, kept] of cases) {
    const out = scrubLines(text);
    assert.doesNotMatch(out, SECRET, out);
    for (const k of kept) assert.ok(out.includes(k), `${k} stays:\n${out}`);
  }
  const plain = '[build]\njobs = 2\nauthor = "Jane"\n';
  assert.equal(scrubLines(plain), plain, 'a file without secrets is unchanged (an author is not auth)');
});
