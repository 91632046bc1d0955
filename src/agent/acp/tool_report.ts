// How a tool call looks to an ACP client: title, kind, locations, and the content of its result.
import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import type { ToolSpec } from '../../core/tool.ts';

const MAX_SHOWN = 64 * 1024;

export function callTitle(spec: ToolSpec | undefined, name: string, args: Record<string, unknown>): string {
  if (!spec) return name;
  if (spec.toolset === 'local_shell') {
    const cmd = typeof args.command === 'string' ? args.command : '';
    const argv = Array.isArray(args.args) ? ` ${args.args.map(String).join(' ')}` : '';
    return `local_shell: ${(cmd + argv).slice(0, 200)}`;
  }
  const p = typeof args.path === 'string' ? args.path : typeof args.pattern === 'string' && spec.name === 'find_files' ? args.pattern : '';
  return p ? `${spec.toolset}.${spec.name}: ${p}` : `${spec.toolset}.${spec.name}`;
}

export function callLocations(spec: ToolSpec | undefined, args: Record<string, unknown>, root: string): acp.ToolCallLocation[] {
  if (!spec || spec.toolset !== 'local_fs') return [];
  const p = typeof args.path === 'string' && args.path ? args.path : spec.name === 'list_dir' || spec.name === 'find_files' ? '.' : '';
  if (!p || p.includes('\0')) return [];
  const abs = path.resolve(root, p);
  const line = Number(args.start_line);
  return [Number.isInteger(line) && line > 0 ? { path: abs, line } : { path: abs }];
}

/** What the model reads back: text as is, anything else as JSON. */
export function resultForModel(result: unknown): string {
  if (typeof result === 'string') return result;
  return JSON.stringify(result);
}

export function textContent(text: string): acp.ToolCallContent {
  const shown = text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}\n… (${text.length - MAX_SHOWN} more characters)` : text;
  return { type: 'content', content: { type: 'text', text: shown } };
}
