// docs/local-shell.md lists every argument rule with its reason: its tables are generated from the
// rule data (argrules/docs.ts) and must equal it (UPDATE_SNAPSHOTS=1 rewrites them), every rule a
// case of the table names is in them, and no "known gaps" table is left for these classes.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { test } from 'node:test';
import { rulesMarkdown } from '../../../src/core/shell/argrules/docs.ts';
import { CASES } from './argrules_cases.ts';

const file = new URL('../../../docs/local-shell.md', import.meta.url);
const BEGIN = '<!-- argrules:begin -->';
const END = '<!-- argrules:end -->';

test('the argument-rule tables in docs/local-shell.md are the ones the code applies', () => {
  const page = readFileSync(file, 'utf8');
  const a = page.indexOf(BEGIN);
  const b = page.indexOf(END);
  assert.ok(a >= 0 && b > a, 'the page has the generated block');
  const want = `${BEGIN}\n\n${rulesMarkdown()}\n${END}`;
  const have = page.slice(a, b + END.length);
  if (have !== want && process.env.UPDATE_SNAPSHOTS === '1') {
    writeFileSync(file, page.slice(0, a) + want + page.slice(b + END.length));
    return;
  }
  assert.equal(have, want, 'the docs drifted from the rules: rerun with UPDATE_SNAPSHOTS=1 and review the diff');
});

/** The rule ids a table row names: `git -c, --config-env` is `git -c` and `git --config-env`. */
function idsOf(row: string): string[] {
  const first = row.split(' | ')[0].replace(/^\| /, '');
  const out: string[] = [];
  for (const m of first.matchAll(/`([^`]+)`/g)) {
    const [head, ...more] = m[1].replaceAll('\\|', '|').split(', ');
    out.push(head);
    const prefix = head.slice(0, head.lastIndexOf(' ') + 1);
    for (const x of more) out.push(prefix + x);
  }
  return out;
}

test('every argument rule the cases name is documented, with a reason', () => {
  const page = readFileSync(file, 'utf8');
  const block = page.slice(page.indexOf(BEGIN), page.indexOf(END));
  // rules whose id carries what the line said (a module, a URL, a subcommand) are documented by their pattern
  const patterns: [RegExp, string][] = [
    [/^go (run|install) \S+@\S+$/, 'go run MODULE@VERSION'],
    [/^deno run \S+:.*$/, 'deno run URL'],
    [/^git config .*$/, 'git config (writing)'],
    [/^git (st|lfs|LOG)$/, 'git SUBCOMMAND'],
    [/^cargo xtask$/, 'cargo SUBCOMMAND'],
    [/^npx$/, 'npx PACKAGE'],
    [/^npm --\S+$/, 'npm --KEY (configuration)'],
    [/^(make|env) \S+=$/, '$1 VAR=value'],
    [/^git \S+ ext::$/, 'git … ext::'],
  ];
  for (const c of CASES) {
    if (!c.arg) continue;
    const p = patterns.find(([re]) => re.test(c.arg!));
    const name = p ? c.arg.replace(p[0], p[1]).replace('env VAR=value', 'env NAME=value') : c.arg;
    // an option every subcommand shares is documented once: `git … --output` for `git log --output`
    const shared = name.replace(/^(\S+) \S+ /, '$1 … ');
    const row = block.split('\n').find((l) => l.startsWith('| `') && (idsOf(l).includes(name) || idsOf(l).includes(shared)));
    assert.ok(row, `${c.arg} (${c.cmd}) is in the docs as ${name}`);
    assert.ok(row.split('|').filter((x) => x.trim()).length >= 3, `with a cost and a reason: ${row}`);
  }
});

test('no "known gaps" table is left for the classes the argument rules cover', () => {
  const page = readFileSync(file, 'utf8');
  assert.doesNotMatch(page, /^## Known gaps/m);
  assert.doesNotMatch(page, /\| case \| line \| needs \| today \|/);
});
