// jq_query on real files in temp dirs and inline documents: a real jq's answers (JSON, JSON Lines,
// multi-document YAML, big numbers kept), nothing of the machine reachable from a filter ($ENV,
// env, input, inputs, import, include), filters that never finish stopped at their deadline with
// the worker gone, the caps (input, filter, values, output, documents), the path confined and the
// quarantine holding, and the error kinds told apart in words a model can act on.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { buildEnvelope } from '../../../src/core/envelope/index.ts';
import { FLOOR_RULES, SHIPPED_ENVELOPES } from '../../../src/core/envelope/shipped.ts';
import { isToolError } from '../../../src/core/errors.ts';
import { Gate } from '../../../src/core/gate/gate.ts';
import { parseJqPolicy } from '../../../src/core/native_jq/policy.ts';
import { stopJqWorker, workerAlive } from '../../../src/core/native_jq/runner.ts';
import { NativeJqToolset } from '../../../src/core/native_jq/toolset.ts';

after(() => stopJqWorker());

function workspace(files: Record<string, string> = {}): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-jq-')));
  after(() => fs.rmSync(d, { recursive: true, force: true }));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(d, rel)), { recursive: true });
    fs.writeFileSync(path.join(d, rel), text);
  }
  return d;
}

const jq = (root: string, policy: Record<string, string> = {}) => new NativeJqToolset({ root, policy: parseJqPolicy(policy).policy });

interface R {
  values: string[];
  count: number;
  format: string;
  documents: number;
  source: string;
  truncated?: boolean;
  note?: string;
  text: string;
}
const q = async (root: string, args: Record<string, unknown>, policy?: Record<string, string>) => (await jq(root, policy).call('jq_query', args)) as R;

async function refusal(p: Promise<unknown>, code: string): Promise<string> {
  try {
    await p;
  } catch (err) {
    assert.ok(isToolError(err), String(err));
    assert.equal(err.code, code, err.message);
    return err.message;
  }
  assert.fail(`expected ${code}`);
}

test('a real jq over a file, a JSON Lines stream, multi-document YAML and inline input; big numbers keep every digit', async () => {
  const root = workspace({
    'chain.json': JSON.stringify({ tasks: [{ id: 'a', handler: 'tools' }, { id: 'b', handler: 'model' }, { id: 'c', handler: 'tools' }] }),
    'big.json': '{"n": 100000000000000000000000000001, "f": 1.5}',
    'events.jsonl': '{"x":1}\n{"x":2}\n\n{"x":3}\n',
    'conf.yaml': 'name: one\nports: [80, 443]\n---\nname: two\nports: []\n',
    'noext': '- a\n- b\n',
  });
  assert.deepEqual((await q(root, { filter: '.tasks[] | select(.handler=="tools") | .id', path: 'chain.json' })).values, ['"a"', '"c"']);
  assert.deepEqual((await q(root, { filter: '.n, .f', path: 'big.json' })).values, ['100000000000000000000000000001', '1.5']);
  const s = await q(root, { filter: '.x * 10', path: 'events.jsonl' });
  assert.deepEqual([s.values, s.documents, s.format], [['10', '20', '30'], 3, 'json']);
  const y = await q(root, { filter: '{name, n: (.ports | length)}', path: 'conf.yaml' });
  assert.deepEqual([y.values, y.format, y.documents], [['{"name":"one","n":2}', '{"name":"two","n":0}'], 'yaml', 2]);
  assert.deepEqual((await q(root, { filter: 'length', path: 'noext' })).values, ['2']);
  assert.deepEqual((await q(root, { filter: '.a + 1', input: { a: 41 } })).values, ['42']);
  assert.deepEqual((await q(root, { filter: '.y', input: 'x: 1\ny: 2\n', format: 'yaml' })).values, ['2']);
  assert.deepEqual((await q(root, { filter: '.a = 5', input: '{"a":1}' })).values, ['{"a":5}']);
  assert.equal(fs.readFileSync(path.join(root, 'chain.json'), 'utf8').includes('"a"'), true);
  const r = await q(root, { filter: '.[]', input: [1, 2] });
  assert.equal(r.text, '1\n2\n');
  assert.equal(r.source, '(inline input)');
});

