// The person's own MCP servers (`[mcp_servers.<name>]` of their configuration, a trusted
// project's included) as ACP `mcpServers` for another agent's session/new, load and resume:
// stdio servers always (every agent must take them), http ones only to an agent whose
// `mcpCapabilities.http` says it takes them (sse likewise). What cannot be passed is named, so
// the status line and a notice can say so. The built-in agent reads the same configuration itself.
import type { McpCapabilities, McpServer } from '@agentclientprotocol/sdk';

/** A server as configured: a command (stdio) or a URL (streamable HTTP). */
export interface ConfiguredMcpServer {
  name: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
}

export interface ForwardedMcp {
  servers: McpServer[];
  /** one sentence per server left out, saying why */
  skipped: string[];
}

export function forwardMcp(configured: readonly ConfiguredMcpServer[], caps: McpCapabilities | null | undefined): ForwardedMcp {
  const servers: McpServer[] = [];
  const skipped: string[] = [];
  for (const s of configured) {
    if (s.command) {
      servers.push({ name: s.name, command: s.command, args: s.args ?? [], env: Object.entries(s.env ?? {}).map(([name, value]) => ({ name, value })) });
    } else if (s.url) {
      if (caps?.http) servers.push({ type: 'http', name: s.name, url: s.url, headers: [] });
      else skipped.push(`${s.name} (http: the agent does not take MCP servers over HTTP)`);
    } else skipped.push(`${s.name} (neither a command nor a url)`);
  }
  return { servers, skipped };
}
