// An update the SDK's stable schema does not know (the unstable plan_update) never reaches the
// SDK: nothing is printed on the console (the terminal the UI draws on), the conversation gets
// one muted line naming the kind, and the update itself is kept in the agent log. What the SDK
// still reports (an update it could not read) goes to the log through `sdkLog`, as `cxl` wires it.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { unknownKind } from '../../../src/client/connection/update_guard.ts';
import { peer, removePeers, shown, waitFor } from '../peer_harness.ts';

after(removePeers);

const c = peer([]);

test('an update of an unknown kind: no console output, one muted notice per kind, the update in the agent log; the turn goes on', async () => {
  await waitFor(c, (x) => x.sessionId !== undefined, 'the session');
  const printed: unknown[][] = [];
  const saved = console.error;
  console.error = (...args: unknown[]) => void printed.push(args);
  try {
    c.send('unknown');
    let s = await waitFor(c, (x) => !x.running && shown(x).includes('after the unknown update'), 'the turn');
    c.send('unknown');
    s = await waitFor(c, (x) => !x.running && shown(x).split('after the unknown update').length === 3, 'the second turn');
    assert.deepEqual(printed, [], 'nothing on the console');
    const notices = s.history.filter((h) => h.kind === 'notice' && /plan_update/.test(h.text));
    assert.equal(notices.length, 1, 'said once per kind');
    assert.equal(notices[0].kind === 'notice' && notices[0].level, 'info');
    assert.match(shown(s), /Peer Agent sent an update this client does not show \(plan_update\); it is in the agent log \(Ctrl\+L\)\./);
    const logged = s.agentLog.filter((l) => l.startsWith('[cxl] an update of a kind this client does not know (plan_update)'));
    assert.equal(logged.length, 2, 'every one in the log');
    assert.match(logged[0], /"step one"/);
    assert.equal(s.running, false);
  } finally {
    console.error = saved;
  }
});

test('what the SDK reports about an update it could not read goes to the log, and is said once', async () => {
  await waitFor(c, (x) => x.sessionId !== undefined, 'the session');
  c.sdkLog('error', ['Error handling notification', { method: 'session/update', code: -32602, message: 'Invalid params' }]);
  c.sdkLog('error', ['Error handling notification', { method: 'session/update', code: -32602, message: 'Invalid params' }]);
  const s = c.store.getState();
  assert.equal(s.agentLog.filter((l) => l.includes('[cxl] error: Error handling notification {"method":"session/update"')).length, 2);
  assert.equal(s.history.filter((h) => h.kind === 'notice' && /could not read; it was dropped/.test(h.text)).length, 1);
});

test('unknownKind: only session/update notifications of a kind outside the stable schema', () => {
  assert.equal(unknownKind({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'plan_update' } } }), 'plan_update');
  assert.equal(unknownKind({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: {} } }), '(no kind)');
  assert.equal(unknownKind({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'compaction_summary_chunk' } } }), undefined);
  assert.equal(unknownKind({ jsonrpc: '2.0', id: 1, method: 'session/update', params: {} }), undefined, 'a request is the SDK\'s to answer');
  assert.equal(unknownKind({ jsonrpc: '2.0', method: 'fs/read_text_file', params: {} }), undefined);
});
