// What every tool (local_fs, local_shell, attached MCP tools) looks like to the rest of cxl: its
// spec. What a toolset answers about a call is the contract in core/contract/toolset.ts.

/** ACP tool-call kinds (the ACP schema's ToolKind). */
export type ToolKind = 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'think' | 'fetch' | 'other';

export interface JsonSchema {
  type: 'object';
  properties: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean;
  [k: string]: unknown;
}

export interface ToolSpec {
  /** `local_fs`, `local_shell`, or an attached MCP server's name */
  toolset: string;
  /** the tool's own name within its toolset, e.g. `read_file` */
  name: string;
  /** short model-facing description */
  description: string;
  /** longer model-facing description, offered behind a policy switch */
  longDescription?: string;
  inputSchema: JsonSchema;
  kind: ToolKind;
}

export function qualifiedName(spec: Pick<ToolSpec, 'toolset' | 'name'>): string {
  return `${spec.toolset}.${spec.name}`;
}
