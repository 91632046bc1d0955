// The params of the methods the stable SDK entry point does not validate for us (ACP's unstable
// ones, cxl's own extension methods): checked here, each failure an invalid-params error naming
// the field and what it should be.
import * as acp from '@agentclientprotocol/sdk';
import type { ShellRunMeta } from '../../core/protocol_names.ts';

type Obj = Record<string, unknown>;

function object(params: unknown): Obj {
  if (!params || typeof params !== 'object' || Array.isArray(params)) throw acp.RequestError.invalidParams(undefined, 'params must be an object');
  return params as Obj;
}

function str(o: Obj, key: string): string {
  const v = o[key];
  if (typeof v !== 'string' || v === '') throw acp.RequestError.invalidParams({ [key]: v }, `\`${key}\` must be a non-empty string`);
  return v;
}

/** session/set_model (unstable): `{ sessionId, modelId }`. */
export function parseSetModel(params: unknown): { sessionId: string; modelId: string } {
  const o = object(params);
  return { sessionId: str(o, 'sessionId'), modelId: str(o, 'modelId') };
}

/** `_cxl/checkpoints`: `{ sessionId }`. */
export function parseSessionOnly(params: unknown): { sessionId: string } {
  return { sessionId: str(object(params), 'sessionId') };
}

const RESTORE = ['files', 'conversation', 'both'] as const;

/** `_cxl/rewind_preview` and `_cxl/rewind`: `{ sessionId, n, restore, overwrite? }`. */
export function parseRewind(params: unknown): { sessionId: string; n: number; restore: (typeof RESTORE)[number]; overwrite: string[] } {
  const o = object(params);
  const n = o.n;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw acp.RequestError.invalidParams({ n }, '`n` must be the number of a prompt (1 or more)');
  const restore = o.restore ?? 'both';
  if (typeof restore !== 'string' || !(RESTORE as readonly string[]).includes(restore)) throw acp.RequestError.invalidParams({ restore }, '`restore` must be "files", "conversation" or "both"');
  const overwrite = o.overwrite ?? [];
  if (!Array.isArray(overwrite) || !overwrite.every((x) => typeof x === 'string')) throw acp.RequestError.invalidParams({ overwrite }, '`overwrite` must be a list of paths');
  return { sessionId: str(o, 'sessionId'), n, restore: restore as (typeof RESTORE)[number], overwrite: overwrite as string[] };
}

/** session/fork (unstable): `{ sessionId, cwd, mcpServers? }`. */
export function parseFork(params: unknown): { sessionId: string; cwd: string; mcpServers?: acp.McpServer[] } {
  const o = object(params);
  const mcp = o.mcpServers;
  if (mcp !== undefined && mcp !== null && !Array.isArray(mcp)) throw acp.RequestError.invalidParams({ mcpServers: mcp }, '`mcpServers` must be a list');
  return { sessionId: str(o, 'sessionId'), cwd: str(o, 'cwd'), ...(Array.isArray(mcp) ? { mcpServers: mcp as acp.McpServer[] } : {}) };
}

/** The most of a `!line`'s output kept with the session for its replay (its tail; the model's part is `context`). */
const SHELL_RUN_OUTPUT_MAX = 64 * 1024;
/** The most of one run's text the model reads (the client caps it lower). */
const SHELL_RUN_CONTEXT_MAX = 16 * 1024;

/** `_cxl/shell_run`: `{ sessionId, run: {command, output, exitCode?, signal?, truncated?, handed, sandbox, failed?}, context? }`. */
export function parseShellRun(params: unknown): { sessionId: string; run: ShellRunMeta; context?: string } {
  const o = object(params);
  const r = object(o.run);
  const command = str(r, 'command');
  const output = typeof r.output === 'string' ? r.output : '';
  const cut = output.length > SHELL_RUN_OUTPUT_MAX;
  const sandbox = r.sandbox && typeof r.sandbox === 'object' && typeof (r.sandbox as Obj).state === 'string' ? (r.sandbox as { state: string; reason?: unknown }) : { state: 'unavailable' };
  const run: ShellRunMeta = {
    command,
    output: cut ? output.slice(-SHELL_RUN_OUTPUT_MAX) : output,
    truncated: r.truncated === true || cut,
    ...(typeof r.exitCode === 'number' || r.exitCode === null ? { exitCode: r.exitCode as number | null } : {}),
    ...(typeof r.signal === 'string' || r.signal === null ? { signal: r.signal as string | null } : {}),
    sandbox: { state: sandbox.state, ...(typeof sandbox.reason === 'string' ? { reason: sandbox.reason } : {}) },
    handed: r.handed === true,
    ...(typeof r.failed === 'string' ? { failed: r.failed } : {}),
  };
  const context = typeof o.context === 'string' && o.context !== '' ? o.context.slice(0, SHELL_RUN_CONTEXT_MAX) : undefined;
  return { sessionId: str(o, 'sessionId'), run, ...(context !== undefined ? { context } : {}) };
}
