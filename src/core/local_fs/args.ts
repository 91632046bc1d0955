// How the local_fs tools write their JSON schemas: an object of typed properties, the required
// names, nothing else allowed. The check against them is the one every toolset's arguments
// pass (core/contract/args.ts).
import type { JsonSchema } from '../tool.ts';

type Prop = { type: 'string' | 'integer' | 'boolean'; description: string; minimum?: number };

/** Builds an object schema from `{name: [type, description]}`, the required names first. */
export function schema(props: Record<string, Prop>, required: string[] = []): JsonSchema {
  return { type: 'object', properties: props, required, additionalProperties: false };
}

export const str = (description: string): Prop => ({ type: 'string', description });
export const int = (description: string, minimum?: number): Prop => ({ type: 'integer', description, ...(minimum === undefined ? {} : { minimum }) });
export const bool = (description: string): Prop => ({ type: 'boolean', description });