test('nothing of the machine: $ENV and env are empty, input, inputs, import and include are not there', async () => {
  process.env.CXL_JQ_TEST_SECRET = 'hunter2-in-env';
  const root = workspace({ 'd.json': '{"a":1}\n{"a":2}\n' });
  assert.deepEqual((await q(root, { filter: '$ENV, env, ($ENV | length), $ARGS', input: '1' })).values, ['{}', '{}', '0', '{"positional":[],"named":{}}']);
  assert.doesNotMatch((await q(root, { filter: '[$ENV, env] | tostring', input: '1' })).text, /hunter2/);
  assert.match(await refusal(jq(root).call('jq_query', { filter: 'input', path: 'd.json' }), 'bad_args'), /input is not available in jq_query/);
  assert.match(await refusal(jq(root).call('jq_query', { filter: '[inputs]', path: 'd.json' }), 'bad_args'), /inputs is not available in jq_query/);
  assert.match(await refusal(jq(root).call('jq_query', { filter: 'import "a" as a; .', input: '1' }), 'bad_args'), /import and include are not available/);
  assert.match(await refusal(jq(root).call('jq_query', { filter: '# note\ninclude "/etc/passwd"; .', input: '1' }), 'bad_args'), /import and include are not available/);
  assert.match(await refusal(jq(root).call('jq_query', { filter: '. as $x | include "x"; .', input: '1' }), 'bad_args'), /not valid jq syntax/);
  assert.deepEqual((await q(root, { filter: 'input_filename', input: '1' })).values, ['null']);
  delete process.env.CXL_JQ_TEST_SECRET;
});

