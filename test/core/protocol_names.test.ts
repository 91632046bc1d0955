// cxl's ACP extension names are spelled in src/core/protocol_names.ts and nowhere else in src/:
// an agent, a client and a UI that each spell `cxl/sandbox` or `reject_explain` themselves drift
// apart one rename at a time. This scans the sources (comments left out) for a spelled `_meta` key
// or permission option id.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import * as names from '../../src/core/protocol_names.ts';
import { repoRoot } from '../helpers/cxl.ts';

const HOME = 'src/core/protocol_names.ts';

const values = (prefix: string): string[] =>
  Object.entries(names)
    .filter(([k, v]) => k.startsWith(prefix) && typeof v === 'string')
    .map(([, v]) => v as string);
const META_KEYS = values('META_');
const OPTION_IDS = values('OPTION_');
// ACP's own permission option kinds are no cxl names, though `allow_once` is also an id
const ACP_KINDS = ['allow_once', 'allow_always', 'reject_once', 'reject_always'];
/** ids no other vocabulary uses: spelled anywhere, they are the option id */
const OWN_IDS = OPTION_IDS.filter((id) => id.includes('_') && !ACP_KINDS.includes(id));

// The gate's answers (ApprovalAnswer in core/gate/gate.ts) share some spellings with option ids
// but are the gate's own vocabulary: `{ outcome: 'allow_session' }` and its `case 'allow_session':`.
const GATE_ANSWER = /(?:\boutcome\s*(?::|===|!==)\s*|\bcase\s+)(['"])(?:allow_once|allow_session|reject|cancelled)\1/g;

function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Each place a source text spells a cxl extension name, as `what: the line`. */
export function spelled(text: string): string[] {
  const code = withoutComments(text).replace(GATE_ANSWER, '');
  const found: string[] = [];
  const look = (what: string, re: RegExp) => {
    for (const line of code.split('\n')) if (re.test(line)) found.push(`${what}: ${line.trim()}`);
  };
  look('a cxl/ key', /(['"`])cxl\/[^'"`]*\1/);
  for (const key of META_KEYS.filter((k) => !k.includes('/'))) {
    // a bare key (`cxl`) counts where a _meta object or lookup spells it
    look(`the _meta key ${key}`, new RegExp(`_meta\\b[^;]*?(?:[{,]\\s*(['"]?)${esc(key)}\\1\\s*:|\\??\\.\\s*${esc(key)}\\b|\\[\\s*(['"\`])${esc(key)}\\2\\s*\\])`));
  }
  look('an option id', /\boptionId\s*(?::|===|!==)\s*['"`]|['"`]\s*(?:===|!==)\s*[\w.?]*\boptionId\b/);
  for (const id of OWN_IDS) look(`the option id ${id}`, new RegExp(`(['"\`])${esc(id)}\\1`));
  return found;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(repoRoot, dir))) {
    const rel = `${dir}/${name}`;
    if (statSync(path.join(repoRoot, rel)).isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.tsx?$/.test(name)) out.push(rel);
  }
  return out;
}

test('the module holds the names the agent, the client and the UI exchange', () => {
  for (const key of ['cxl/sandbox', 'cxl/network', 'cxl/persistence', 'cxl/tokensBefore', 'cxl/tokensAfter', 'cxl/description', 'cxl']) assert.ok(META_KEYS.includes(key), `${key} is missing`);
  for (const id of ['allow_once', 'allow_session', 'reject', 'reject_explain']) assert.ok(OPTION_IDS.includes(id), `${id} is missing`);
  assert.deepEqual(OWN_IDS.sort(), ['allow_session', 'reject_explain']);
});

test('no source outside src/core/protocol_names.ts spells a cxl _meta key or permission option id', () => {
  const files = sourceFiles('src').filter((f) => f !== HOME);
  assert.ok(files.length > 100, `the scan found only ${files.length} sources`);
  const found = files.flatMap((f) => spelled(readFileSync(path.join(repoRoot, f), 'utf8')).map((s) => `${f}: ${s}`));
  assert.deepEqual(found, []);
});

test('the scan catches each way of spelling a name, and not the gate answers, ACP kinds or comments', () => {
  const caught = (line: string) => spelled(line).length > 0;
  for (const line of [
    "const v = meta?.['cxl/sandbox'];",
    'send({ _meta: { "cxl/tokensBefore": 1 } });',
    'const s = `cxl/network`;',
    "toolCall: { _meta: { cxl: { rule } } },",
    'const d = update._meta?.cxl;',
    "{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }",
    "return out.optionId === 'allow';",
    "if ('reject' === res.outcome.optionId) {}",
    "if (id === 'reject_explain') explain = true;",
    "case 'reject_explain':",
    "const options = ['allow_session'];",
  ]) assert.ok(caught(line), `missed: ${line}`);
  for (const line of [
    "return { outcome: 'allow_session' };",
    "    case 'allow_session':",
    "const kinds = { y: ['allow_once'], n: ['reject_once'] };",
    "// the agent's `_meta[\"cxl/sandbox\"]` and 'reject_explain'",
    "const lock = `.${name}.cxl-lock`;",
    "{ optionId: OPTION_REJECT_EXPLAIN, name: 'Reject and tell the agent why', kind: 'reject_once' }",
  ]) assert.ok(!caught(line), `flagged: ${line}`);
});
