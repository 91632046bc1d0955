// A part of the screen loaded after the start (marked, the highlighter's grammars): loaded once
// however often asked, not ready until it is in, and whoever draws hears of it once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lateModule } from '../../src/ui/late_module.ts';

test('a late module loads once, is not ready until it is in, and tells each listener still subscribed', async () => {
  let loads = 0;
  let release = (_: string) => {};
  const m = lateModule(() => {
    loads++;
    return new Promise<string>((r) => (release = r));
  });
  const heard: string[] = [];
  m.onReady(() => heard.push('a'));
  const off = m.onReady(() => heard.push('b'));
  off();
  const first = m.load();
  const second = m.load();
  assert.equal(loads, 1, 'asked twice, loaded once');
  assert.equal(m.ready(), false);
  assert.equal(m.get(), undefined);
  release('in');
  await Promise.all([first, second]);
  assert.equal(m.ready(), true);
  assert.equal(m.get(), 'in');
  assert.deepEqual(heard, ['a'], 'the unsubscribed listener is not called');
  await m.load();
  assert.equal(loads, 1);
  assert.deepEqual(heard, ['a']);
});
