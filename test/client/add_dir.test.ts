// `cxl --add-dir DIR`: the UI's client opens its sessions with the directory as an additional root
// when the agent takes them (cxl acp, a real child process: a read there goes through the UI's own
// fs host, which serves the directory as it serves the root, and a resume keeps it), and says once
// that it cannot when the agent does not (the peer agent), sending nothing the agent did not offer.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { ADDITIONAL_DIRS_KEY } from '../../src/agent/acp/additional_dirs.ts';
import { SessionStore } from '../../src/agent/sessions/store.ts';
import { AcpClient } from '../../src/client/acp_client.ts';
import { startFakeOpenAI } from '../fixtures/fake_models.ts';
import { cxlCommand } from '../helpers/cxl.ts';
import { allText, removeWorkdirs, waitFor, workdir } from './client_harness.ts';
import { agentSaid, peer, peerWorkdir, removePeers, waitFor as waitForPeer } from './peer_harness.ts';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  await removePeers();
  removeWorkdirs();
});

test('cxl acp given an additional directory by the UI: a read there is served by the UI, the session keeps it, a resume with it keeps it', async () => {
  const dir = workdir();
  const project = path.join(dir, 'project');
  const lib = path.join(dir, 'lib');
  for (const d of [project, lib]) mkdirSync(d);
  writeFileSync(path.join(lib, 'notes.txt'), 'lib notes 42\n');
  const srv = await startFakeOpenAI([{ toolCalls: [{ name: 'read_file', arguments: { path: path.join(lib, 'notes.txt') } }] }, { text: 'read it' }]);
  cleanups.push(() => srv.close());
  const env = { ...process.env, HOME: path.join(dir, 'home'), XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'sk-test' };
  const argv = [...cxlCommand(), 'acp', '--provider', 'openai', '--model', 'fake'];
  const c = new AcpClient({ argv, label: 'cxl acp', builtin: true, cwd: project, additionalDirectories: [lib], env, settleMs: 5 });
  cleanups.push(() => c.close());
  await c.start();
  await waitFor(c, (s) => s.sessionId !== undefined, 'the session', 30_000);
  c.send('read the notes in lib');
  const s = await waitFor(c, (x) => !x.running && allText(x).includes('read it'), 'the turn', 30_000);
  const results = ((srv.requests[1]?.messages ?? []) as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool').map((m) => m.content);
  assert.match(results[0] ?? '', /lib notes 42/, `the read was served: ${results.join(' | ')}`);
  assert.match(allText(s), new RegExp(`also reach ${lib.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(--add-dir\\)`));
  const id = s.sessionId!;
  await c.close();
  const store = new SessionStore(path.join(dir, 'data', 'cxl'));
  assert.deepEqual((await store.load(id))?.extras?.[ADDITIONAL_DIRS_KEY], [lib], 'the session was opened with it');

  const again = new AcpClient({ argv, label: 'cxl acp', builtin: true, cwd: project, additionalDirectories: [lib], env, settleMs: 5, resume: { kind: 'id', id } });
  cleanups.push(() => again.close());
  await again.start();
  await waitFor(again, (x) => x.sessionId === id && !x.loading, 'the resumed session', 30_000);
  await again.close();
  assert.deepEqual((await new SessionStore(path.join(dir, 'data', 'cxl')).load(id))?.extras?.[ADDITIONAL_DIRS_KEY], [lib], 'a resume with --add-dir keeps it');
});

test('an agent that does not take additional directories: the UI says so once, and sends none', async () => {
  const lib = peerWorkdir();
  const c = peer(['--lifecycle'], { additionalDirectories: [lib] });
  const s = await waitForPeer(c, (x) => x.sessionId !== undefined && /does not take additional directories/.test(allText(x)), 'the notice');
  assert.match(allText(s), new RegExp(`its tools reach only .*, not ${lib.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  assert.deepEqual(agentSaid(s, 'additionalDirectories'), []);
  await c.newSession();
  const later = await waitForPeer(c, (x) => x.sessionId === 'peer-2', 'a second session');
  // the new session's conversation starts empty: a second notice would be in it
  assert.doesNotMatch(allText(later), /does not take additional directories/, 'said once');
  assert.deepEqual(agentSaid(later, 'additionalDirectories'), []);
});

test('the fs host refuses an additional directory the agent would refuse: the home directory, a missing one', () => {
  const root = workdir();
  assert.throws(() => new AcpClient({ argv: ['true'], label: 'x', cwd: root, additionalDirectories: [path.join(root, 'missing')] }), /does not exist/);
  assert.throws(() => new AcpClient({ argv: ['true'], label: 'x', cwd: root, additionalDirectories: ['/'] }), /file system root/);
});
