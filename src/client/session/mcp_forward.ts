// The person's own MCP servers (`[mcp_servers.<name>]` of their configuration, a trusted
// project's included) as ACP `mcpServers` for another agent's session/new, load and resume:
// stdio servers always (every agent must take them), http ones only to an agent whose
// `mcpCapabilities.http` says it takes them (sse likewise). What cannot be passed is named, so
// the status line and a notice can say so. The built-in agent reads the same configuration itself.
import type { McpCapabilities, McpServer } from '@agentclientprotocol/sdk';
import process from 'node:process';
import { fillEnvTemplates } from '../../core/env_template.ts';

/** A server as configured: a command (stdio) or a URL (streamable HTTP). */
export interface ConfiguredMcpServer {
  name: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  /** sent with every request to `url`; `{{env:NAME}}` filled from the UI's environment */
  headers?: Record<string, string>;
}

export interface ForwardedMcp {
  servers: McpServer[];
  /** one sentence per server left out, saying why */
  skipped: string[];
}

export function forwardMcp(configured: readonly ConfiguredMcpServer[], caps: McpCapabilities | null | undefined, env: Record<string, string | undefined> = process.env): ForwardedMcp {
  const servers: McpServer[] = [];
  const skipped: string[] = [];
  for (const s of configured) {
    if (s.command) {
      servers.push({ name: s.name, command: s.command, args: s.args ?? [], env: Object.entries(s.env ?? {}).map(([name, value]) => ({ name, value })) });
    } else if (s.url) {
      if (caps?.http) {
        let headers: Record<string, string>;
        try {
          headers = fillEnvTemplates(s.headers ?? {}, env, s.name);
        } catch (err) {
          skipped.push(`${s.name} (${(err as Error).message.slice(s.name.length + 2)})`);
          continue;
        }
        servers.push({ type: 'http', name: s.name, url: s.url, headers: Object.entries(headers).map(([name, value]) => ({ name, value })) });
      } else skipped.push(`${s.name} (http: the agent does not take MCP servers over HTTP)`);
    } else skipped.push(`${s.name} (neither a command nor a url)`);
  }
  return { servers, skipped };
}
