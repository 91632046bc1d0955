// The client tells the agent which sessions it leaves and resumes: session/close on /clear and on
// quit, session/resume for an agent that can resume but not load (its history is not replayed,
// and the screen says so), with the person's MCP servers passed again. Against the peer agent
// as a real child process, which writes each close and resume to its stderr.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { agentSaid, peer, removePeers, shown, waitFor } from './peer_harness.ts';

after(removePeers);

const clearing = peer(['--lifecycle']);
const resuming = peer(['--lifecycle'], { resume: { kind: 'id', id: 'peer-7' }, mcpServers: [{ name: 'files', command: 'node', args: ['files.js'] }] });
const noClose = peer([]);

test('/clear closes the session left with session/close, then opens a new one; quitting closes the last one', async () => {
  const c = clearing;
  await waitFor(c, (x) => x.sessionId === 'peer-1', 'the first session');
  assert.equal(c.store.getState().capabilities.closeSession, true);
  await c.newSession();
  const s = await waitFor(c, (x) => x.sessionId === 'peer-2' && agentSaid(x, 'close').length === 1, 'the new session');
  assert.deepEqual(agentSaid(s, 'close'), ['peer-agent: close peer-1']);
  await c.close();
  const end = await waitFor(c, (x) => x.agent.status === 'exited', 'the agent gone');
  assert.deepEqual(agentSaid(end, 'close'), ['peer-agent: close peer-1', 'peer-agent: close peer-2'], 'closed before the agent was stopped');
});

test('an agent that resumes but does not load: session/resume with the MCP servers, and the screen says the history is not shown', async () => {
  const c = resuming;
  const s = await waitFor(c, (x) => x.sessionId === 'peer-7' && agentSaid(x, 'resume').length === 1, 'the resumed session');
  assert.equal(s.capabilities.loadSession, false);
  assert.deepEqual(agentSaid(s, 'resume'), ['peer-agent: resume peer-7 mcpServers [{"name":"files","command":"node","args":["files.js"],"env":[]}]']);
  assert.match(shown(s), /Resumed session peer-7\. Peer Agent resumes without replaying it, so its earlier conversation is not shown here; the agent still has it\./);
  c.send('hi');
  await waitFor(c, (x) => shown(x).includes('echo: hi'), 'a turn in the resumed session');
});

test('an agent without session/close is not sent one on /clear', async () => {
  const c = noClose;
  await waitFor(c, (x) => x.sessionId === 'peer-1', 'the session');
  await c.newSession();
  const s = await waitFor(c, (x) => x.sessionId === 'peer-2', 'the new session');
  assert.equal(s.capabilities.closeSession, false);
  assert.deepEqual(agentSaid(s, 'close'), []);
  assert.ok(!s.agentLog.some((l) => /Method not found/.test(l)));
});
