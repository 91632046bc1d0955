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
