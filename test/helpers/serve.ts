// What the tests of `cxl serve` share: the host started as a real process (its own process group)
// in a temp workspace with its own data dir and a scripted model server on 127.0.0.1, and a client
// of it over the SDK's own remote transports (Streamable HTTP, WebSocket) that records updates
// and serves fs/* and terminal/* from real files and processes, so a host that used them would show.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import * as acp from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { createWebSocketStream, type WebSocketConstructor } from '@agentclientprotocol/sdk/experimental/ws-client';
import { WebSocket } from 'ws';
import { startFakeOpenAI, type FakeServer, type Reply } from '../fixtures/fake_models.ts';
import { cxlCommand } from './cxl.ts';

export const TOKEN = 'test-token-0123456789abcdef';

type Script = Reply[] | ((body: Record<string, unknown>, n: number) => Reply);

export interface Served {
  dir: string;
  data: string;
  srv: FakeServer;
  env: Record<string, string>;
  child: ChildProcess;
  url: string;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then the exit */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  log(): string;
}

export async function workspaceWithModel(script: Script, files: Record<string, string> = { 'notes.txt': 'one\ntwo\n' }): Promise<{ dir: string; srv: FakeServer; env: Record<string, string>; cleanup(): Promise<void> }> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cxl-serve-')));
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), text);
  }
  const srv = await startFakeOpenAI(script);
  const env = { HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), OPENAI_BASE_URL: srv.url, OPENAI_API_KEY: 'k', CXL_SERVE_TOKEN: TOKEN };
  return {
    dir,
    srv,
    env,
    async cleanup() {
      await srv.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `cxl serve DIR --listen 127.0.0.1:0` started, its first line read. */
export async function serve(w: { dir: string; srv: FakeServer; env: Record<string, string> }, extra: string[] = [], env: Record<string, string> = {}): Promise<Served> {
  const [cmd, ...pre] = cxlCommand();
  const child = spawn(cmd, [...pre, 'serve', w.dir, '--listen', '127.0.0.1:0', '--provider', 'openai', '--model', 'm', ...extra], {
    cwd: w.dir,
    env: { ...process.env, NO_COLOR: '1', ...w.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const kill = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(kill);
      resolve({ code, signal });
    }),
  );
  const end = Date.now() + 30_000;
  while (!/^listening on (\S+)\n/.test(out)) {
    if (child.exitCode !== null || Date.now() > end) throw new Error(`cxl serve did not start (exit ${child.exitCode}):\n${out}\n${err}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const url = /^listening on (\S+)\n/.exec(out)![1];
  const data = path.join(w.env.XDG_DATA_HOME, 'cxl');
  return {
    dir: w.dir,
    data,
    srv: w.srv,
    env: w.env,
    child,
    url,
    stdout: () => out,
    stderr: () => err,
    exited,
    async stop() {
      // process.kill, not child.kill: Deno's child_process reports a child it signalled itself as
      // killed by the signal whatever its exit code was
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGTERM');
      return exited;
    },
    log: () => {
      try {
        return fs.readFileSync(path.join(data, 'serve', 'serve.log'), 'utf8');
      } catch {
        return '';
      }
    },
  };
}

export type Transport = 'http' | 'ws';

/** A client of the host over one of the SDK's remote transports, declaring fs and terminal. */
export class RemoteClient {
  readonly updates: acp.SessionNotification[] = [];
  readonly fsCalls: string[] = [];
  readonly terminalCalls: string[] = [];
  conn!: acp.ClientConnection;
  constructor(
    readonly url: string,
    readonly transport: Transport,
    readonly token: string = TOKEN,
  ) {}

  async start(): Promise<acp.InitializeResponse> {
    const headers = { Authorization: `Bearer ${this.token}` };
    const stream =
      this.transport === 'http'
        ? createHttpStream(this.url, { headers })
        : createWebSocketStream(this.url.replace(/^http/, 'ws'), { headers, WebSocket: WebSocket as unknown as WebSocketConstructor });
    const refuse = (what: string) => {
      this.terminalCalls.push(what);
      throw acp.RequestError.internalError(undefined, 'this test client never runs anything');
    };
    const app = acp
      .client({ name: 'cxl-serve-test' })
      .onNotification(acp.methods.client.session.update, ({ params }) => {
        this.updates.push(params);
      })
      .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: 'cancelled' as const } }))
      .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
        this.fsCalls.push(`read ${params.path}`);
        return { content: fs.readFileSync(params.path, 'utf8') };
      })
      .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
        this.fsCalls.push(`write ${params.path}`);
        return {};
      })
      .onRequest(acp.methods.client.terminal.create, () => refuse('create'))
      .onRequest(acp.methods.client.terminal.output, () => refuse('output'))
      .onRequest(acp.methods.client.terminal.waitForExit, () => refuse('wait'))
      .onRequest(acp.methods.client.terminal.kill, () => refuse('kill'))
      .onRequest(acp.methods.client.terminal.release, () => refuse('release'));
    this.conn = app.connect(stream);
    return this.conn.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      clientInfo: { name: 'cxl-serve-test', version: '0.0.0' },
    });
  }

  newSession(cwd: string): Promise<acp.NewSessionResponse> {
    return this.conn.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  }

  prompt(sessionId: string, text: string): Promise<acp.PromptResponse> {
    return this.conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
  }

  load(sessionId: string, cwd: string): Promise<acp.LoadSessionResponse> {
    return this.conn.agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
  }

  text(sessionId?: string): string {
    return this.updates
      .filter((u) => (!sessionId || u.sessionId === sessionId) && u.update.sessionUpdate === 'agent_message_chunk')
      .map((u) => (u.update as { content: { text?: string } }).content.text ?? '')
      .join('');
  }

  toolResults(): string {
    return JSON.stringify(this.updates.filter((u) => u.update.sessionUpdate === 'tool_call_update'));
  }

  async close(): Promise<void> {
    this.conn?.close();
    await Promise.race([this.conn?.closed, new Promise((r) => setTimeout(r, 2000))]);
  }
}

/** A raw request to the host: status and body text. */
export async function raw(url: string, init: RequestInit & { token?: string | null } = {}): Promise<{ status: number; text: string; headers: Headers }> {
  const { token = TOKEN, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token !== null) headers.set('Authorization', `Bearer ${token}`);
  const r = await fetch(url, { ...rest, headers });
  return { status: r.status, text: await r.text(), headers: r.headers };
}

/** A WebSocket upgrade's answer: opened, or refused with the HTTP status. */
export function upgrade(url: string, token: string | null): Promise<{ opened: boolean; status?: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url.replace(/^http/, 'ws'), token === null ? {} : { headers: { Authorization: `Bearer ${token}` } });
    ws.on('open', () => {
      ws.close();
      resolve({ opened: true });
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve({ opened: false, status: res.statusCode });
      res.resume();
    });
    ws.on('error', () => resolve({ opened: false }));
  });
}

/** true while any process of this process group exists */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
