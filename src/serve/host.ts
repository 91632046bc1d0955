// A standing host: `cxl acp`'s agent served at /acp over the SDK's own remote transport
// (Streamable HTTP and WebSocket, experimental/server), to any number of clients at once. One set
// of live sessions for all of them (a session loaded on another connection moves there, so each
// session log keeps one writer), every session in the host's shape (shape.ts), every request
// admitted by its bearer token first. A connection that goes away takes its sessions' turns with
// it (cancelled, saved); the sessions stay stored for any client to load.
import fs from 'node:fs';
import path from 'node:path';
import { AcpServer, DEFAULT_MAX_BUFFERED_BYTES, DEFAULT_MAX_OUTPUT_STALL_MS } from '@agentclientprotocol/sdk/experimental/server';
import type { AgentFactory } from '@agentclientprotocol/sdk/experimental/server';
import type * as acp from '@agentclientprotocol/sdk';

type AgentConnector = ReturnType<AgentFactory>;
import { createAgent, hostSessions, type AgentOptions } from '../agent/acp/agent.ts';
import { META_HOST, type HostMeta } from '../core/protocol_names.ts';
import { listen, type Admission, type Refusal } from './listener.ts';
import { hostTools, SHAPE_TEXT } from './shape.ts';
import type { Token } from './token.ts';

export const ACP_PATH = '/acp';

/** The limits a host runs with; docs/serve.md, "Limits". */
export interface HostLimits {
  /** largest request body and WebSocket message (413 / close 1009) */
  maxBodyBytes: number;
  /** output a connection holds for a client that does not read it (the SDK's maxBufferedBytes) */
  maxBufferedBytes: number;
  /** how long such a client may read nothing before its connection is closed (the SDK's maxOutputStallMs) */
  maxOutputStallMs: number;
  /** connections at once; one more is answered 503 */
  maxConnections: number;
  /** a Streamable HTTP connection with no stream open and no request for this long is closed */
  idleMs: number;
  /** a WebSocket that answers no ping for this long is closed */
  pingMs: number;
}

export const DEFAULT_LIMITS: HostLimits = {
  maxBodyBytes: 16 * 1024 * 1024,
  maxBufferedBytes: DEFAULT_MAX_BUFFERED_BYTES,
  maxOutputStallMs: DEFAULT_MAX_OUTPUT_STALL_MS,
  maxConnections: 64,
  idleMs: 30 * 60_000,
  pingMs: 30_000,
};

export interface HostOptions {
  workspace: string;
  host: string;
  port: number;
  token: Token;
  /** the agent as `cxl acp` builds it; its tools are put in the host's shape here */
  agent: AgentOptions;
  limits?: Partial<HostLimits>;
  log(line: string): void;
}

export interface Host {
  url: string;
  port: number;
  /** connections open now */
  connections(): number;
  /** stops listening, closes every connection, cancels and saves every session */
  close(graceMs?: number): Promise<void>;
}

function realOrSelf(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return path.resolve(p);
  }
}

