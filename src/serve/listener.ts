// The host's socket: HTTP at /acp for the SDK's Streamable HTTP transport, and the WebSocket
// upgrade of the same path, each request admitted (path, token, connection cap) before the SDK
// sees it. The one Node/Deno difference of the host lives here: Node serves through node:http and
// the SDK's Node adapter with a `ws` server; Deno through Deno.serve and its built-in
// Deno.upgradeWebSocket, handing the SDK's server web Requests as they are.
import { Buffer } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AcpServer } from '@agentclientprotocol/sdk/experimental/server';
import { runtimeName } from '../core/platform/runtime.ts';

export interface Refusal {
  status: number;
  text: string;
}

export interface Admission {
  path: string;
  method: string;
  headers: Headers;
  remote: string;
  upgrade: boolean;
}

export interface ListenOptions {
  host: string;
  port: number;
  server: AcpServer;
  /** a refusal stops the request before the SDK sees it (401, 404, 503) */
  admit(a: Admission): Refusal | undefined;
  /** largest request body and WebSocket message, in bytes */
  maxBodyBytes: number;
  /** a WebSocket that answers no ping for this long is closed */
  pingMs: number;
  /** an HTTP or WebSocket connection came or went, or a request was turned away */
  log(line: string): void;
  /**
   * Streamable HTTP traffic of one ACP connection: a request or the answer that named it
   * (`seen`, initialize's answer included), a GET stream opened or ended. WebSocket connections are
   * watched by pings instead.
   */
  activity(connectionId: string, what: 'seen' | 'open' | 'close'): void;
}

export interface Listening {
  host: string;
  port: number;
  /** stops accepting; what is open is the SDK's to close (AcpServer.close) */
  close(): Promise<void>;
}

export function listen(o: ListenOptions): Promise<Listening> {
  return runtimeName === 'deno' ? listenDeno(o) : listenNode(o);
}

function plain(r: Refusal): { status: number; headers: Record<string, string>; body: string } {
  return { status: r.status, headers: { 'Content-Type': 'text/plain', ...(r.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {}) }, body: `${r.text}\n` };
}

// ── Node: node:http, the SDK's Node adapter, ws ─────────────────────────────────────────────

async function listenNode(o: ListenOptions): Promise<Listening> {
  const [http, { WebSocketServer }, nodeAdapter] = await Promise.all([import('node:http'), import('ws'), import('@agentclientprotocol/sdk/experimental/node')]);
  // maxPayload: a bigger frame closes the socket (1009); below the SDK's maxBufferedBytes, as it asks
  const wss = new WebSocketServer({ noServer: true, maxPayload: o.maxBodyBytes, perMessageDeflate: false });
  const handle = nodeAdapter.createNodeHttpHandler(o.server, { maxRequestBodyBytes: o.maxBodyBytes });
  const upgrade = nodeAdapter.createNodeWebSocketUpgradeHandler(o.server, wss);
  const headersOf = (req: IncomingMessage) => {
    const h = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') h.set(k, v);
    return h;
  };
  const admission = (req: IncomingMessage, isUpgrade: boolean): Admission => ({
    path: new URL(req.url ?? '/', 'http://host').pathname,
    method: req.method ?? 'GET',
    headers: headersOf(req),
    remote: `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`,
    upgrade: isUpgrade,
  });
  const srv = http.createServer((req: IncomingMessage, res: ServerResponse) => {
    const refusal = o.admit(admission(req, false));
    if (refusal) {
      const p = plain(refusal);
      res.writeHead(p.status, p.headers).end(p.body);
      req.resume(); // what was sent is read and dropped, not answered
      return;
    }
    const id = req.headers['acp-connection-id'];
    if (typeof id === 'string') {
      o.activity(id, 'seen');
      if (req.method === 'GET') {
        o.activity(id, 'open');
        res.once('close', () => o.activity(id, 'close'));
      }
    } else if (req.method === 'POST') {
      // initialize: the new connection's id is in the answer's headers
      const setHeader = res.setHeader.bind(res);
      res.setHeader = (name: string, value: number | string | readonly string[]) => {
        if (name.toLowerCase() === 'acp-connection-id' && typeof value === 'string') o.activity(value, 'seen');
        return setHeader(name, value);
      };
    }
    handle(req, res);
  });
  // a client that sends its headers slowly, or never, is not kept (SSE responses are not bounded: they are answers)
  srv.headersTimeout = 15_000;
  srv.requestTimeout = 60_000;
  srv.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    const a = admission(req, true);
    const refusal = o.admit(a);
    if (refusal) {
      const p = plain(refusal);
      const reason = http.STATUS_CODES[p.status] ?? '';
      socket.end(`HTTP/1.1 ${p.status} ${reason}\r\n${Object.entries(p.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}Content-Length: ${Buffer.byteLength(p.body)}\r\nConnection: close\r\n\r\n${p.body}`);
      return;
    }
    o.log(`websocket from ${a.remote}`);
    upgrade(req, socket, head);
  });
  // a socket that answers no ping for pingMs is gone (a laptop that slept, a cut network)
  const alive = new WeakMap<object, boolean>();
  const ping = setInterval(() => {
    for (const ws of wss.clients) {
      if (alive.get(ws) === false) {
        ws.terminate();
        continue;
      }
      if (!alive.has(ws)) ws.on('pong', () => alive.set(ws, true));
      alive.set(ws, false);
      try {
        ws.ping();
      } catch {
        /* closing already */
      }
    }
  }, o.pingMs);
  ping.unref();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(o.port, o.host, () => {
      srv.off('error', reject);
      resolve();
    });
  });
  const addr = srv.address() as { address: string; port: number };
  return {
    host: o.host,
    port: addr.port,
    close: async () => {
      clearInterval(ping);
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((r) => {
        srv.close(() => r());
        srv.closeAllConnections();
      });
    },
  };
}

