// What every tool (local_fs, local_shell, attached MCP tools) looks like to the rest of cxl.

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

/**
 * A toolset built with its dependencies (root, policy, ledger, file IO or terminal) and called
 * by tool name. The gate pipeline wraps `call`; callers never reach a tool around it.
 */
export interface Toolset {
  readonly name: string;
  list(): ToolSpec[];
  /** Runs one call. Failures throw ToolError with a stable code. */
  call(tool: string, args: Record<string, unknown>, opts?: { signal?: AbortSignal }): Promise<unknown>;
  /**
   * Optional, for toolsets no envelope axis names (remote tools): checks the arguments (throws
   * bad_args before anyone is asked) and says what the call will do, for the envelope and for
   * the approval request.
   */
  preview?(tool: string, args: Record<string, unknown>): CallPreview;
}

export interface CallPreview {
  /** a read or a write, for the envelope's files.read / files.write grants */
  access: 'read' | 'write';
  /** why, for the decision's sentence: `GET /pets/{id}` */
  accessReason: string;
  /** a short line for the approval's title: `POST http://127.0.0.1:8000/pets` */
  title: string;
  /** what an approval shows: the method and URL, the body, the headers sent */
  detail: string[];
}
