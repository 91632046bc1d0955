// comparePaths is the order find_files and grep answer in: component by component, as a
// depth-first walk over sorted directory entries visits them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { comparePaths } from '../../../src/core/local_fs/filter.ts';

/** The definition: split into components, compare them in turn, fewer components first. */
function byComponents(a: string, b: string): number {
  const x = a.split('/');
  const y = b.split('/');
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  return x.length - y.length;
}

test('comparePaths orders as component-wise comparison does, for bytes around `/` and beyond ASCII', () => {
  // the units below `/` (space, !, -, .) are where a plain string comparison goes wrong
  const units = ['a', 'b', 'A', '/', '-', '.', ' ', '!', '0', '_', '~', 'é', '日', '\u{1F600}'];
  let seed = 11;
  const rand = (n: number) => ((seed = (seed * 48271) % 2147483647) % n);
  const paths: string[] = [];
  for (let i = 0; i < 2000; i++) {
    let p = '';
    const len = 1 + rand(8);
    for (let j = 0; j < len; j++) p += units[rand(units.length)];
    paths.push(p.replace(/\/+/g, '/').replace(/^\/|\/$/g, '') || 'a');
  }
  for (let i = 0; i < paths.length; i++) {
    const a = paths[i];
    const b = paths[rand(paths.length)];
    assert.equal(Math.sign(comparePaths(a, b)), Math.sign(byComponents(a, b)), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  }
  assert.deepEqual([...paths].sort(comparePaths), [...paths].sort(byComponents));
  // the cases by name
  assert.deepEqual(['a-b', 'a/b', 'a.c/x', 'a', 'a/b/c', 'ab'].sort(comparePaths), ['a', 'a/b', 'a/b/c', 'a-b', 'a.c/x', 'ab']);
});
