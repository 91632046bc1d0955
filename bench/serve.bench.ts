// `cxl serve`: session/update throughput to a client over the WebSocket and over Streamable HTTP,
// against the same agent over stdio (`cxl acp`), all three in one run and alternating so a busy
// machine slows each alike; then the host's memory per idle connection (20 WebSocket clients,
// initialized, each with a session) against what a client costs over stdio: a `cxl acp` process
// of its own. Each flood gets a fresh session (made untimed), as in acp.bench.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { createWebSocketStream, type WebSocketConstructor } from '@agentclientprotocol/sdk/experimental/ws-client';
import { WebSocket } from 'ws';
import { childStreams, moduleCommand } from '../src/core/platform/runtime.ts';
import { startFakeOpenAI } from '../test/fixtures/fake_models.ts';
import { report } from './report.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const N = 20_000;
const IDLE = 20;
const TOKEN = 'bench-token-0123456789abcdef';

interface Peer {
  conn: acp.ClientConnection;
  sessionId: string;
  chunks: number;
  renew(): Promise<void>;
}

async function open(stream: acp.Stream, cwd: string): Promise<Peer> {
  const peer = { chunks: 0 } as Peer;
  peer.conn = acp
    .client({ name: 'bench' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      if (params.update.sessionUpdate === 'agent_message_chunk') peer.chunks++;
    })
    .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: 'cancelled' as const } }))
    .connect(stream);
  await peer.conn.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
  peer.renew = async () => {
    peer.sessionId = (await peer.conn.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] })).sessionId;
  };
  await peer.renew();
  return peer;
}

async function flood(peer: Peer): Promise<number> {
  await peer.renew();
  const before = peer.chunks;
  const t0 = performance.now();
  const res = await peer.conn.agent.request(acp.methods.agent.session.prompt, { sessionId: peer.sessionId, prompt: [{ type: 'text', text: 'say tok many times' }] });
  const ms = performance.now() - t0;
  if (res.stopReason !== 'end_turn') throw new Error(`prompt ended with ${res.stopReason}`);
  // an update may still be in flight behind the answer on HTTP (another stream): wait for it, untimed
  const end = Date.now() + 10_000;
  while (peer.chunks - before < N && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
  if (peer.chunks - before < N) throw new Error(`got ${peer.chunks - before} chunks, expected ${N}`);
  return ms;
}

/** resident memory of a process, in bytes (Linux) */
function rss(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

async function settledRss(pid: number): Promise<number> {
  await new Promise((r) => setTimeout(r, 1500));
  return rss(pid);
}

const dir = mkdtempSync(path.join(tmpdir(), 'cxl-bench-serve-'));
const reply = { text: 'tok '.repeat(N), bulk: true };
const fake = await startFakeOpenAI(() => reply);
const env = { ...process.env, XDG_DATA_HOME: path.join(dir, 'data'), HOME: dir, OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'k', CXL_SERVE_TOKEN: TOKEN };
const model = ['--provider', 'openai', '--model', 'bench', '--context-window', '4000000'];
const cli = moduleCommand(path.join(root, 'src/cli.ts'));
const children: ChildProcess[] = [];
const ended = (c: ChildProcess) => new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('close', () => r())));

try {
  const host = spawn(cli[0], [...cli.slice(1), 'serve', dir, '--listen', '127.0.0.1:0', ...model], { cwd: dir, env, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(host);
  let out = '';
  host.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const until = Date.now() + 60_000;
  while (!/^listening on (\S+)\n/.test(out)) {
    if (host.exitCode !== null || Date.now() > until) throw new Error(`cxl serve did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const url = /^listening on (\S+)\n/.exec(out)![1];
  const headers = { Authorization: `Bearer ${TOKEN}` };
  const wsStream = () => createWebSocketStream(url.replace(/^http/, 'ws'), { headers, WebSocket: WebSocket as unknown as WebSocketConstructor });

  const stdioChild = spawn(cli[0], [...cli.slice(1), 'acp', ...model], { cwd: dir, env, stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(stdioChild);
  const { input, output } = childStreams(stdioChild);
  const stdio = await open(acp.ndJsonStream(output, input), dir);
  const ws = await open(wsStream(), dir);
  const http = await open(createHttpStream(url, { headers }), dir);

  // memory first, before the floods grow the heaps: the host with its three clients, then 20 more idle
  // a first round of 20, closed again, warms what a connection's first use allocates once (code,
  // the heap's own growth); the second round is what each further idle connection costs
  const warm: Peer[] = [];
  for (let i = 0; i < IDLE; i++) warm.push(await open(wsStream(), dir));
  for (const p of warm) p.conn.close();
  const before = await settledRss(host.pid!);
  const idle: Peer[] = [];
  for (let i = 0; i < IDLE; i++) idle.push(await open(wsStream(), dir));
  const after = await settledRss(host.pid!);
  const perConn = Math.max(0, after - before) / IDLE;
  const oneAcp = rss(stdioChild.pid!);
  report({ name: `cxl serve memory per idle connection (${IDLE}, WebSocket, one session each)`, ours: perConn / 1024 / 1024, reference: oneAcp / 1024 / 1024, unit: 'MB', against: 'a cxl acp process per stdio client', target: '< 0.1x' });
  for (const p of idle) p.conn.close();

  // throughput: one warm-up each, then 5 rounds of stdio, WebSocket, HTTP in turn
  await flood(stdio);
  await flood(ws);
  await flood(http);
  const t = { stdio: [] as number[], ws: [] as number[], http: [] as number[] };
  for (let i = 0; i < 5; i++) {
    t.stdio.push(await flood(stdio));
    t.ws.push(await flood(ws));
    t.http.push(await flood(http));
  }
  const med = (a: number[]) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
  const rate = (a: number[]) => (N / med(a)) * 1000;
  report({ name: 'session/update host→client (cxl serve, WebSocket)', ours: rate(t.ws), reference: rate(t.stdio), unit: 'updates/s', against: 'cxl acp over stdio', target: '≥ 0.7x' });
  report({ name: 'session/update host→client (cxl serve, Streamable HTTP)', ours: rate(t.http), reference: rate(t.stdio), unit: 'updates/s', against: 'cxl acp over stdio', target: '≥ 0.5x' });

  stdio.conn.close();
  ws.conn.close();
  http.conn.close();
  stdioChild.stdin?.end();
  host.kill('SIGTERM');
  await Promise.all(children.map(ended));
} finally {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
}
