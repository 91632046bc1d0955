// A session's additional directories in the shell, tried as an attacker would: `cd` into one is
// allowed under the command policy, anywhere else (a sibling, a link out of one) still refused;
// a write there by a command nobody asked about lands only when the envelope lets commands write;
// a protected file there is hidden from a sandboxed command as it is in the workspace.
import assert from 'node:assert/strict';
import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { buildEnvelope, type EnvelopeSpec } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { Gate } from '../../../src/core/gate/gate.ts';
import { LocalShell } from '../../../src/core/shell/local_shell.ts';
import type { ShellResult } from '../../../src/core/shell/runner.ts';
import { DEFAULT_SHELL_POLICY } from '../../../src/core/shell/shell_policy.ts';
import { hasBwrap } from '../../helpers/system_tools.ts';
import { TempDirs } from '../../helpers/temp_dirs.ts';

const KEY = '-----BEGIN OPENSSH PRIVATE KEY----- extra-dir-test-key';
const temp = new TempDirs();
after(() => temp.removeAll());
const tempDir = (prefix: string) => temp.make(prefix);

/** The workspace, an additional directory (a note, a key, a link to the outside) and a directory outside both. */
function layout(): { ws: string; extra: string; outside: string } {
  const ws = tempDir('cxl-xdir-ws-');
  const extra = tempDir('cxl-xdir-extra-');
  const outside = tempDir('cxl-xdir-out-');
  writeFileSync(path.join(extra, 'notes.txt'), 'extra notes\n');
  mkdirSync(path.join(extra, 'sub'));
  mkdirSync(path.join(extra, '.ssh'));
  writeFileSync(path.join(extra, '.ssh', 'id_ed25519'), `${KEY}\n`);
  writeFileSync(path.join(outside, 'secret.txt'), 'outside\n');
  symlinkSync(outside, path.join(extra, 'out'));
  return { ws, extra, outside };
}

const policy = { ...DEFAULT_SHELL_POLICY, _allowed_commands: `${DEFAULT_SHELL_POLICY._allowed_commands},sh`, _allowed_dir: '.' };
const shell = (ws: string, extra?: string[]) => new LocalShell({ root: ws, policy, ...(extra ? { extra } : {}) });

describe('cd and paths under the command policy', () => {
  test('cd into an additional directory is allowed, and runs there', async () => {
    const { ws, extra } = layout();
    const sh = shell(ws, [extra]);
    assert.equal(sh.check({ command: `cd ${extra}/sub && pwd` })?.verdict, 'allow');
    const r = (await sh.call('local_shell', { command: `cd ${extra} && pwd` }, { sandbox: { mode: 'off', network: true, profile: 'workspace-write' } })) as ShellResult;
    assert.equal(r.stdout.trim(), extra);
    // a start directory there and a path word there
    assert.equal(sh.check({ command: 'cat notes.txt', cwd: extra })?.verdict, 'allow');
    assert.equal(sh.check({ command: `cat ${extra}/notes.txt` })?.verdict, 'allow');
    // without the directory the same lines are refused: the test is real
    assert.equal(shell(ws).check({ command: `cd ${extra}` })?.verdict, 'refuse');
    assert.equal(shell(ws).check({ command: `cat ${extra}/notes.txt` })?.verdict, 'refuse');
  });

  test('cd outside every root is still refused: a sibling, .. out of the directory, a link out of it', () => {
    const { ws, extra, outside } = layout();
    const sh = shell(ws, [extra]);
    for (const line of [`cd ${outside}`, `cd ${extra}/..`, `cd ${extra}/out`, `cd ${extra} && cd ..`, `cd ${extra}/out/..`, 'cd /']) {
      const v = sh.check({ command: line });
      assert.equal(v?.verdict, 'refuse', line);
      assert.equal(v?.verdict === 'refuse' && v.rule, 'cd-escape', line);
    }
    const read = sh.check({ command: `cat ${extra}/out/secret.txt` });
    assert.equal(read?.verdict === 'refuse' && read.rule, 'path-outside', 'a path through the link out is outside');
    assert.equal(sh.check({ command: 'pwd', cwd: outside })?.verdict, 'refuse', 'a cwd outside every root');
  });
});

