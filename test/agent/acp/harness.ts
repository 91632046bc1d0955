// A test ACP client built on the SDK: spawns `cxl acp` as a real child process, serves fs/* from
// real files and terminal/* with real processes, records every session/update in order and
// answers permission requests from a script.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import * as acp from '@agentclientprotocol/sdk';
import { childStreams } from '../../../src/core/platform/runtime.ts';
import { cxlCommand } from '../../helpers/cxl.ts';

export interface HarnessOptions {
  args?: string[];
  env?: Record<string, string | undefined>;
  fs?: boolean;
  terminal?: boolean;
  /** clientCapabilities.session (e.g. `{ compaction: {} }`) */
  session?: Record<string, unknown>;
  /** what the client says about its terminals' sandbox (clientCapabilities `_meta`), as the cxl client does */
  sandbox?: Record<string, unknown>;
  /** answers a permission request with an optionId, or 'cancelled' */
  permission?: (req: acp.RequestPermissionRequest) => string | Promise<string>;
  /** what this client answers fs/read_text_file with, instead of reading the file itself (a client of its own) */
  read?: (req: acp.ReadTextFileRequest) => string | Promise<string>;
  /** the error this client answers a fs/* or terminal/create request with, as a refusing client does */
  refuse?: (method: string) => acp.RequestError | undefined;
}

interface Term {
  child: ChildProcess;
  /** set on 'exit' (before 'close'): after that the pid may belong to someone else */
  gone: boolean;
  output: string;
  truncated: boolean;
  limit: number;
  exit?: { exitCode: number | null; signal: string | null };
  exited: Promise<void>;
}

export class Harness {
  readonly updates: acp.SessionNotification[] = [];
  readonly permissions: acp.RequestPermissionRequest[] = [];
  readonly fsReads: string[] = [];
  readonly fsWrites: string[] = [];
  readonly terminals = new Map<string, Term>();
  readonly terminalPids: number[] = [];
  /** the `_meta` of each terminal/create (the agent's sandbox hint) */
  readonly terminalMetas: unknown[] = [];
  stderr = '';
  child!: ChildProcess;
  conn!: acp.ClientConnection;
  private n = 0;
  constructor(readonly opts: HarnessOptions) {}

