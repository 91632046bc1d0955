// Ctrl+C against agents that do not simply stop: one that never answers the cancel (the screen
// says so after a while and a second Ctrl+C stops waiting, keeping the session), one that ends a
// cancelled turn with end_turn (the cancelled marker still shows, with what it answered), and one
// that answers `cancelled` (the plain marker). The peer agent runs as a real child process.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { peer, removePeers, shown, waitFor } from './peer_harness.ts';

after(removePeers);

const stuck = peer([], { cancelNoticeMs: 300 });
const stubborn = peer([]);
const straggler = peer([], { cancelNoticeMs: 300 });
const polite = peer([]);

const markers = (c: typeof stuck) => c.store.getState().history.flatMap((h) => (h.kind === 'marker' ? [h.text] : []));

test('an agent that never ends a cancelled turn: the screen says so, a second Ctrl+C stops waiting, and the session goes on', async () => {
  const c = stuck;
  await waitFor(c, (x) => x.sessionId !== undefined, 'the session');
  c.send('stuck');
  await waitFor(c, (x) => x.running && shown(x).includes('thinking hard'), 'the turn');
  c.cancel();
  let s = await waitFor(c, (x) => x.cancelStale === true, 'the overdue notice', 5000);
  assert.equal(s.cancelling, true);
  assert.match(shown(s), /Peer Agent has not ended the turn 0.3 s after Ctrl\+C\. Press Ctrl\+C again to stop waiting for it; the session stays open\./);
  c.cancel();
  s = await waitFor(c, (x) => !x.running, 'the turn let go');
  assert.equal(s.cancelling, false);
  assert.deepEqual(markers(c), ['cancelled: stopped waiting for the agent, which had not ended the turn (the session stays open)']);
  const id = s.sessionId;
  c.send('hello again');
  s = await waitFor(c, (x) => !x.running && shown(x).includes('echo: hello again'), 'the next turn');
  assert.equal(s.sessionId, id, 'the same session');
  assert.ok(!shown(s).includes('The turn failed'), 'stopping waiting is no failure');
});

test('a cancelled turn the agent ends with end_turn still shows the cancelled marker, with what it answered', async () => {
  const c = stubborn;
  await waitFor(c, (x) => x.sessionId !== undefined, 'the session');
  c.send('stubborn');
  await waitFor(c, (x) => x.running && shown(x).includes('working on it'), 'the turn');
  c.cancel();
  await waitFor(c, (x) => !x.running, 'the end');
  assert.deepEqual(markers(c), ['cancelled (the agent answered end turn)']);
});

test('a turn the agent ends `cancelled` shows the plain marker, and no overdue notice follows', async () => {
  const c = polite;
  await waitFor(c, (x) => x.sessionId !== undefined, 'the session');
  c.send('slow');
  await waitFor(c, (x) => x.running && shown(x).includes('working'), 'the turn');
  c.cancel();
  const s = await waitFor(c, (x) => !x.running, 'the end');
  assert.deepEqual(markers(c), ['cancelled']);
  assert.equal(s.cancelStale, undefined);
});

test('text an agent sends for a turn the user stopped waiting for is never shown as the next answer', async () => {
  const c = straggler;
  await waitFor(c, (x) => x.sessionId !== undefined, 'the session');
  c.send('straggler');
  await waitFor(c, (x) => x.running && shown(x).includes('thinking hard'), 'the turn');
  c.cancel();
  await waitFor(c, (x) => x.cancelStale === true, 'the overdue notice', 5000);
  c.cancel();
  await waitFor(c, (x) => !x.running, 'the turn let go');
  // the agent's late text arrives while nothing runs: said once, kept out of the conversation
  let s = await waitFor(c, (x) => shown(x).includes('still sending output for the turn you stopped waiting for'), 'the late-output notice', 5000);
  c.send('hello again');
  s = await waitFor(c, (x) => !x.running && shown(x).includes('echo: hello again'), 'the next turn');
  assert.ok(!shown(s).includes('LATE TEXT'), 'the late text is not shown');
});
