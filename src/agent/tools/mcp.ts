// Attached MCP servers as toolsets, on @modelcontextprotocol/sdk's client. Each server's tools
// are offered as `<server>.<tool>`. A server that fails to start, dies, hangs past the call
// timeout or answers with something malformed is reported and its tools are withdrawn; the
// session goes on without them.
// the SDK (and zod under it) is imported when a server is started, not when this module loads:
// `cxl tool` and `cxl config` name MCP servers but mostly never start one
import { untilAborted } from '../../core/abortable.ts';
import type { Client, Transport } from './mcp_sdk.ts';
import { schemaPlan } from '../../core/contract/schema_plan.ts';
import type { CallPlan, Toolset } from '../../core/contract/toolset.ts';
import process from 'node:process';
import { fillEnvTemplates } from '../../core/env_template.ts';
import { ToolError } from '../../core/errors.ts';
import type { JsonSchema, ToolKind, ToolSpec } from '../../core/tool.ts';
import { CORE_TOOLSET_NAMES } from '../../core/registry/builtin_toolsets.ts';
import { abortEndsBodyFetch } from './mcp_http_fetch.ts';

export interface McpServerConfig {
  name: string;
  /** stdio: the program and its arguments */
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  /** http (streamable HTTP) */
  url?: string;
  headers?: Record<string, string>;
  /** the headers are configuration's: `{{env:NAME}}` in them is filled when the server is reached */
  headersFromConfig?: boolean;
  /** where the stdio server starts */
  cwd?: string;
  /**
   * Asked right before the server is spawned: why it must not start now (a project's server whose
   * trust no longer holds), or undefined to start it.
   */
  verify?: () => string | undefined;
}

export interface McpOptions {
  /** how long start-up (connect + tools/list) may take */
  startTimeoutMs?: number;
  /** how long one tools/call may take before the server counts as hung */
  callTimeoutMs?: number;
  /** a server failed or was withdrawn: say it in the session */
  onProblem?: (message: string) => void;
}

export const DEFAULT_START_TIMEOUT_MS = 15_000;
/** how long closing waits for an HTTP server to end its session */
const TERMINATE_WAIT_MS = 1000;
export const DEFAULT_CALL_TIMEOUT_MS = 120_000;
/** longest text result of one MCP call handed to the model */
export const MAX_RESULT_CHARS = 256 * 1024;

const NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;
/** the built-in toolsets' names (core/registry/builtin_toolsets.ts) */
const RESERVED = new Set(CORE_TOOLSET_NAMES);

interface McpTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  annotations?: { title?: string; readOnlyHint?: boolean; openWorldHint?: boolean; destructiveHint?: boolean };
}

/** ACP kind from the server's annotations: read-only + open world is a fetch, read-only search-like is a search. */
export function kindOf(t: McpTool): ToolKind {
  const a = t.annotations ?? {};
  if (a.readOnlyHint && a.openWorldHint) return 'fetch';
  if (a.readOnlyHint && /search|find|query|grep|lookup/i.test(t.name)) return 'search';
  return 'other';
}

function describe(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}

export class McpToolset implements Toolset {
  readonly name: string;
  private client?: Client;
  /** an HTTP server's transport, whose session is ended when the toolset closes */
  private http?: { sessionId?: string; terminateSession(): Promise<void> };
  private tools: McpTool[] = [];
  private dead?: string;
  private closing = false;
  private stderrTail: string[] = [];

  private constructor(
    readonly config: McpServerConfig,
    private readonly opts: McpOptions,
  ) {
    this.name = config.name;
  }

  /** Connects and lists the tools; throws ToolError when the server cannot be brought up. */
  static async start(config: McpServerConfig, opts: McpOptions = {}): Promise<McpToolset> {
    if (!NAME_RE.test(config.name)) throw new ToolError('bad_args', `MCP server name ${JSON.stringify(config.name)} must be letters, digits, _ or -.`);
    // a server must not shadow the built-in toolsets (their names carry the envelope's axes)
    if (RESERVED.has(config.name) || config.name.startsWith('native-')) throw new ToolError('bad_args', `MCP server name ${config.name} is reserved for the built-in toolsets (local_fs, local_shell and the native- namespace); rename the server.`);
    const ts = new McpToolset(config, opts);
    await ts.connect();
    return ts;
  }

