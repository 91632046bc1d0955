// What a session's tools use of the ACP client: its fs/* methods as a FileIO, its terminal/*
// methods as a TerminalHost, and the refusal for a capability the client does not offer.
// Nothing here falls back to the host when the client lacks something (docs/acp.md, "Where the tools run").
import * as acp from '@agentclientprotocol/sdk';
import { ClientFileIO } from '../../core/local_fs/file_io.ts';
import { ERROR_CODES, ToolError, type ErrorCode } from '../../core/errors.ts';
import { isSandboxState, META_SANDBOX } from '../../core/protocol_names.ts';
import { ClientTerminalHost, type AcpTerminalClient } from '../../core/shell/client_terminal.ts';
import type { SandboxState } from '../../core/shell/sandbox/settings.ts';
import type { Terminal, TerminalHost } from '../../core/shell/terminal.ts';
import type { ToolSpec } from '../../core/tool.ts';
import type { ToolContext } from './session.ts';

/** The client's fs/read_text_file and fs/write_text_file, where it offers them. */
export function clientFileIO(ctx: ToolContext): ClientFileIO {
  const caps = ctx.capabilities;
  const client = ctx.client;
  return new ClientFileIO({
    ...(caps.fs?.readTextFile
      ? {
          readTextFile: async (p: string, line?: number, limit?: number) =>
            (await clientCall('fs/read_text_file', () => client.request(acp.methods.client.fs.readTextFile, { sessionId: ctx.sessionId, path: p, ...(line ? { line } : {}), ...(limit ? { limit } : {}) }))).content,
        }
      : {}),
    ...(caps.fs?.writeTextFile
      ? {
          writeTextFile: async (p: string, content: string) => {
            await clientCall('fs/write_text_file', () => client.request(acp.methods.client.fs.writeTextFile, { sessionId: ctx.sessionId, path: p, content }));
          },
        }
      : {}),
  }, { maxMessageBytes: acp.DEFAULT_MAX_MESSAGE_BYTES });
}

/** The client's terminals (each reported to the call that opens it through its run context); a refusing host without the capability. */
export function clientTerminalHost(ctx: ToolContext): TerminalHost {
  if (!ctx.capabilities.terminal) return new RefusingHost();
  const sandbox = clientSandbox(ctx.capabilities);
  return new ClientTerminalHost(acpTerminalClient(ctx.client), { sessionId: ctx.sessionId, ...(sandbox ? { sandbox } : {}) });
}

/**
 * A client's JSON-RPC error reply to one of its fs/* or terminal/* methods, as something the
 * model and the user can act on: a missing file stays "not found" (a write to a new file reads
 * it first); a stable code the client sent in `data.code` (the cxl client does) is kept; any other
 * error is `client_refused` with the client's own words ("Permission denied for terminal/create"),
 * never a bare "Internal error".
 */
export function clientRefusal(err: unknown, method: string): unknown {
  if (err instanceof ToolError) return err;
  const e = err as { message?: string; code?: number; data?: unknown };
  if (typeof e?.code !== 'number') return err;
  const d = e.data as { details?: unknown; message?: unknown; code?: unknown } | string | undefined;
  const detail = typeof d === 'string' ? d : typeof d?.details === 'string' ? d.details : typeof d?.message === 'string' ? d.message : undefined;
  const said = detail !== undefined && detail.trim() !== '' ? detail.trim() : (e.message ?? 'error');
  if (e.code === -32002 || /not found|no such file|ENOENT/i.test(said)) {
    const out = new Error(`${e.message ?? 'client error'}${detail !== undefined ? ` (${detail})` : ''}`);
    (out as NodeJS.ErrnoException).code = 'ENOENT';
    return out;
  }
  const code = typeof d === 'object' && d !== null && typeof d.code === 'string' ? d.code : undefined;
  if (code && (ERROR_CODES as readonly string[]).includes(code) && code !== 'internal') return new ToolError(code as ErrorCode, e.message ?? said);
  const message = said.includes(method) ? said : `${said} (${method})`;
  return new ToolError('client_refused', message, { method, rpcCode: e.code });
}

async function clientCall<T>(method: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    throw clientRefusal(err, method);
  }
}

const CONTENT_READS = new Set(['read_file', 'read_file_range']);
const CONTENT_WRITES = new Set(['write_file', 'edit_file', 'sed']);

/** A tool whose client capability is absent refuses, naming it; nothing falls back to the host. */
export function missingCapability(spec: ToolSpec, caps: acp.ClientCapabilities): ToolError | undefined {
  if (spec.toolset === 'local_fs') {
    if (CONTENT_READS.has(spec.name) && !caps.fs?.readTextFile) {
      return new ToolError('capability_missing', `The connected client does not offer fs.readTextFile, so ${spec.name} cannot read files here. Browsing tools (list_dir, grep, find_files, stat_file, count_stats) still work.`, { capability: 'fs.readTextFile' });
    }
    if (CONTENT_WRITES.has(spec.name) && (!caps.fs?.writeTextFile || !caps.fs?.readTextFile)) {
      const cap = !caps.fs?.writeTextFile ? 'fs.writeTextFile' : 'fs.readTextFile';
      return new ToolError('capability_missing', `The connected client does not offer ${cap}, so ${spec.name} cannot change files here.`, { capability: cap });
    }
  }
  if (spec.toolset === 'local_shell' && !caps.terminal) {
    return new ToolError('capability_missing', 'The connected client does not offer the terminal capability, so local_shell cannot run commands here. Use the local_fs tools, or a client with terminal support.', { capability: 'terminal' });
  }
  return undefined;
}

/** The client's terminal/* methods for the shell toolset's client adapter. */
function acpTerminalClient(client: acp.AgentContext): AcpTerminalClient {
  return {
    create: (p) => clientCall('terminal/create', () => client.request(acp.methods.client.terminal.create, p)) as Promise<{ terminalId: string }>,
    output: (p) => clientCall('terminal/output', () => client.request(acp.methods.client.terminal.output, p)) as Promise<acp.TerminalOutputResponse>,
    waitForExit: (p) => clientCall('terminal/wait_for_exit', () => client.request(acp.methods.client.terminal.waitForExit, p)) as Promise<acp.WaitForTerminalExitResponse>,
    kill: (p) => clientCall('terminal/kill', () => client.request(acp.methods.client.terminal.kill, p)),
    release: (p) => clientCall('terminal/release', () => client.request(acp.methods.client.terminal.release, p)),
  };
}

/** The sandbox a client says it runs terminals in (the cxl client does; others say nothing). */
function clientSandbox(caps: acp.ClientCapabilities): SandboxState | undefined {
  const m = caps._meta?.[META_SANDBOX] as { state?: unknown; reason?: unknown } | undefined;
  if (!m || typeof m !== 'object' || !isSandboxState(m.state)) return undefined;
  const state = m.state;
  const reason = typeof m.reason === 'string' ? `the client's: ${m.reason}` : "the client's";
  return { state, reason };
}

/** Where a client has no terminal: nothing may fall back to running on this machine. */
class RefusingHost implements TerminalHost {
  readonly kind = 'client' as const;
  async create(): Promise<Terminal> {
    throw new ToolError('capability_missing', 'The connected client does not offer the terminal capability, so local_shell cannot run commands here.', { capability: 'terminal' });
  }
}
