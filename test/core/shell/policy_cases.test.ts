// The starter corpus of hostile and legitimate command lines, as a table: every case must get its
// expected verdict, the ones that need argument-level rules (`requires`) included.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { checkLine } from '../../../src/core/shell/checker.ts';
import { stubBin, tempRoot } from './helpers.ts';

interface Case {
  id: string;
  cmd: string;
  allowed_commands: string[] | 'DEFAULT';
  denied_commands: string[] | 'DEFAULT';
  expect: 'allow' | 'refuse';
  basis: string;
  why: string;
  allowed_dir?: 'ROOT';
  setup?: string[];
  requires?: string;
  note?: string;
}

const data = JSON.parse(readFileSync(new URL('./policy_cases.json', import.meta.url), 'utf8')) as {
  default_allowed_commands: string[];
  default_denied_commands: string[];
  cases: Case[];
};

const { root, cleanup } = tempRoot('cxl-policy-cases-');
after(cleanup);
const bin = stubBin(path.join(root, 'bin'), [...data.default_allowed_commands, ...data.default_denied_commands]);

function setupCase(c: Case): string {
  const dir = path.join(root, c.id);
  mkdirSync(dir);
  for (const s of c.setup ?? []) {
    let m: RegExpExecArray | null;
    if ((m = /^mkdir ROOT\/(.+)$/.exec(s))) mkdirSync(path.join(dir, m[1]), { recursive: true });
    else if ((m = /^symlink ROOT\/(\S+) -> (\S+)$/.exec(s))) symlinkSync(m[2], path.join(dir, m[1]));
    else throw new Error(`unknown setup step ${s}`);
  }
  return dir;
}

function verdictOf(c: Case) {
  const dir = setupCase(c);
  return checkLine(
    c.cmd,
    {
      allowedCommands: c.allowed_commands === 'DEFAULT' ? data.default_allowed_commands : c.allowed_commands,
      deniedCommands: c.denied_commands === 'DEFAULT' ? data.default_denied_commands : c.denied_commands,
      allowedDir: c.allowed_dir ? dir : undefined,
    },
    { cwd: dir, pathEnv: bin },
  );
}

test('the table is complete: 55 cases, 8 of them needing argument-level rules', () => {
  assert.equal(data.cases.length, 55);
  assert.equal(data.cases.filter((c) => c.requires).length, 8);
});

describe('policy cases', () => {
  for (const c of data.cases) {
    test(`${c.id} ${c.expect}: ${JSON.stringify(c.cmd.length > 60 ? `${c.cmd.slice(0, 60)}…` : c.cmd)} (${c.basis})`, () => {
      const v = verdictOf(c);
      assert.equal(v.verdict, c.expect, `${c.why}\n${JSON.stringify(v, null, 1)}`);
      if (v.verdict === 'refuse') {
        assert.ok(v.reason.length > 20, 'a refusal says why');
        assert.ok(v.position >= 0 && v.position <= c.cmd.length, 'the position lies in the line');
      } else {
        assert.ok(v.steps.length >= 1);
        for (const s of v.steps) if (s.kind === 'run') assert.equal(s.resolved, path.join(bin, s.program), 'resolved once on PATH and reported');
      }
    });
  }
});

test('specific reasons: the rule and construct named for representative cases', () => {
  const byId = new Map(data.cases.map((c) => [c.id, c]));
  const expectRule: Record<string, [string, string | RegExp]> = {
    'sh-022': ['denied', 'rm'],
    'sh-028': ['denied', 'curl'],
    'sh-032': ['syntax', 'newline'],
    'sh-041': ['syntax', /backtick|`/],
    'sh-047': ['syntax', /\$\{/],
    'sh-096': ['not-allowlisted', '/usr/bin/git'],
    'sh-103': ['syntax', /U\+0261/],
    'sh-127': ['cd-escape', '../..'],
    'sh-133': ['cd-escape', 'link_etc'],
    'sh-137': ['program-path', './run.sh'],
    // the argument rules, each named with the program and the flag or path
    'sh-142': ['argument', 'find -fprint'],
    'sh-145': ['argument', 'git --upload-pack'],
    'sh-148': ['path-outside', '..'],
    'sh-151': ['argument', 'go github.com/evil/x@latest'],
    'sh-154': ['argument', 'sed e'],
    'sh-156': ['needs-approval', '.env'],
  };
  for (const [id, [rule, construct]] of Object.entries(expectRule)) {
    const v = verdictOf({ ...byId.get(id)!, id: `${id}-r` });
    assert.equal(v.verdict, 'refuse', id);
    if (v.verdict !== 'refuse') continue;
    assert.equal(v.rule, rule, id);
    if (typeof construct === 'string') assert.equal(v.construct, construct, id);
    else assert.match(v.construct, construct, id);
  }
  // sh-028: the refusal is in the last of 61 steps: nothing stops checking early.
  const v = verdictOf({ ...byId.get('sh-028')!, id: 'sh-028-s' });
  assert.equal(v.verdict === 'refuse' && v.step, 60);
});