  get alive(): boolean {
    return !this.dead;
  }

  get problem(): string | undefined {
    return this.dead;
  }

  private transport(sdk: typeof import('./mcp_sdk.ts')): Transport {
    const { getDefaultEnvironment, StdioClientTransport, StreamableHTTPClientTransport } = sdk;
    const c = this.config;
    if (c.url) {
      let headers = c.headers ?? {};
      try {
        if (c.headersFromConfig) headers = fillEnvTemplates(headers, process.env, `MCP server ${c.name}`);
      } catch (err) {
        throw new ToolError('bad_args', `${(err as Error).message} Its tools are absent until then.`);
      }
      // each response body ends when the transport closes (mcp_http_fetch.ts: under Deno it could outlive it)
      return new StreamableHTTPClientTransport(new URL(c.url), { requestInit: { headers }, fetch: abortEndsBodyFetch() });
    }
    if (!c.command) throw new ToolError('bad_args', `MCP server ${c.name} needs a command (stdio) or a url (http).`);
    // only the SDK's short safe list of variables (PATH, HOME, …) plus what was configured: no secrets leak
    return new StdioClientTransport({ command: c.command, args: c.args ?? [], env: { ...getDefaultEnvironment(), ...c.env }, cwd: c.cwd, stderr: 'pipe' });
  }

  private async connect(): Promise<void> {
    const timeout = this.opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    const sdk = await import('./mcp_sdk.ts');
    const stale = this.config.verify?.();
    if (stale !== undefined) throw new ToolError('stale', stale);
    const client = new sdk.Client({ name: 'cxl', version: '0.1.0' });
    const transport = this.transport(sdk);
    const stderrTail = this.stderrTail;
    if (transport instanceof sdk.StdioClientTransport) {
      transport.stderr?.on('data', (d: Buffer) => {
        stderrTail.push(d.toString('utf8'));
        if (stderrTail.length > 20) stderrTail.shift();
      });
    }
    client.onclose = () => {
      if (this.closing || this.dead) return;
      this.withdraw(this.exitedMessage());
    };
    try {
      await client.connect(transport, { timeout });
      const listed = await client.listTools(undefined, { timeout });
      this.tools = (listed.tools as McpTool[]).filter((t) => NAME_RE.test(t.name) || /^[A-Za-z0-9_.:-]{1,64}$/.test(t.name));
    } catch (err) {
      this.closing = true;
      await client.close().catch(() => {});
      const tail = stderrTail.join('').trim().split('\n').slice(-3).join(' | ');
      throw new ToolError('io_error', `MCP server ${this.name} failed to start: ${describe(err)}${tail ? ` (stderr: ${tail.slice(0, 300)})` : ''}. Check its command/url in [mcp_servers.${this.name}] or the client's mcpServers.`);
    }
    this.client = client;
    if (transport instanceof sdk.StreamableHTTPClientTransport) this.http = transport;
  }

  private exitedMessage(): string {
    const tail = this.stderrTail.join('').trim().split('\n').slice(-3).join(' | ');
    return `MCP server ${this.name} exited${tail ? ` (${tail.slice(0, 300)})` : ''}; its tools are withdrawn.`;
  }

  private withdraw(message: string): void {
    if (this.dead) return;
    this.dead = message;
    this.tools = [];
    this.opts.onProblem?.(message);
    this.closing = true;
    void this.client?.close().catch(() => {});
  }

  list(): ToolSpec[] {
    if (this.dead) return [];
    return this.tools.map((t) => ({
      toolset: this.name,
      name: t.name,
      description: t.description ?? t.annotations?.title ?? `${t.name} (MCP server ${this.name})`,
      inputSchema: (t.inputSchema && t.inputSchema.type === 'object' ? t.inputSchema : { type: 'object', properties: {} }) as JsonSchema,
      kind: kindOf(t),
    }));
  }

