// The one argument check every toolset's schema goes through, as a table: each JSON-schema type
// with what it takes as is, what it coerces ("12" → 12, "yes" → true, 12 → "12") and what it
// refuses (bad_args, naming the argument and what it must be); then unknown and required
// arguments, nulls, list items, unions, and the labels the messages carry.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkArgs } from '../../../src/core/contract/args.ts';
import { isToolError } from '../../../src/core/errors.ts';
import type { JsonSchema } from '../../../src/core/tool.ts';

const one = (type: unknown, extra: Record<string, unknown> = {}): JsonSchema => ({ type: 'object', properties: { v: { type, ...extra } }, additionalProperties: false });

/** The checked value of `v`, or the bad_args message. */
function fit(schema: JsonSchema, v: unknown): unknown {
  try {
    return checkArgs('t', schema, { v }).v;
  } catch (err) {
    assert.ok(isToolError(err) && err.code === 'bad_args', String(err));
    return `bad_args: ${err.message}`;
  }
}

// [type, given, expected value, or the message's tail]
const TABLE: [unknown, unknown, unknown][] = [
  ['string', 'x', 'x'],
  ['string', '', ''],
  ['string', 12, '12'],
  ['string', false, 'false'],
  ['string', ['x'], 'bad_args: t: `v` must be a string, got ["x"].'],
  ['string', { a: 1 }, 'bad_args: t: `v` must be a string, got {"a":1}.'],
  ['integer', 3, 3],
  ['integer', ' 12 ', 12],
  ['integer', '-4', -4],
  ['integer', '+7', 7],
  ['integer', 1.5, 'bad_args: t: `v` must be an integer, got 1.5.'],
  ['integer', 'two', 'bad_args: t: `v` must be an integer, got "two".'],
  ['integer', '1e3', 'bad_args: t: `v` must be an integer, got "1e3".'],
  ['integer', '', 'bad_args: t: `v` must be an integer, got "".'],
  ['integer', 2 ** 60, `bad_args: t: \`v\` must be an integer, got ${2 ** 60}.`],
  ['integer', true, 'bad_args: t: `v` must be an integer, got true.'],
  ['number', 1.5, 1.5],
  ['number', '2.5', 2.5],
  ['number', '.5', 0.5],
  ['number', '1e3', 1000],
  ['number', 'NaN', 'bad_args: t: `v` must be a number, got "NaN".'],
  ['boolean', true, true],
  ['boolean', 'yes', true],
  ['boolean', ' On ', true],
  ['boolean', 'y', true],
  ['boolean', 1, true],
  ['boolean', 'false', false],
  ['boolean', 'no', false],
  ['boolean', 'off', false],
  ['boolean', '', false],
  ['boolean', 0, false],
  ['boolean', 2, 'bad_args: t: `v` must be a boolean (true/false), got 2.'],
  ['boolean', 'maybe', 'bad_args: t: `v` must be a boolean (true/false), got "maybe".'],
  ['array', ['a', 1], ['a', 1]],
  ['array', 'a', 'bad_args: t: `v` must be a list, got "a".'],
  ['object', { a: 1 }, { a: 1 }],
  ['object', [1], 'bad_args: t: `v` must be an object, got [1].'],
  // a union takes the value as it is when one type fits exactly, else the first that coerces
  [['string', 'number'], 5, 5],
  [['string', 'number'], '5', '5'],
  [['string', 'number'], true, 'true'],
  [['integer', 'boolean'], 'yes', true],
  [['integer', 'boolean'], 'x', 'bad_args: t: `v` must be an integer or a boolean (true/false), got "x".'],
  // a type the table does not know is not checked
  ['uuid', { any: 'thing' }, { any: 'thing' }],
  [undefined, 7, 7],
];

describe('the coercion table', () => {
  for (const [type, given, want] of TABLE) {
    test(`${JSON.stringify(type)} given ${JSON.stringify(given)}`, () => {
      assert.deepEqual(fit(one(type), given), want);
    });
  }
  test('a minimum is part of the type', () => {
    assert.equal(fit(one('integer', { minimum: 1 }), '1'), 1);
    assert.equal(fit(one('integer', { minimum: 1 }), 0), 'bad_args: t: `v` must be an integer ≥ 1, got 0.');
    assert.equal(fit(one('number', { minimum: 0.5 }), 0.25), 'bad_args: t: `v` must be a number ≥ 0.5, got 0.25.');
  });
  test('list items are coerced to their declared type, and one that does not fit is named', () => {
    const list = one('array', { items: { type: 'string' } });
    assert.deepEqual(fit(list, ['a', 2, false]), ['a', '2', 'false']);
    assert.equal(fit(list, ['a', { b: 1 }]), 'bad_args: t: `v` must be a list of strings; item 2 is {"b":1}.');
  });
});

describe('the arguments as a whole', () => {
  const schema: JsonSchema = { type: 'object', properties: { path: { type: 'string' }, n: { type: 'integer' }, note: { type: ['string', 'null'] } }, required: ['path'], additionalProperties: false };
  test('only an object is arguments; none at all is an empty object', () => {
    assert.throws(() => checkArgs('read_file', schema, [1]), /read_file: arguments must be a JSON object\./);
    assert.throws(() => checkArgs('read_file', schema, 'x'), /read_file: arguments must be a JSON object\./);
    assert.throws(() => checkArgs('read_file', schema, null), /read_file: `path` is required\. Arguments: path, n, note\./);
  });
  test('unknown arguments are named with the allowed ones, when the schema allows no others', () => {
    assert.throws(() => checkArgs('read_file', schema, { path: 'a', lines: 3 }), /read_file: unknown argument `lines`\. Allowed: path, n, note\./);
    assert.throws(() => checkArgs('read_file', schema, { path: 'a', x: 1, y: 2 }), /read_file: unknown arguments `x`, `y`\. Allowed: path, n, note\./);
    const open: JsonSchema = { type: 'object', properties: { q: { type: 'string' } } };
    assert.deepEqual(checkArgs('mcp.search', open, { q: 1, page: '2' }), { q: '1', page: '2' }, 'others pass as given');
  });
  test('a required argument that is absent or null is missing; a null optional one is left out unless null is its type', () => {
    assert.throws(() => checkArgs('t', schema, { path: null }), /t: `path` is required/);
    assert.deepEqual(checkArgs('t', schema, { path: 'a', n: null, note: null }), { path: 'a', note: null });
    assert.deepEqual(checkArgs('t', schema, { path: 'a', n: undefined }), { path: 'a' });
  });
});
