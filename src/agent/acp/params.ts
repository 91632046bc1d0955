// The params of the methods the stable SDK entry point does not validate for us (ACP's unstable
// ones, cxl's own extension methods): checked here, each failure an invalid-params error naming
// the field and what it should be.
import * as acp from '@agentclientprotocol/sdk';

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
