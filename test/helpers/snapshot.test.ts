import assert from 'node:assert/strict';
import process from 'node:process';
import { test } from 'node:test';
import { matchSnapshot, stripAnsi } from './snapshot.ts';

test('stripAnsi removes colour and cursor sequences', () => {
  assert.equal(stripAnsi('\u001B[31mred\u001B[39m \u001B[2Kx'), 'red x');
});

test('a stored snapshot matches, and a different text fails', () => {
  matchSnapshot(import.meta.url, 'sample', 'line one\n\u001B[1mline two\u001B[22m   ');
  const saved = process.env.UPDATE_SNAPSHOTS;
  delete process.env.UPDATE_SNAPSHOTS;
  try {
    assert.throws(() => matchSnapshot(import.meta.url, 'sample', 'line one\nline 2'), /differs/);
  } finally {
    if (saved !== undefined) process.env.UPDATE_SNAPSHOTS = saved;
  }
});

test('a missing snapshot fails, and CI=true never writes one', () => {
  const saved = { u: process.env.UPDATE_SNAPSHOTS, ci: process.env.CI };
  try {
    delete process.env.UPDATE_SNAPSHOTS;
    assert.throws(() => matchSnapshot(import.meta.url, 'never-written', 'x'), /missing/);
    process.env.UPDATE_SNAPSHOTS = '1';
    process.env.CI = 'true';
    assert.throws(() => matchSnapshot(import.meta.url, 'never-written', 'x'), /missing/);
  } finally {
    for (const [k, v] of [['UPDATE_SNAPSHOTS', saved.u], ['CI', saved.ci]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
});
