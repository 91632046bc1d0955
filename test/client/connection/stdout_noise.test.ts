// An "agent" that prints text on stdout (a banner, or no ACP agent at all: `--agent 'echo hello'`)
// is reported with what it wrote and the usual cause, not only "exited with code 0"; a real
// agent's JSON passes untouched.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { AcpClient } from '../../../src/client/acp_client.ts';
import { StdoutNoise } from '../../../src/client/connection/stdout_noise.ts';
import { peerWorkdir, removePeers, shown, waitFor } from '../peer_harness.ts';

after(removePeers);

test('`echo hello` as the agent: the exit notice quotes what it wrote and says an ACP agent writes only JSON-RPC there', async () => {
  const c = new AcpClient({ argv: ['sh', '-c', 'echo hello; echo "Welcome to Tool v2"'], label: 'sh', cwd: peerWorkdir(), settleMs: 5 });
  try {
    await c.start();
    const s = await waitFor(c, (x) => x.agent.status === 'exited' && x.history.some((h) => h.kind === 'notice' && h.level === 'error'), 'the exit report');
    const text = shown(s);
    assert.match(text, /the agent exited with code 0\. It wrote “hello”, “Welcome to Tool v2” on stdout, which is not ACP: an ACP agent writes only JSON-RPC messages there\. The usual mistake is a banner or log line on stdout/);
    assert.ok(s.agentLog.includes('[cxl] the agent wrote on stdout, not ACP: hello'));
  } finally {
    await c.close();
  }
});

test('StdoutNoise: JSON lines and lines past the first 4 KiB pass unnoticed; split lines are joined', async () => {
  const seen: string[] = [];
  const noise = new StdoutNoise((l) => seen.push(l));
  const enc = new TextEncoder();
  const chunks = ['{"jsonrpc":"2.0"}\nban', 'ner line\n', `{"x":"${'y'.repeat(5000)}"}\n`, 'late text\n'];
  const out: string[] = [];
  const dec = new TextDecoder();
  const stream = noise.watch(new ReadableStream<Uint8Array>({ start(ctl) { for (const c of chunks) ctl.enqueue(enc.encode(c)); ctl.close(); } }));
  for await (const b of stream as unknown as AsyncIterable<Uint8Array>) out.push(dec.decode(b));
  assert.equal(out.join(''), chunks.join(''), 'every byte passes');
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(seen, ['banner line']);
  assert.deepEqual(noise.lines, ['banner line']);
});