describe('the envelope takes an additional directory as the workspace', () => {
  const decide = async (ws: string, command: string, extra?: string[], withPolicy = true) => {
    const gate = new Gate({ envelope: buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES), root: ws });
    gate.add(new LocalShell({ root: ws, ...(withPolicy ? { policy } : {}), ...(extra ? { extra } : {}) }));
    const r = await gate.evaluate('local_shell', { command });
    return `${r.decision.action}:${r.decision.rule}`;
  };

  test('a read-only line there runs unasked as in the workspace; outside every root it asks; a read-approve file there still asks', async () => {
    const { ws, extra, outside } = layout();
    writeFileSync(path.join(extra, '.env'), 'S=1\n');
    for (const withPolicy of [true, false]) {
      assert.equal(await decide(ws, `cat ${extra}/notes.txt`, [extra], withPolicy), 'allow:shell.prefix_allowlist', `policy ${withPolicy}`);
      assert.equal(await decide(ws, `cat ${extra}/notes.txt`, undefined, false), 'approve:shell', 'without the directory it is outside');
      assert.equal(await decide(ws, `cat ${outside}/secret.txt`, [extra], false), 'approve:shell');
      assert.equal(await decide(ws, `grep -r x ${extra}/out`, [extra], false), 'approve:shell', 'a recursive read following a link out asks');
    }
    assert.equal(await decide(ws, `cd ${extra} && cat notes.txt`, [extra]), 'allow:shell.prefix_allowlist');
    assert.notEqual(await decide(ws, `cat ${extra}/.env`, [extra], false), 'allow:shell.prefix_allowlist');
  });

  test('a hard link there to a read-approve file there asks as that file does: its links are looked for in the directory holding it', async () => {
    const { ws, extra } = layout();
    writeFileSync(path.join(extra, '.env'), 'S=1\n');
    linkSync(path.join(extra, '.env'), path.join(extra, 'env-copy.txt'));
    for (const withPolicy of [true, false]) assert.notEqual(await decide(ws, `cat ${extra}/env-copy.txt`, [extra], withPolicy), 'allow:shell.prefix_allowlist', `policy ${withPolicy}`);
    assert.equal(await decide(ws, `cat ${extra}/notes.txt`, [extra]), 'allow:shell.prefix_allowlist', 'an ordinary file there still runs unasked');
  });
});

describe('the sandbox treats an additional directory as the workspace', () => {
  const haveBwrap = hasBwrap('the additional-directory sandbox tests (test/core/shell/extra_dirs.test.ts)');
  // no command policy (its argument rules refuse `sh -c`): what runs is the envelope's and the sandbox's
  const gateFor = (ws: string, extra: string, spec: EnvelopeSpec) => {
    const gate = new Gate({ envelope: buildEnvelope('t', { ...SHIPPED_ENVELOPES, t: spec }, FLOOR_RULES), root: ws });
    gate.add(new LocalShell({ root: ws, extra: [extra] }));
    return gate;
  };

  test('an unasked write lands in the additional directory only when the envelope lets commands write', async () => {
    if (!haveBwrap) return;
    const { ws, extra, outside } = layout();
    const line = `sh -c 'echo w > ${extra}/written.txt; echo w > ${outside}/written.txt'`;
    // a command that runs unasked (the prefix allowlist) gets the read-only profile
    // (contract/sandbox_decision.ts); `sh -c` itself always asks, so the profile is given here
    const ro = (await new LocalShell({ root: ws, extra: [extra] }).call('local_shell', { command: line }, { sandbox: { mode: 'auto', network: true, profile: 'read-only' } })) as ShellResult;
    assert.equal(ro.sandbox?.profile, 'read-only');
    assert.equal(existsSync(path.join(extra, 'written.txt')), false, 'read-only: nothing written in the additional directory');
    // the envelope allows commands: workspace-write, the additional directory writable like the workspace
    const rw = await gateFor(ws, extra, { shell: { grant: { grant: 'allow' } } }).call('local_shell', { command: line });
    assert.equal((rw.result as ShellResult).sandbox?.profile, 'workspace-write');
    assert.equal(readFileSync(path.join(extra, 'written.txt'), 'utf8'), 'w\n');
    assert.equal(existsSync(path.join(outside, 'written.txt')), false, 'outside every root: still not written');
  });

  test('a protected file in the additional directory is hidden from a sandboxed command', async () => {
    if (!haveBwrap) return;
    const { ws, extra } = layout();
    const r = (await new LocalShell({ root: ws, extra: [extra] }).call('local_shell', { command: 'cat', args: [path.join(extra, 'notes.txt'), path.join(extra, '.ssh', 'id_ed25519')] }, { sandbox: { mode: 'auto', network: true, profile: 'workspace-write' } })) as ShellResult;
    assert.equal(r.sandbox?.state, 'bubblewrap');
    assert.match(r.stdout, /extra notes/, 'the directory is visible');
    assert.doesNotMatch(r.stdout + r.stderr, /extra-dir-test-key/);
    const grep = (await new LocalShell({ root: ws, extra: [extra] }).call('local_shell', { command: 'grep', args: ['-r', 'extra', extra] }, { sandbox: { mode: 'auto', network: true, profile: 'read-only' } })) as ShellResult;
    assert.match(grep.stdout, /extra notes/);
    assert.doesNotMatch(grep.stdout + grep.stderr, /extra-dir-test-key/);
  });
});
