// `cxl --agent 'echo hello'` (docs/tui.md's own example): the agent process starts before its
// client connects (the UI loads meanwhile), prints and exits; the exit report shows what it
// printed, not only "exited with code 0". A real child process.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { AcpClient } from '../../../src/client/acp_client.ts';
import { AgentProcess } from '../../../src/client/connection/agent_process.ts';
import { removeWorkdirs, waitFor, workdir } from '../client_harness.ts';

after(removeWorkdirs);

test('an agent that prints and exits before the client connects: its output is in the exit report', async () => {
  const cwd = workdir();
  const proc = new AgentProcess(['sh', '-c', 'echo hello'], { cwd });
  await proc.exited;
  // the client comes later, as the UI's does once its screen is loaded
  await new Promise((r) => setTimeout(r, 200));
  const c = new AcpClient({ argv: ['sh', '-c', 'echo hello'], label: 'echo', cwd, settleMs: 5, process: proc });
  await c.start();
  const s = await waitFor(c, (x) => x.agent.status === 'exited' && x.history.some((h) => h.kind === 'notice'), 'the exit report');
  const text = s.history.map((h) => ('text' in h ? h.text : '')).join('\n');
  assert.match(text, /the agent exited with code 0\. It wrote “hello” on stdout/);
});
