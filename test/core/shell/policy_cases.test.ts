// The starter corpus of hostile and legitimate command lines, as a table: every case must get its
// expected verdict. Cases that need argument-level rules (not part of the policy yet) are known
// gaps: their current verdict is asserted so a change is noticed (docs/local-shell.md lists them).
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

// Current verdicts of the cases that need argument-level rules: allowed today because only
// programs are checked (sh-139 and sh-159 are refused anyway, by `{` and by the leading `~`).
const KNOWN_GAPS: Record<string, 'allow' | 'refuse'> = {
  'sh-139': 'refuse',
  'sh-142': 'allow',
  'sh-145': 'allow',
  'sh-148': 'allow',
  'sh-151': 'allow',
  'sh-154': 'allow',
  'sh-156': 'allow',
  'sh-159': 'refuse',
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

test('the table is complete: 55 cases, every `requires` case listed as a known gap', () => {
  assert.equal(data.cases.length, 55);
  const gaps = data.cases.filter((c) => c.requires).map((c) => c.id);
  assert.deepEqual(gaps.sort(), Object.keys(KNOWN_GAPS).sort());
});

describe('policy cases', () => {
  for (const c of data.cases.filter((c) => !c.requires)) {
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

describe('known gaps (need argument-level rules; current verdict asserted)', () => {
  for (const c of data.cases.filter((c) => c.requires)) {
    test(`${c.id} [${c.requires}] currently ${KNOWN_GAPS[c.id]}: ${c.cmd}`, () => {
      assert.equal(c.expect, 'refuse');
      assert.equal(verdictOf(c).verdict, KNOWN_GAPS[c.id], `${c.why}: if this now refuses, move the case out of KNOWN_GAPS and update docs/local-shell.md`);
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
