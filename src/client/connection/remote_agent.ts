// A standing host (`cxl serve`) as the UI's agent: the SDK's WebSocket client to its /acp, with
// the bearer token, shaped as the agent process the client drives (JSON lines in and out, an exit,
// a log of the client's own notes), so the rest of the client does not know the difference.
import * as acp from '@agentclientprotocol/sdk';
import { createWebSocketStream, type WebSocketConstructor } from '@agentclientprotocol/sdk/experimental/ws-client';
import { WebSocket } from 'ws';
import type { AgentExit } from './agent_process.ts';

/** What the client drives of an agent: a process (agent_process.ts) or a host (this). */
export interface AgentEnd {
  readonly exited: Promise<AgentExit>;
  listen(o: { onStderr?: (lines: string[]) => void; onLog?: (lines: string[]) => void }): void;
  streams(): { input: ReadableStream<Uint8Array>; output: WritableStream<Uint8Array> };
  note(line: string): void;
  log(): string[];
  stderrTail(): string[];
  endStdin(): void;
  kill(signal?: NodeJS.Signals): void;
}

/** `http://host:port/acp` (as `cxl serve` prints it) or `ws://…` as the WebSocket URL. */
export function webSocketUrl(url: string): string {
  const u = new URL(url);
  if (u.protocol === 'http:') u.protocol = 'ws:';
  else if (u.protocol === 'https:') u.protocol = 'wss:';
  else if (u.protocol !== 'ws:' && u.protocol !== 'wss:') throw new Error(`${url} is not an http(s) or ws(s) URL`);
  if (u.pathname === '/' || u.pathname === '') u.pathname = '/acp';
  return u.toString();
}

export class RemoteAgent implements AgentEnd {
  readonly exited: Promise<AgentExit>;
  #log: string[] = [];
  #onLog: (lines: string[]) => void = () => {};
  #stream: acp.Stream;
  #done!: (e: AgentExit) => void;
  #closed = false;
  #writer: WritableStreamDefaultWriter<acp.AnyMessage> | undefined;

  constructor(readonly url: string, token: string) {
    this.exited = new Promise((r) => (this.#done = r));
    this.#stream = createWebSocketStream(webSocketUrl(url), { headers: { Authorization: `Bearer ${token}` }, WebSocket: WebSocket as unknown as WebSocketConstructor });
  }

  listen(o: { onStderr?: (lines: string[]) => void; onLog?: (lines: string[]) => void }): void {
    if (o.onLog) this.#onLog = o.onLog;
  }

  /** The host's messages as JSON lines, and JSON lines written as messages to it. */
  streams(): { input: ReadableStream<Uint8Array>; output: WritableStream<Uint8Array> } {
    const enc = new TextEncoder();
    const end = (why: string) => {
      if (this.#closed) return;
      this.#closed = true;
      this.note(why);
      this.#done({ code: null, signal: null, error: why });
    };
    const input = this.#stream.readable.pipeThrough(
      new TransformStream<acp.AnyMessage, Uint8Array>({
        transform: (m, c) => c.enqueue(enc.encode(`${JSON.stringify(m)}\n`)),
        flush: () => end(`the host at ${this.url} closed the connection`),
      }),
    );
    const decoder = new TextDecoder();
    let partial = '';
    const writer = this.#stream.writable.getWriter();
    this.#writer = writer;
    writer.closed.catch((err: unknown) => end(`cannot reach the host at ${this.url}: ${err instanceof Error ? err.message : String(err)}`));
    const output = new WritableStream<Uint8Array>({
      write: async (chunk) => {
        partial += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = partial.indexOf('\n')) >= 0) {
          const line = partial.slice(0, nl).trim();
          partial = partial.slice(nl + 1);
          if (line) await writer.write(JSON.parse(line) as acp.AnyMessage);
        }
      },
      close: () => writer.close().catch(() => {}),
      abort: () => writer.abort().catch(() => {}),
    });
    return { input, output };
  }

  note(line: string): void {
    for (const l of line.split('\n')) this.#log.push(`[cxl] ${l}`);
    if (this.#log.length > 1000) this.#log.splice(0, this.#log.length - 1000);
    this.#onLog(this.log());
  }

  log(): string[] {
    return [...this.#log];
  }

  stderrTail(): string[] {
    return this.#log.slice(-12);
  }

  /** The connection closed: the host keeps running, and keeps the session for a later attach. */
  endStdin(): void {
    void this.#writer?.close().catch(() => {});
  }

  kill(): void {
    if (this.#closed) return;
    this.#closed = true;
    void this.#writer?.abort().catch(() => {});
    this.#done({ code: 0, signal: null });
  }
}