test('filters that never finish are stopped at their deadline, the worker with them; the next call gets a fresh one', async () => {
  const root = workspace();
  for (const filter of ['def f: f; f', 'until(false; .)', '[range(1e9)] | length', 'last(range(1e10))']) {
    const t0 = Date.now();
    const m = await refusal(jq(root).call('jq_query', { filter, input: '1', deadline_ms: 300 }), 'timeout');
    const took = Date.now() - t0;
    assert.match(m, /did not finish within its 0\.3s deadline and was stopped|exhausted jq's stack/, filter);
    assert.match(m, /def f: f; f/);
    assert.ok(took < 6000, `${filter}: ${took} ms`);
    assert.equal(workerAlive(), false, `${filter}: the worker is still there`);
  }
  assert.deepEqual((await q(root, { filter: '.+1', input: '1' })).values, ['2']);
  // a deadline asked past the ceiling is clamped, not refused
  assert.deepEqual((await q(root, { filter: '.', input: '1', deadline_ms: 999999999 })).values, ['1']);
});

test('caps: the input (8 MiB, by size before reading), the filter, the values, the output, the documents', async () => {
  const root = workspace({ 'many.jsonl': Array.from({ length: 1005 }, (_, i) => `{"i":${i}}`).join('\n') });
  const big = path.join(root, 'big.json');
  fs.writeFileSync(big, '');
  fs.truncateSync(big, 8 * 1024 * 1024 + 1);
  assert.match(await refusal(jq(root).call('jq_query', { filter: '.', path: 'big.json' }), 'too_large'), /"big\.json" is 8388609 bytes, over the 8388608-byte input cap/);
  assert.match(await refusal(jq(root).call('jq_query', { filter: '.', input: `"${'x'.repeat(8 * 1024 * 1024)}"` }), 'too_large'), /inline input is 8388610 bytes/);
  assert.match(await refusal(jq(root).call('jq_query', { filter: `.${'a'.repeat(4096)}`, input: '1' }), 'bad_args'), /the filter is 4097 bytes, over the 4096-byte cap/);
  const r = await q(root, { filter: 'range(1000)', input: 'null' });
  assert.equal(r.count, 200);
  assert.equal(r.truncated, true);
  assert.match(r.note!, /TRUNCATED at the 200-value cap after 200 value\(s\)\. Raise max \(ceiling 5000\)/);
  assert.equal((await q(root, { filter: 'range(1000)', input: 'null', max: 5 })).count, 5);
  assert.equal((await q(root, { filter: 'range(1000)', input: 'null', max: '7' })).count, 7);
  assert.equal((await q(root, { filter: 'range(1000)', input: 'null', max: 900 }, { _max_values: '10' })).count, 10);
  const o = await q(root, { filter: 'range(5000) | "x" * 100', input: 'null', max: 5000 });
  assert.match(o.note!, /TRUNCATED at the 32768-byte output cap/);
  assert.ok(o.values.join('\n').length <= 32768);
  assert.match(await refusal(jq(root).call('jq_query', { filter: '[range(20000)]', input: 'null' }), 'too_large'), /the first value the filter emitted is \d+ bytes, over the 32768-byte output cap/);
  const d = await q(root, { filter: '.i', path: 'many.jsonl', max: 5000 });
  assert.equal(d.documents, 1000);
  assert.match(d.note!, /only the first 1000 documents of the input stream were read; 5 more were not/);
  assert.match(await refusal(jq(root).call('jq_query', { filter: '.', input: `${'['.repeat(201)}${']'.repeat(201)}` }), 'too_large'), /nests 201 levels deep/);
});

test('the three error kinds are told apart, and a bad document is the document\'s fault', async () => {
  const root = workspace({ 'bad.json': '{"a": 1,' });
  const ts = jq(root);
  assert.match(await refusal(ts.call('jq_query', { filter: '.a | | .b', input: '{}' }), 'bad_args'), /^jq: the filter is not valid jq syntax: syntax error.*Fix the PROGRAM, not the document/);
  assert.match(await refusal(ts.call('jq_query', { filter: 'mapp(.x)', input: '{}' }), 'bad_args'), /^jq: the filter parses but does not compile: mapp\/1 is not defined \(line 1 of the filter\)\. The SYNTAX is fine/);
  assert.match(await refusal(ts.call('jq_query', { filter: '$nope', input: '{}' }), 'bad_args'), /does not compile: \$nope is not defined/);
  assert.match(await refusal(ts.call('jq_query', { filter: '.[] | .a', input: [{ a: 1 }, 5] }), 'bad_args'), /^jq: the filter is valid but failed on this document: Cannot index number with string "a".*Source was "\(inline input\)"/);
  assert.match(await refusal(ts.call('jq_query', { filter: '.', path: 'bad.json', format: 'json' }), 'bad_args'), /"bad\.json" is not valid json: .*problem with the DOCUMENT, not with the filter/);
  assert.match(await refusal(ts.call('jq_query', { filter: 'halt_error', input: '"bye\\n"' }), 'bad_args'), /stopped itself with halt\/halt_error: bye/);
  assert.match(await refusal(ts.call('jq_query', { filter: '.', path: 'a.json', input: '1' }), 'bad_args'), /pass EITHER path OR input, not both/);
  assert.match(await refusal(ts.call('jq_query', { filter: '.' }), 'bad_args'), /an input source is required/);
  assert.match(await refusal(ts.call('jq_query', { filter: '.', input: '1', format: 'xml' }), 'bad_args'), /format must be/);
  assert.match(await refusal(ts.call('jq_query', { filter: '.a\u202e', input: '1' }), 'bad_args'), /non-printing character U\+202E/);
  assert.match(await refusal(ts.call('jq_query', { filter: '.a\u0000', input: '1' }), 'bad_args'), /non-printing character U\+0000/);
  assert.match(await refusal(ts.call('jq_query', { filter: '  ', input: '1' }), 'bad_args'), /filter is required/);
  assert.match(await refusal(ts.call('jq_query', { filter: '.', input: '1', lines: 3 }), 'bad_args'), /unknown argument `lines`/);
  assert.deepEqual((await q(root, { filter: '.a\n| . + 1 # trailing comment', input: '{"a":1}' })).values, ['2']);
  assert.match((await q(root, { filter: 'empty', input: '1' })).note!, /The filter matched nothing\. This is an answer, not an error/);
});

test('the path is confined like a file tool\'s, the quarantine holds, and the read-approve list asks', async () => {
  const root = workspace({ '.ssh/id_rsa.json': '{"k":"hunter2"}', '.env.json': '{"TOKEN":"hunter2"}', 'ok.json': '{}', 'sub/x.json': '1' });
  fs.symlinkSync(path.join(root, '.ssh/id_rsa.json'), path.join(root, 'innocent.json'));
  fs.linkSync(path.join(root, '.ssh/id_rsa.json'), path.join(root, 'hard.json'));
  const ts = jq(root);
  for (const p of ['.ssh/id_rsa.json', 'innocent.json', 'hard.json']) assert.match(await refusal(ts.call('jq_query', { filter: '.', path: p }), 'quarantined'), /credential quarantine/);
  assert.match(await refusal(ts.call('jq_query', { filter: '.', path: '../../etc/passwd' }), 'escape'), /outside the workspace root/);
  assert.match(await refusal(ts.call('jq_query', { filter: '.', path: 'missing.json' }), 'not_found'), /does not exist/);
  assert.match(await refusal(ts.call('jq_query', { filter: '.', path: 'sub' }), 'is_directory'), /is a directory, not a document/);
  assert.match(await refusal(ts.call('jq_query', { filter: '.', path: '.env.json' }), 'approval_required'), /read-approve list/);
  const gate = (env: string) => new Gate({ envelope: buildEnvelope(env, { ...SHIPPED_ENVELOPES }, FLOOR_RULES), toolsets: [ts] });
  assert.equal((await gate('default').evaluate('native-jq.jq_query', { filter: '.', path: 'ok.json' })).decision.action, 'allow');
  const e = await gate('auto_edit').evaluate('native-jq.jq_query', { filter: '.', path: '.env.json' });
  assert.equal(e.decision.action, 'approve');
  assert.equal(e.decision.rule, 'files.read.approve_paths');
  assert.equal((await gate('strict').evaluate('native-jq.jq_query', { filter: '.', input: '1' })).decision.action, 'deny');
  assert.equal((await gate('read_only').evaluate('native-jq.jq_query', { filter: '.', input: '1' })).decision.action, 'allow');
  const limited = jq(root, { _allowed_dir: 'sub' });
  assert.deepEqual(((await limited.call('jq_query', { filter: '.', path: 'x.json' })) as R).values, ['1']);
  assert.match(await refusal(limited.call('jq_query', { filter: '.', path: '../ok.json' }), 'escape'), /outside/);
});
