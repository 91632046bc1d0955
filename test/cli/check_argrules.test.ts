// The argument rules at both levels, as a user checks them: the command policy's verdict through
// `cxl check --batch`, the `default` envelope's decision (with git's reads added to its prefix
// allowlist, as a person who wants them through the shell writes it in their agents.toml)
// through `cxl check --batch --envelope with_git`, over the table of cases by class
// (test/core/shell/argrules_cases.ts), each answer
// naming the rule that decided. Two processes per runtime, every case in each. The envelope's
// column is its decision where a sandbox works: the envelope batch finds bwrap (alone in a
// directory of its own) after the stubs; on a machine without it, what the prefix allowlist
// allows asks, as a call there would.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { after, describe, test } from 'node:test';
import { DEFAULT_PREFIX_ALLOWLIST, GIT_READ_PREFIXES } from '../../src/core/envelope/shipped.ts';
import { runCxl } from '../helpers/cxl.ts';
import { findOnPath, note } from '../helpers/system_tools.ts';
import { CASE_ALLOW, CASES, workspace, type ArgCase } from '../core/shell/argrules_cases.ts';
import { tempRoot } from '../core/shell/helpers.ts';

const { root: base, cleanup } = tempRoot('cxl-argrules-cli-');
after(cleanup);
const { root, bin } = workspace(base);
const fill = (s: string) => s.replaceAll('{BIN}', bin).replaceAll('{ROOT}', root);
// the user's own config (HOME is `base`): `default` with git's reads added back
mkdirSync(path.join(base, '.contenox'), { recursive: true });
writeFileSync(path.join(base, '.contenox', 'agents.toml'), `[envelopes.with_git]\nextends = "default"\n[envelopes.with_git.shell]\nprefix_allowlist = ${JSON.stringify([...DEFAULT_PREFIX_ALLOWLIST, ...GIT_READ_PREFIXES])}\n`);

function request(c: ArgCase, envelope?: string): string {
  return JSON.stringify({
    cmd: fill(c.cmd),
    allowed_commands: (c.allow ?? CASE_ALLOW).map(fill),
    ...(c.deny ? { denied_commands: c.deny } : {}),
    allowed_dir: root,
    cwd: path.join(root, c.cwd ?? '.'),
    ...(envelope ? { envelope } : {}),
  });
}

/** A directory holding only bwrap, when this machine has it: the sandbox without any other program. */
function sandboxDir(): string | undefined {
  const bwrap = process.platform === 'linux' ? findOnPath('bwrap', process.env.PATH) : undefined;
  if (!bwrap) {
    note('bubblewrap (bwrap) is not on PATH: the argument-rule envelope cases ran with no sandbox (the prefix allowlist asks)');
    return undefined;
  }
  const dir = path.join(base, 'sandbox-bin');
  mkdirSync(dir, { recursive: true });
  symlinkSync(bwrap, path.join(dir, 'bwrap'));
  return dir;
}
const sandbox = sandboxDir();

async function batch(lines: string[], flags: string[] = [], pathEnv = bin): Promise<Record<string, any>[]> {
  const r = await runCxl(['check', '--batch', ...flags], { env: { PATH: pathEnv, HOME: base }, cwd: root, input: `${lines.join('\n')}\n`, timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const out = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(out.length, lines.length, 'one answer per line');
  return out;
}

const label = (c: ArgCase) => `[${c.class}] ${c.cmd.length > 70 ? `${c.cmd.slice(0, 70)}…` : c.cmd}${c.cwd ? ` (in ${c.cwd})` : ''}`;

// both batches run first (top-level await): the tests below only read their answers
const policyAnswers = await batch(CASES.map((c) => request(c)));
const envelopeAnswers = await batch(CASES.map((c) => request(c)), ['--envelope', 'with_git'], sandbox ? `${bin}:${sandbox}` : bin);

describe('the command policy alone (cxl check --batch)', () => {
  const answers = policyAnswers;
  CASES.forEach((c, k) => {
    test(`${label(c)}: ${c.policy}${c.rule ? ` by ${c.rule}` : ''}${c.arg ? ` (${c.arg})` : ''}`, () => {
      const a = answers[k];
      assert.equal(a.verdict, c.policy, JSON.stringify(a, null, 1));
      if (c.policy === 'refuse') {
        if (c.rule) assert.equal(a.rule, c.rule, a.reason);
        if (c.arg) {
          assert.equal(a.rule, c.rule ?? 'argument', a.reason);
          assert.equal(a.arg_rule?.rule, c.arg, a.reason);
          assert.ok(a.reason.includes(c.arg), `the reason names the rule: ${a.reason}`);
        }
        assert.ok(a.position >= 0 && a.position <= fill(c.cmd).length, 'the offset lies in the line');
      }
    });
  });
});

describe('the default envelope with git reads allowlisted (cxl check --batch --envelope with_git)', () => {
  const answers = envelopeAnswers;
  CASES.forEach((c, k) => {
    test(`${label(c)}: ${c.envelope}${c.envArg ? ` (${c.envArg})` : ''}`, () => {
      const a = answers[k];
      if (c.envelope === 'refuse') {
        assert.equal(a.verdict, 'refuse', JSON.stringify(a, null, 1));
        assert.equal(a.envelope, undefined, 'a refused line is not shown to the envelope');
        return;
      }
      assert.equal(a.verdict, 'allow', JSON.stringify(a, null, 1));
      const unsandboxed = !sandbox && c.envelope === 'allow';
      assert.equal(a.envelope?.action, unsandboxed ? 'approve' : c.envelope, JSON.stringify(a.envelope, null, 1));
      if (unsandboxed) assert.match(a.envelope.sentence, /no sandbox is working/);
      if (c.envArg !== undefined) {
        const rule = a.envelope.arg_rule?.rule ?? '';
        if (typeof c.envArg === 'string') assert.equal(rule, c.envArg, a.envelope.sentence);
        else assert.match(rule, c.envArg, a.envelope.sentence);
        assert.ok(a.envelope.sentence.includes(`argument rule \`${rule}\``), `the sentence names it: ${a.envelope.sentence}`);
      }
    });
  });
});

test('a line may name its own envelope; an unknown one is answered as bad input, never skipped', async () => {
  const [shipped, unknown] = await batch([request(CASES[0], 'read_only').replace(/"cmd":"[^"]*"/, '"cmd":"ls"'), request(CASES[0], 'nope')]);
  assert.equal(shipped.envelope.action, 'deny');
  assert.equal(unknown.verdict, 'refuse');
  assert.equal(unknown.rule, 'bad-input');
});

test('the one-line form names the argument rule in words and in --json', async () => {
  const words = await runCxl(['check', 'find . -delete', '--dir', root, '--cwd', root], { env: { PATH: bin, HOME: base }, cwd: root });
  assert.equal(words.code, 1);
  assert.match(words.stdout, /argument rule: find -delete: deletes the files it finds/);
  const json = JSON.parse((await runCxl(['check', 'grep -r SECRET .', '--dir', root, '--cwd', root, '--json'], { env: { PATH: bin, HOME: base }, cwd: root })).stdout);
  assert.equal(json.verdict, 'allow', 'an envelope can ask, so the policy lets it through');
  assert.equal(json.envelope.action, 'approve');
  assert.equal(json.envelope.arg_rule.rule, 'recursive read of protected files');
});
