// ACP over stdio: session/update throughput from agent to client, and the round trip of an
// fs/read_text_file of a 10 MB file, for `cxl acp` against a raw SDK echo agent (the same SDK,
// nothing else) measured in the same run with the same client. `cxl acp` runs with a window far
// larger than the flood, so the row measures the transport, not compaction; each flood gets a
// fresh session (made untimed), so a history grown by earlier runs does not weigh on later ones.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';
import { childStreams, moduleCommand } from '../src/core/platform/runtime.ts';
import { startFakeOpenAI } from '../test/fixtures/fake_models.ts';
import { report } from './report.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const N = 40_000;

interface Peer {
  child: ChildProcess;
  agent: acp.ClientContext;
  sessionId: string;
  chunks: number;
  /** a fresh session, which later prompts go to */
  renew(): Promise<void>;
  close(): Promise<void>;
}

async function connect(argv: string[], cwd: string, env: Record<string, string>): Promise<Peer> {
  const child = spawn(argv[0], argv.slice(1), { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  const { input, output } = childStreams(child);
  const peer = { child, chunks: 0 } as Peer;
  const conn = acp
    .client({ name: 'bench' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      if (params.update.sessionUpdate === 'agent_message_chunk') peer.chunks++;
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => ({ content: readFileSync(params.path, 'utf8') }))
    .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: 'selected', optionId: 'allow_once' } }))
    .connect(acp.ndJsonStream(output, input));
  peer.agent = conn.agent;
  await conn.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false } });
  peer.renew = async () => {
    peer.sessionId = (await conn.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] })).sessionId;
  };
  await peer.renew();
  peer.close = async () => {
    conn.close();
    child.stdin?.end();
    await new Promise<void>((r) => (child.exitCode !== null ? r() : child.once('close', () => r())));
  };
  return peer;
}

async function timed(peer: Peer, text: string): Promise<number> {
  const t0 = performance.now();
  const res = await peer.agent.request(acp.methods.agent.session.prompt, { sessionId: peer.sessionId, prompt: [{ type: 'text', text }] });
  const ms = performance.now() - t0;
  if (res.stopReason !== 'end_turn') throw new Error(`prompt ended with ${res.stopReason}`);
  return ms;
}

/** Medians of `runs` alternating calls of a and b, after one warm-up each. */
async function alternate(runs: number, a: () => Promise<number>, b: () => Promise<number>): Promise<[number, number]> {
  await a();
  await b();
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < runs; i++) {
    ta.push(await a());
    tb.push(await b());
  }
  const med = (t: number[]) => t.sort((x, y) => x - y)[Math.floor(t.length / 2)];
  return [med(ta), med(tb)];
}

const dir = mkdtempSync(path.join(tmpdir(), 'cxl-bench-acp-'));
// one reply object: the fake server serialises its events once, not at every request
const flood = { text: 'tok '.repeat(N), bulk: true };
const fake = await startFakeOpenAI(() => flood);
try {
  mkdirSync(path.join(dir, '.contenox'));
  writeFileSync(path.join(dir, '.contenox', 'agents.toml'), '[tools_policies.local_fs]\n_max_read_bytes = "0"\n_max_output_bytes = "0"\n');
  const big = path.join(dir, 'big.txt');
  const line = `${'x'.repeat(99)}\n`;
  writeFileSync(big, line.repeat(100_000)); // 10 MB
  const env = { XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'k' };
  const ours = await connect([...moduleCommand(path.join(root, 'src/cli.ts')), 'acp', '--provider', 'openai', '--model', 'bench', '--context-window', '4000000'], dir, env);
  const ref = await connect(moduleCommand(path.join(root, 'bench/acp_echo_agent.ts')), dir, env);
  try {
    // throughput: updates per second over the whole prompt; ours and the reference alternate
    // so a busy machine slows both alike
    const floodOurs = async () => {
      await ours.renew();
      const before = ours.chunks;
      const ms = await timed(ours, 'say tok many times');
      if (ours.chunks - before < N) throw new Error(`cxl sent ${ours.chunks - before} chunks, expected ${N}`);
      return ms;
    };
    const floodRef = async () => {
      await ref.renew();
      const before = ref.chunks;
      const ms = await timed(ref, `flood ${N}`);
      if (ref.chunks - before !== N) throw new Error('echo agent lost updates');
      return ms;
    };
    const [oursMs, refMs] = await alternate(5, floodOurs, floodRef);
    report({ name: 'session/update agent→client (stdio)', ours: (N / oursMs) * 1000, reference: (N / refMs) * 1000, unit: 'updates/s', against: 'raw SDK echo agent', target: '≥ 0.9x, > 20000/s' });

    const [readOurs, readRef] = await alternate(7, () => timed(ours, `/tool read_file {"path":"big.txt"}`), () => timed(ref, `read ${big}`));
    report({ name: 'fs/read_text_file 10 MB round trip', ours: readOurs, reference: readRef, unit: 'ms', against: 'raw SDK echo agent' });
  } finally {
    await ours.close();
    await ref.close();
  }
} finally {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
}
