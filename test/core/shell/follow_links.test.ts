// Links out of the workspace met by a reader that follows them, as an attacker would plant them
// in a cloned repository: `a/settings -> ../../other/.npmrc` read by `diff -r`, a link to another
// project's plain config (no protected name, still outside), a linked directory walked by
// `ls -RL` and `grep -R`. Each asks like naming the target on the command line would; the same
// readers over links that stay inside, or that do not follow links, still run unasked.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { buildEnvelope } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { isToolError } from '../../../src/core/errors.ts';
import { Gate, type ApprovalAnswer, type ApprovalRequest } from '../../../src/core/gate/gate.ts';
import type { ShellResult } from '../../../src/core/shell/runner.ts';
import { LocalShell } from '../../../src/core/shell/local_shell.ts';

const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'cxl-links-')));
after(() => rmSync(base, { recursive: true, force: true }));
const other = path.join(base, 'other');
const ws = path.join(base, 'ws');
for (const d of [other, path.join(other, 'dir'), path.join(ws, 'a'), path.join(ws, 'b'), path.join(ws, 'c'), path.join(ws, 'd'), path.join(ws, 'e'), path.join(ws, 'f')]) mkdirSync(d, { recursive: true });
writeFileSync(path.join(other, '.npmrc'), '//registry.npmjs.org/:_authToken=npmrc-link-marker\n');
writeFileSync(path.join(other, 'deploy.json'), '{"token":"plain-link-marker"}\n');
writeFileSync(path.join(other, 'dir', 'secret.txt'), 'dir-link-marker\n');
// a: a link to a protected name outside; c: to a plain file outside; e: to a directory outside
symlinkSync('../../other/.npmrc', path.join(ws, 'a', 'settings'));
writeFileSync(path.join(ws, 'b', 'settings'), 'x\n');
symlinkSync(path.join(other, 'deploy.json'), path.join(ws, 'c', 'deploy.json'));
writeFileSync(path.join(ws, 'd', 'deploy.json'), '{}\n');
symlinkSync(path.join(other, 'dir'), path.join(ws, 'e', 'linked'));
// f: a link that stays inside
symlinkSync('../b/settings', path.join(ws, 'f', 'settings'));

function gate(approver?: (r: ApprovalRequest) => Promise<ApprovalAnswer>) {
  const g = new Gate({ envelope: buildEnvelope('default', SHIPPED_ENVELOPES, FLOOR_RULES), ...(approver ? { approver } : {}) });
  g.add(new LocalShell({ root: ws }));
  return g;
}

async function action(command: string): Promise<string> {
  const v = await gate().evaluate('local_shell', { command });
  return v.decision.action;
}

describe('links a reader follows out of the workspace', () => {
  for (const command of ['diff -r a b', 'diff -r c d', 'diff -ru c d', 'ls -RL e', 'ls -R -L .', 'grep -R marker e', 'du -L e', 'find -L e']) {
    test(`\`${command}\` asks`, async () => {
      assert.notEqual(await action(command), 'allow');
    });
  }

  for (const command of ['diff -r b f', 'diff -r --no-dereference c d', 'ls -R e', 'grep -r marker e', 'ls -L c']) {
    test(`\`${command}\` (no link followed out) runs unasked`, async () => {
      assert.equal(await action(command), 'allow');
    });
  }

  test('the question names where the link leads, and a no means nothing is printed', async () => {
    const asked: ApprovalRequest[] = [];
    const g = gate(async (r) => {
      asked.push(r);
      return { outcome: 'reject' };
    });
    const err = await g.call('local_shell', { command: 'diff -r c d' }).catch((e: unknown) => e);
    assert.ok(isToolError(err) && err.code === 'rejected', String(err));
    assert.equal(asked.length, 1);
    assert.match(asked[0].decision.sentence, /deploy\.json|outside/);
  });

  test('a link that stays inside is read unasked, and diff really follows it', async () => {
    const r = await gate().call('local_shell', { command: 'diff -r b f' });
    assert.equal(r.decision.action, 'allow');
    assert.equal((r.result as ShellResult).exit_code, 0);
  });
});