  /** A server brings a JSON schema per tool and nothing more: checked against it, no axis, one tool for the session. */
  plan(tool: string, args: Record<string, unknown>): CallPlan {
    return schemaPlan(this, tool, args);
  }

  async call(tool: string, args: Record<string, unknown>, opts: { signal?: AbortSignal } = {}): Promise<unknown> {
    if (this.dead || !this.client) throw new ToolError('io_error', this.dead ?? `MCP server ${this.name} is not running.`);
    if (!this.tools.some((t) => t.name === tool)) {
      throw new ToolError('unknown_tool', `MCP server ${this.name} has no tool ${tool}; it has ${this.tools.map((t) => t.name).join(', ') || 'none'}.`);
    }
    const timeout = this.opts.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    let res: { content?: unknown; isError?: boolean; structuredContent?: unknown };
    try {
      res = (await this.client.callTool({ name: tool, arguments: args }, undefined, { timeout, signal: opts.signal })) as typeof res;
    } catch (err) {
      if (opts.signal?.aborted) throw new ToolError('cancelled', `The call of ${this.name}.${tool} was cancelled.`);
      if (this.dead) throw new ToolError('io_error', `${this.name}.${tool} failed: ${this.dead}`);
      const msg = describe(err);
      const code = (err as { code?: number }).code;
      if (code === -32001 || /timed? ?out/i.test(msg)) {
        this.withdraw(`MCP server ${this.name} did not answer ${tool} within ${seconds(timeout)}; it counts as hung, its tools are withdrawn.`);
        throw new ToolError('timeout', `${this.name}.${tool} did not answer within ${seconds(timeout)}; the server's tools are withdrawn.`);
      }
      if (code === -32602 || code === -32601) throw new ToolError('bad_args', `${this.name}.${tool} refused the call: ${msg}`);
      if (code === -32000 || /connection closed/i.test(msg)) {
        // the process went away under the call; its stderr may still be arriving
        await new Promise((r) => setTimeout(r, 50));
        this.withdraw(this.exitedMessage());
        throw new ToolError('io_error', `${this.name}.${tool} failed: ${this.dead}`);
      }
      // a result that does not parse as a tools/call result, or a broken transport
      this.withdraw(`MCP server ${this.name} answered ${tool} with something malformed (${msg.slice(0, 200)}); its tools are withdrawn.`);
      throw new ToolError('io_error', `${this.name}.${tool} returned a malformed result (${msg.slice(0, 200)}); the server's tools are withdrawn.`);
    }
    let text = contentText(res.content);
    // an attached server is not trusted to size its answers: keep the model's context bounded
    if (text.length > MAX_RESULT_CHARS) text = `${text.slice(0, MAX_RESULT_CHARS)}\n… (${text.length - MAX_RESULT_CHARS} more characters cut; ask the tool for less)`;
    if (res.isError) throw new ToolError('io_error', `${this.name}.${tool} reported an error: ${text || '(no message)'}`);
    if (res.structuredContent !== undefined && !text) return res.structuredContent;
    return text;
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.endHttpSession();
    await this.client?.close().catch(() => {});
  }

  /**
   * A server that handed out a session keeps its state until told (the MCP spec's DELETE with the
   * session id); an unreachable or slow server does not hold the close up past a second.
   */
  private async endHttpSession(): Promise<void> {
    if (!this.http?.sessionId || this.dead) return;
    await untilAborted(this.http.terminateSession(), AbortSignal.timeout(TERMINATE_WAIT_MS)).catch(() => {});
  }
}

function contentText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((c: { type?: string; text?: string; uri?: string; mimeType?: string; resource?: { uri?: string; text?: string } }) => {
      if (c.type === 'text') return c.text ?? '';
      if (c.type === 'resource') return c.resource?.text ?? `[resource ${c.resource?.uri ?? ''}]`;
      if (c.type === 'resource_link') return `[${c.uri ?? 'resource'}]`;
      return `[${c.type ?? 'content'}${c.mimeType ? ` ${c.mimeType}` : ''}]`;
    })
    .join('\n');
}

