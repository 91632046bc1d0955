// How a tool call looks to an ACP client: its title, kind and locations as its toolset says
// (the plan's view, through SessionTools), and the text content of its result.
import type * as acp from '@agentclientprotocol/sdk';
import type { ToolSpec } from '../../core/tool.ts';
import type { SessionTools } from '../tools/contract.ts';

const MAX_SHOWN = 64 * 1024;

/** Title, kind and locations of a call; a name no tool has is shown as it was called. */
export function callView(tools: SessionTools, spec: ToolSpec | undefined, name: string, args: Record<string, unknown>): { title: string; kind: acp.ToolKind; locations: acp.ToolCallLocation[] } {
  return spec ? tools.view(spec, args) : { title: name, kind: 'other', locations: [] };
}

export function textContent(text: string): acp.ToolCallContent {
  const shown = text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}\n… (${text.length - MAX_SHOWN} more characters)` : text;
  return { type: 'content', content: { type: 'text', text: shown } };
}
