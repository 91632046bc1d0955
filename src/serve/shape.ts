// The host's shape: what a session of a standing host (`cxl serve`) can do. A host has no client
// on its own machine, so the client-backed half of local_fs (reading and writing file contents)
// and all of local_shell are absent, whatever a connecting client declares: its sessions get the
// in-process tools (browsing, native-git, native-jq, native-go, the mission tools) and the MCP
// servers and remote tools configured on the host.
import type * as acp from '@agentclientprotocol/sdk';
import { ToolError } from '../core/errors.ts';
import type { ToolSpec } from '../core/tool.ts';
import type { ToolContext } from '../agent/acp/agent.ts';
import type { SessionTools } from '../agent/tools/contract.ts';

/** The tools a host never runs: they need a client on the machine whose files they touch. */
export const WITHHELD: ReadonlySet<string> = new Set(['read_file', 'read_file_range', 'write_file', 'edit_file', 'sed', 'local_shell']);

/** What the host tells a client once, at initialize (`_meta["cxl/host"]`), and what it says in its status. */
export const SHAPE_TEXT =
  'browsing tools (list_dir, grep, find_files, stat_file, count_stats), native-git, native-jq, native-go, the mission tools and configured MCP servers and remote tools; no file reads or edits, no commands';

export function withheld(spec: ToolSpec): boolean {
  return (spec.toolset === 'local_fs' || spec.toolset === 'local_shell') && WITHHELD.has(spec.name);
}

/** The refusal a model reads when it calls one of the withheld tools: the shape, and where that tool does run. */
export function shapeRefusal(name: string): ToolError {
  const what = name === 'local_shell' ? 'runs no commands' : 'does not read or write file contents';
  return new ToolError(
    'capability_missing',
    `${name} is not served here: this session runs on a standing host (cxl serve), which ${what}. Browse with list_dir, grep, find_files, stat_file and count_stats (and native-git where there is a repository). To read, edit or run commands, the person runs \`cxl acp\` from an editor or \`cxl\` on that machine.`,
    { shape: 'host', tool: name },
  );
}

/** A client's capabilities as the host's tools see them: no fs, no terminal, whatever it said. */
export function hostCapabilities(declared: acp.ClientCapabilities): acp.ClientCapabilities {
  const { fs: _fs, terminal: _terminal, ...rest } = declared;
  return rest;
}

/** A session's tools built as `cxl acp` builds them, with the client-backed half taken away. */
export function hostTools(build: (ctx: ToolContext) => Promise<SessionTools>): (ctx: ToolContext) => Promise<SessionTools> {
  return async (ctx) => {
    const tools = await build({ ...ctx, capabilities: hostCapabilities(ctx.capabilities) });
    const call = tools.call.bind(tools);
    tools.call = (spec, args, hooks) => (withheld(spec) ? Promise.reject(shapeRefusal(spec.name)) : call(spec, args, hooks));
    return tools;
  };
}