/** ACP session/new mcpServers entries → our config (stdio and http; sse is not advertised). */
export function fromAcp(servers: Array<Record<string, unknown>>): { configs: McpServerConfig[]; skipped: string[] } {
  const configs: McpServerConfig[] = [];
  const skipped: string[] = [];
  for (const s of servers) {
    const name = String(s.name ?? '');
    if (s.type === 'http' && typeof s.url === 'string') {
      const headers = Object.fromEntries(((s.headers ?? []) as Array<{ name: string; value: string }>).map((h) => [h.name, h.value]));
      configs.push({ name, url: s.url, headers });
    } else if (typeof s.command === 'string' && (s.type === undefined || s.type === 'stdio')) {
      const env = Object.fromEntries(((s.env ?? []) as Array<{ name: string; value: string }>).map((e) => [e.name, e.value]));
      configs.push({ name, command: s.command, args: (s.args ?? []) as string[], env });
    } else {
      skipped.push(`MCP server ${name || '(unnamed)'}: transport ${String(s.type ?? 'unknown')} is not supported (stdio and http are); skipped.`);
    }
  }
  return { configs, skipped };
}

/** `[mcp_servers.<name>]` entries of agents.toml as server configs. */
export function fromConfig(servers: Record<string, { command?: string; args?: string[]; env?: Record<string, string>; url?: string; headers?: Record<string, string> }> | undefined, cwd?: string): McpServerConfig[] {
  return Object.entries(servers ?? {}).map(([name, s]) => ({ name, command: s.command, args: s.args, env: s.env, url: s.url, ...(s.headers ? { headers: s.headers, headersFromConfig: true } : {}), cwd }));
}

/**
 * The configured servers for one-shot commands (`cxl tool`, `cxl config`): started when first
 * named, all stopped by `close()`.
 */
export class McpRegistry {
  private readonly started = new Map<string, Promise<McpToolset | ToolError>>();
  private readonly byName: Map<string, McpServerConfig>;

  constructor(
    configs: McpServerConfig[],
    private readonly opts: McpOptions = {},
  ) {
    this.byName = new Map(configs.map((c) => [c.name, c]));
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** The running toolset, or the ToolError that says why it could not start. */
  get(name: string): Promise<McpToolset | ToolError> {
    let p = this.started.get(name);
    if (!p) {
      const cfg = this.byName.get(name);
      p = cfg ? McpToolset.start(cfg, this.opts).catch((err: unknown) => (err instanceof ToolError ? err : new ToolError('io_error', describe(err)))) : Promise.resolve(new ToolError('unknown_tool', `No MCP server \`${name}\` is configured.`));
      this.started.set(name, p);
    }
    return p;
  }

  /** Lines for `cxl config`: each server, how it is reached, and its tools (or why it failed). */
  async describe(): Promise<string[]> {
    const lines: string[] = [];
    for (const [name, c] of this.byName) {
      const how = c.url ? `http ${c.url}` : `stdio ${[c.command, ...(c.args ?? [])].join(' ')}`;
      const ts = await this.get(name);
      if (ts instanceof ToolError) {
        lines.push(`# mcp server ${name} (${how}): ${ts.message}`);
        continue;
      }
      const specs = ts.list();
      lines.push(`# mcp server ${name} (${how}): ${specs.length} tool${specs.length === 1 ? '' : 's'}, gated by the envelope's tools patterns and default_action`);
      for (const s of specs) lines.push(`#   ${s.toolset}.${s.name} (${s.kind}): ${s.description.split('\n')[0].slice(0, 100)}`);
    }
    return lines;
  }

  async close(): Promise<void> {
    for (const p of this.started.values()) {
      const ts = await p;
      if (!(ts instanceof ToolError)) await ts.close();
    }
  }
}