// ── Deno: Deno.serve and Deno.upgradeWebSocket ───────────────────────────────────────────────

interface DenoHttpServer {
  addr: { hostname: string; port: number };
  finished: Promise<void>;
  shutdown(): Promise<void>;
}
interface DenoServe {
  serve(o: { hostname: string; port: number; signal?: AbortSignal; onListen?: () => void }, handler: (req: Request, info: { remoteAddr: { hostname: string; port: number } }) => Response | Promise<Response>): DenoHttpServer;
  upgradeWebSocket(req: Request, o?: { idleTimeout?: number }): { socket: WebSocket; response: Response };
}

/** The body, read up to `max` bytes; undefined when it is longer. */
async function boundedBody(req: Request, max: number): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (!req.body) return new Uint8Array();
  const parts: Uint8Array[] = [];
  let n = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.byteLength;
    if (n > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    parts.push(value);
  }
  return new Uint8Array(Buffer.concat(parts, n));
}

/** Deno's socket as the SDK sees it, with frames over the size limit closing it (1009) as ws's maxPayload does. */
function boundedSocket(socket: WebSocket, max: number): WebSocket {
  socket.addEventListener('message', (ev) => {
    const d = (ev as MessageEvent).data;
    const size = typeof d === 'string' ? d.length : (d as ArrayBuffer).byteLength ?? 0;
    if (size > max) {
      ev.stopImmediatePropagation();
      socket.close(1009, 'message too big');
    }
  });
  return socket;
}

async function listenDeno(o: ListenOptions): Promise<Listening> {
  const D = (globalThis as unknown as { Deno: DenoServe }).Deno;
  const ac = new AbortController();
  const response = (r: Refusal) => {
    const p = plain(r);
    return new Response(p.body, { status: p.status, headers: p.headers });
  };
  const srv = D.serve({ hostname: o.host, port: o.port, signal: ac.signal, onListen: () => {} }, async (req, info) => {
    const url = new URL(req.url);
    const isUpgrade = req.headers.get('upgrade')?.toLowerCase() === 'websocket';
    const remote = `${info.remoteAddr.hostname}:${info.remoteAddr.port}`;
    const refusal = o.admit({ path: url.pathname, method: req.method, headers: req.headers, remote, upgrade: isUpgrade });
    if (refusal) return response(refusal);
    if (isUpgrade) {
      o.log(`websocket from ${remote}`);
      const prepared = o.server.prepareWebSocketUpgrade();
      let up: { socket: WebSocket; response: Response };
      try {
        up = D.upgradeWebSocket(req, { idleTimeout: Math.max(1, Math.round(o.pingMs / 1000)) });
      } catch (err) {
        prepared.reject();
        return response({ status: 400, text: `not a WebSocket upgrade: ${(err as Error).message}` });
      }
      prepared.accept(boundedSocket(up.socket, o.maxBodyBytes));
      up.response.headers.set('Acp-Connection-Id', prepared.connectionId);
      return up.response;
    }
    let forward = req;
    if (req.method === 'POST') {
      const declared = Number(req.headers.get('content-length') ?? '0');
      if (declared > o.maxBodyBytes) return response({ status: 413, text: `Request body exceeds ${o.maxBodyBytes} bytes` });
      const body = await boundedBody(req, o.maxBodyBytes);
      if (!body) return response({ status: 413, text: `Request body exceeds ${o.maxBodyBytes} bytes` });
      forward = new Request(req.url, { method: 'POST', headers: req.headers, body: body as Uint8Array<ArrayBuffer>, signal: req.signal });
    }
    const id = req.headers.get('acp-connection-id');
    if (id) o.activity(id, 'seen');
    const answer = await o.server.handleRequest(forward);
    const made = answer.headers.get('acp-connection-id');
    if (!id && made) o.activity(made, 'seen');
    if (req.method === 'GET' && id && answer.body && answer.status === 200) {
      // the stream's end (the client gone, the connection closed) is when its body ends
      o.activity(id, 'open');
      let ended = false;
      const end = () => {
        if (!ended) o.activity(id, 'close');
        ended = true;
      };
      const body = answer.body.pipeThrough(new TransformStream({ flush: end }));
      req.signal.addEventListener('abort', end, { once: true });
      return new Response(body, { status: answer.status, headers: answer.headers });
    }
    return answer;
  });
  return {
    host: o.host,
    port: srv.addr.port,
    close: async () => {
      ac.abort();
      await Promise.race([srv.finished, new Promise((r) => setTimeout(r, 1000))]);
    },
  };
}