  async start(): Promise<acp.InitializeResponse> {
    const [cmd, ...pre] = cxlCommand();
    this.child = spawn(cmd, [...pre, 'acp', ...(this.opts.args ?? [])], {
      env: { ...process.env, NO_COLOR: '1', ...this.opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    const { input, output } = childStreams(this.child);
    const app = acp
      .client({ name: 'cxl-test-client' })
      .onNotification(acp.methods.client.session.update, ({ params }) => {
        this.updates.push(params);
      })
      .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
        this.permissions.push(params);
        const answer = this.opts.permission ? await this.opts.permission(params) : 'reject';
        return answer === 'cancelled' ? { outcome: { outcome: 'cancelled' } } : { outcome: { outcome: 'selected', optionId: answer } };
      })
      .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
        const refusal = this.opts.refuse?.('fs/read_text_file');
        if (refusal) throw refusal;
        this.fsReads.push(params.path);
        if (this.opts.read) return (async () => ({ content: await this.opts.read!(params) }))();
        let text = readFileSync(params.path, 'utf8');
        if (params.line || params.limit) {
          const lines = text.split('\n');
          const start = (params.line ?? 1) - 1;
          text = lines.slice(start, params.limit ? start + params.limit : undefined).join('\n');
        }
        return { content: text };
      })
      .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
        const refusal = this.opts.refuse?.('fs/write_text_file');
        if (refusal) throw refusal;
        this.fsWrites.push(params.path);
        mkdirSync(path.dirname(params.path), { recursive: true });
        writeFileSync(params.path, params.content);
        return {};
      })
      .onRequest(acp.methods.client.terminal.create, ({ params }) => {
        const refusal = this.opts.refuse?.('terminal/create');
        if (refusal) throw refusal;
        const id = `t${++this.n}`;
        this.terminalMetas.push(params._meta);
        const child = spawn(params.command, params.args ?? [], {
          cwd: params.cwd ?? undefined,
          env: { ...process.env, ...Object.fromEntries((params.env ?? []).map((e) => [e.name, e.value])) },
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        if (child.pid) this.terminalPids.push(child.pid);
        const t: Term = { child, gone: false, output: '', truncated: false, limit: params.outputByteLimit ?? 1 << 20, exited: undefined as unknown as Promise<void> };
        const add = (d: Buffer) => {
          t.output += d.toString('utf8');
          if (Buffer.byteLength(t.output) > t.limit) {
            t.truncated = true;
            t.output = t.output.slice(t.output.length - t.limit);
          }
        };
        child.stdout!.on('data', add);
        child.stderr!.on('data', add);
        child.on('exit', () => (t.gone = true));
        t.exited = new Promise((r) => {
          child.on('error', (e) => {
            t.output += String(e.message);
            t.exit = { exitCode: 127, signal: null };
            r();
          });
          child.on('close', (code, sig) => {
            t.exit = { exitCode: code, signal: sig };
            r();
          });
        });
        this.terminals.set(id, t);
        return { terminalId: id };
      })
      .onRequest(acp.methods.client.terminal.output, ({ params }) => {
        const t = this.terminals.get(params.terminalId)!;
        return { output: t.output, truncated: t.truncated, ...(t.exit ? { exitStatus: t.exit } : {}) };
      })
      .onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => {
        const t = this.terminals.get(params.terminalId)!;
        await t.exited;
        return t.exit!;
      })
      .onRequest(acp.methods.client.terminal.kill, ({ params }) => {
        const t = this.terminals.get(params.terminalId)!;
        killGroup(t);
        return {};
      })
      .onRequest(acp.methods.client.terminal.release, ({ params }) => {
        const t = this.terminals.get(params.terminalId);
        if (t) killGroup(t);
        return {};
      });
    this.conn = app.connect(acp.ndJsonStream(output, input));
    return this.conn.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {
        fs: { readTextFile: this.opts.fs !== false, writeTextFile: this.opts.fs !== false },
        terminal: this.opts.terminal !== false,
        ...(this.opts.session ? { session: this.opts.session } : {}),
        ...(this.opts.sandbox ? { _meta: { 'cxl/sandbox': this.opts.sandbox } } : {}),
      },
      clientInfo: { name: 'cxl-test-client', version: '0.0.0' },
    });
  }

  get agent(): acp.ClientContext {
    return this.conn.agent;
  }

  newSession(cwd: string, mcpServers: acp.McpServer[] = []): Promise<acp.NewSessionResponse> {
    return this.agent.request(acp.methods.agent.session.new, { cwd, mcpServers });
  }

  async prompt(sessionId: string, text: string): Promise<acp.PromptResponse> {
    try {
      return await this.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
    } catch (err) {
      // the agent's stderr says why a connection closed
      throw new Error(`${err instanceof Error ? err.message : String(err)}; agent exit ${this.child.exitCode} ${this.child.signalCode}; stderr:\n${this.stderr}`);
    }
  }

  /** the text of agent_message_chunk updates, joined */
  messageText(sessionId?: string): string {
    return this.updates
      .filter((u) => (!sessionId || u.sessionId === sessionId) && u.update.sessionUpdate === 'agent_message_chunk')
      .map((u) => ((u.update as { content: { type: string; text?: string } }).content.text ?? ''))
      .join('');
  }

  kinds(): string[] {
    return this.updates.map((u) => u.update.sessionUpdate);
  }

  toolUpdates(): Array<acp.SessionUpdate & Record<string, unknown>> {
    return this.updates.map((u) => u.update as acp.SessionUpdate & Record<string, unknown>).filter((u) => u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update');
  }

  async stop(): Promise<void> {
    this.conn?.close();
    this.child.stdin?.end();
    // a child already gone (exited, or killed by a signal) emits no further 'close'
    const exited = new Promise<void>((r) => (this.child.exitCode !== null || this.child.signalCode !== null ? r() : this.child.once('close', () => r())));
    const t = setTimeout(() => this.child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(t);
    for (const term of this.terminals.values()) killGroup(term);
  }
}

/** Kills a terminal's process group, only while its leader has not exited (a pid can be reused after). */
function killGroup(t: Term): void {
  if (!t.child.pid || t.gone) return;
  try {
    process.kill(-t.child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** true while a process with this pid exists */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