export async function startHost(o: HostOptions): Promise<Host> {
  const limits: HostLimits = { ...DEFAULT_LIMITS, ...o.limits };
  const workspace = realOrSelf(o.workspace);
  const agent: AgentOptions = { ...o.agent, buildTools: hostTools(o.agent.buildTools) };
  const sessions = hostSessions(agent);
  /** which connection a session is open on now */
  const owners = new Map<string, symbol>();
  let open = 0;
  const meta: HostMeta = { workspace, shape: SHAPE_TEXT };

  // a folder a client names is kept when it is inside the workspace; anything else (a path on
  // the client's own machine) is the workspace itself
  const cwdFor = (asked: string): string => {
    const real = realOrSelf(asked);
    return real === workspace || real.startsWith(workspace + path.sep) ? real : workspace;
  };

  const connectionAgent = (): AgentConnector => {
    const me = Symbol('connection');
    const mine = new Set<string>();
    const app = createAgent(agent, {
      sessions,
      cwd: cwdFor,
      opened(id) {
        owners.set(id, me);
        mine.add(id);
      },
      meta: { [META_HOST]: meta },
    });
    return {
      connect(stream: acp.Stream, co?: { deferConnectHandlers?: boolean }) {
        // the server defers the app's connect handlers until initialize is answered: its options go through
        const conn = (app.connect as (s: acp.Stream, o?: { deferConnectHandlers?: boolean }) => ReturnType<typeof app.connect>)(stream, co);
        open++;
        o.log(`connection opened (${open} open)`);
        void conn.closed.finally(async () => {
          open--;
          // its sessions' turns end with it; a session another connection has loaded since is that one's
          for (const id of mine) {
            if (owners.get(id) !== me) continue;
            owners.delete(id);
            if (sessions.has(id)) await sessions.close(id).catch((err: unknown) => o.log(`closing session ${id}: ${err instanceof Error ? err.message : String(err)}`));
          }
          o.log(`connection closed (${open} open)`);
        });
        return conn;
      },
    };
  };

  const server = new AcpServer({ createAgent: connectionAgent, maxBufferedBytes: limits.maxBufferedBytes, maxOutputStallMs: limits.maxOutputStallMs });

  // Streamable HTTP connections: last heard of, streams open (listener.ts reports both)
  const http = new Map<string, { last: number; streams: number }>();
  const activity = (id: string, what: 'seen' | 'open' | 'close') => {
    const a = http.get(id) ?? { last: Date.now(), streams: 0 };
    a.last = Date.now();
    if (what === 'open') a.streams++;
    if (what === 'close') a.streams = Math.max(0, a.streams - 1);
    http.set(id, a);
  };
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [id, a] of http) {
      if (a.streams > 0 || now - a.last < limits.idleMs) continue;
      http.delete(id);
      o.log(`closing idle http connection (nothing for ${Math.round((now - a.last) / 1000)} s)`);
      void server.handleRequest(new Request(`http://host${ACP_PATH}`, { method: 'DELETE', headers: { 'Acp-Connection-Id': id } })).catch(() => {});
    }
  }, Math.min(limits.idleMs, 60_000));
  sweep.unref();

  const admit = (a: Admission): Refusal | undefined => {
    if (a.path !== ACP_PATH) return { status: 404, text: `Not found: this host serves ACP at ${ACP_PATH}` };
    // the token first: nothing about the host is said to a request without it
    if (!o.token.matches(a.headers.get('authorization'))) {
      o.log(`401 ${a.method}${a.upgrade ? ' (websocket)' : ''} from ${a.remote}: ${a.headers.get('authorization') ? 'wrong token' : 'no token'}`);
      return { status: 401, text: 'Unauthorized: send Authorization: Bearer <token> (the token file is named in the host\'s status)' };
    }
    const opening = a.upgrade || (a.method === 'POST' && !a.headers.get('acp-connection-id'));
    if (opening && open >= limits.maxConnections) {
      o.log(`503 from ${a.remote}: ${open} connections open (limit ${limits.maxConnections})`);
      return { status: 503, text: `Too many connections (${limits.maxConnections}); try again later` };
    }
    return undefined;
  };

  const listening = await listen({ host: o.host, port: o.port, server, admit, maxBodyBytes: limits.maxBodyBytes, pingMs: limits.pingMs, log: o.log, activity });
  const hostPart = o.host.includes(':') ? `[${o.host}]` : o.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostPart}:${listening.port}${ACP_PATH}`,
    port: listening.port,
    connections: () => open,
    close(graceMs = 1000) {
      closing ??= (async () => {
        clearInterval(sweep);
        // turns cancelled and sessions saved while their clients can still hear of it
        await sessions.shutdown(graceMs);
        await server.close().catch(() => {});
        await listening.close();
      })();
      return closing;
    },
  };
}
