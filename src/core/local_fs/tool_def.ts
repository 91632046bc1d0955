// The shape of one local_fs tool: its spec (schema and descriptions) and its body.
import type { JsonSchema, ToolKind } from '../tool.ts';
import type { FsContext } from './context.ts';

export type Args = Record<string, string | number | boolean | undefined>;

export interface ToolDef {
  name: string;
  kind: ToolKind;
  description: string;
  longDescription: string;
  inputSchema: JsonSchema;
  run(ctx: FsContext, args: Args, signal?: AbortSignal): Promise<unknown>;
}

/** Range reads may exceed _max_read_bytes (that is what they are for), up to this hard cap. */
export const RANGE_READ_HARD_CAP = 1024 * 1024 * 1024;
