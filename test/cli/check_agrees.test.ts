// `cxl check --batch` says what a call does: over a table of command lines, its answer (the
// command policy's verdict and the default envelope's decision) and a real call of the same line
// through `cxl tool local_shell` (no --yes: nothing that asks is run, only what the envelope
// allows unasked) agree on every line: once on a PATH where no sandbox can start (bwrap absent:
// the prefix allowlist asks), once where bubblewrap works (it runs what the allowlist allows).
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { after, describe, test } from 'node:test';
import { runCxl } from '../helpers/cxl.ts';
import { findOnPath, hasBwrap } from '../helpers/system_tools.ts';
import { tempRoot } from '../core/shell/helpers.ts';

const { root: base, cleanup } = tempRoot('cxl-check-agrees-');
after(cleanup);
const ROOT = path.join(base, 'root');
for (const [rel, text] of Object.entries({ 'a.txt': 'hello\n', '.env': 'TOKEN=1\n', '.ssh/id_rsa': 'KEY\n', 'src/x.ts': 'x\n' })) {
  mkdirSync(path.dirname(path.join(ROOT, rel)), { recursive: true });
  writeFileSync(path.join(ROOT, rel), text);
}
writeFileSync(path.join(base, 'outside.txt'), 'x\n');

/** A directory holding links to the named programs of this machine, and nothing else. */
function programs(dir: string, names: string[]): string {
  mkdirSync(dir, { recursive: true });
  for (const n of names) {
    const real = findOnPath(n, process.env.PATH);
    if (!real) throw new Error(`${n} is needed on PATH for this test`);
    symlinkSync(real, path.join(dir, n));
  }
  return dir;
}
const BIN = programs(path.join(base, 'bin'), ['ls', 'cat', 'wc', 'head', 'echo', 'rm', 'touch', 'find', 'grep', 'mkdir']);

// [line, the decision where a sandbox works, where none does]
type Outcome = 'allow' | 'approve' | 'deny' | 'refuse';
const TABLE: [string, Outcome, Outcome][] = [
  ['ls', 'allow', 'approve'],
  ['cat a.txt', 'allow', 'approve'],
  ['wc -l a.txt && head -n 1 a.txt', 'allow', 'approve'],
  ['echo hi', 'allow', 'approve'],
  ['cat .env', 'approve', 'approve'],
  ['ls src && cat .env', 'approve', 'approve'],
  ['rm a.txt', 'approve', 'approve'],
  ['touch new.txt', 'approve', 'approve'],
  ['mkdir d', 'approve', 'approve'],
  ['grep -r hello .', 'approve', 'approve'],
  ['cat ../outside.txt', 'refuse', 'refuse'],
  ['find . -delete', 'refuse', 'refuse'],
  ['cat .ssh/id_rsa', 'refuse', 'refuse'],
];

interface Said {
  action: Outcome;
  /** the envelope rule that decided, when the envelope was asked */
  rule?: string;
}

/** What `cxl check --batch --envelope default` says of each line. */
async function checked(pathEnv: string): Promise<Said[]> {
  const input = TABLE.map(([cmd]) => JSON.stringify({ cmd, allowed_dir: ROOT, cwd: ROOT, envelope: 'default' })).join('\n');
  const r = await runCxl(['check', '--batch'], { env: { PATH: pathEnv, HOME: base }, cwd: ROOT, input: `${input}\n` });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim().split('\n').map((l) => {
    const o = JSON.parse(l);
    return o.verdict === 'refuse' ? { action: 'refuse' } : { action: o.envelope.action, rule: o.envelope.rule };
  });
}

/** What a real call of each line through `cxl tool local_shell` met. */
async function called(pathEnv: string): Promise<Said[]> {
  const input = TABLE.map(([command]) => JSON.stringify({ tool: 'local_shell', args: { command } })).join('\n');
  const r = await runCxl(['tool', '--batch', '--root', ROOT], { env: { PATH: pathEnv, HOME: base }, cwd: ROOT, input: `${input}\n` });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim().split('\n').map((l) => {
    const o = JSON.parse(l);
    if (o.ok) return { action: 'allow', rule: o.envelope.rule };
    if (o.code === 'envelope_denied') return { action: 'deny', rule: o.details.rule };
    // an ask nobody can answer: the envelope's (with its rule), or the command policy's own
    if (o.code === 'approval_required') return o.details?.envelope ? { action: 'approve', rule: o.details.rule } : { action: 'approve' };
    assert.equal(o.code, 'policy_refused', l);
    return { action: 'refuse' };
  });
}

async function agree(pathEnv: string, column: 1 | 2): Promise<void> {
  const [said, met] = await Promise.all([checked(pathEnv), called(pathEnv)]);
  TABLE.forEach((row, i) => {
    const why = `${row[0]}: check said ${JSON.stringify(said[i])}, the call met ${JSON.stringify(met[i])}`;
    assert.equal(said[i].action, row[column], why);
    assert.equal(met[i].action, said[i].action, why);
    if (met[i].rule !== undefined) assert.equal(met[i].rule, said[i].rule, why);
  });
}

describe('cxl check --batch and a real call agree on every line', () => {
  test('with no sandbox that can start (bwrap not on PATH)', async () => {
    assert.equal(findOnPath('bwrap', BIN), undefined);
    await agree(BIN, 2);
  });
  test('with bubblewrap working', async () => {
    if (!hasBwrap('the sandboxed half of test/cli/check_agrees.test.ts')) return;
    await agree(`${BIN}:${programs(path.join(base, 'sandbox-bin'), ['bwrap'])}`, 1);
  });
});
