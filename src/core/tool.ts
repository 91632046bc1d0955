// What every tool (local_fs, local_shell, attached MCP tools) looks like to the rest of cxl.

/** ACP tool-call kinds (REFERENCE.md 9). */
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

/**
 * A toolset built with its dependencies (root, policy, ledger, file IO or terminal) and called
 * by tool name. The gate pipeline wraps `call`; callers never reach a tool around it.
 */
export interface Toolset {
  readonly name: string;
  list(): ToolSpec[];
  /** Runs one call. Failures throw ToolError with a stable code. */
  call(tool: string, args: Record<string, unknown>, opts?: { signal?: AbortSignal }): Promise<unknown>;
}
