// What a failed request says, for a person: the message and code, and under it what the agent put
// in JSON-RPC `error.data` ("Connection error.", "Upstream 429: quota exceeded…"), which is where
// real agents put the cause; "Internal error (-32603)" alone says nothing.
import * as acp from '@agentclientprotocol/sdk';

export function errorText(err: unknown): string {
  if (err instanceof acp.RequestError) return `${err.message} (${err.code})`;
  return err instanceof Error ? err.message : String(err);
}

const MAX_DETAIL_LINES = 20;
const MAX_DETAIL_CHARS = 4000;

/**
 * The lines of `error.data` worth showing: `message` and `details` first, then any other fields
 * (but not `authMethods`, which qwen-code repeats there: the login picker shows them).
 */
export function errorDetail(err: unknown): string[] {
  if (!(err instanceof acp.RequestError) || err.data === undefined || err.data === null) return [];
  const d = err.data;
  const parts: string[] = [];
  if (typeof d === 'string') parts.push(d);
  else if (typeof d === 'object' && !Array.isArray(d)) {
    const o = d as Record<string, unknown>;
    for (const k of ['message', 'details', 'detail', 'error', 'reason']) if (typeof o[k] === 'string' && o[k] !== '') parts.push(o[k] as string);
    const rest = Object.fromEntries(Object.entries(o).filter(([k, v]) => k !== 'authMethods' && !(['message', 'details', 'detail', 'error', 'reason'].includes(k) && typeof v === 'string')));
    if (Object.keys(rest).length > 0) parts.push(JSON.stringify(rest));
  } else parts.push(JSON.stringify(d));
  const text = parts.filter((p) => p.trim() !== '' && p.trim() !== err.message).join('\n').slice(0, MAX_DETAIL_CHARS);
  return text === '' ? [] : text.split(/\r?\n/).slice(0, MAX_DETAIL_LINES);
}

export function isAuthRequired(err: unknown): boolean {
  return err instanceof acp.RequestError && err.code === -32000;
}
