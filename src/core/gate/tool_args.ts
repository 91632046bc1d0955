// The check every tool call's arguments pass before anything else (gate.ts), for toolsets that
// bring their own JSON schema (MCP servers): an object, no argument the schema does not have
// (when it says so), every required one present, and the simple types right. A call that fails
// it is bad_args and never reaches a human (local_fs and local_shell check their own, stricter).
import { ToolError } from '../errors.ts';
import type { JsonSchema } from '../tool.ts';

const TYPES: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  integer: (v) => typeof v === 'number' && Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  array: (v) => Array.isArray(v),
  object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  null: (v) => v === null,
};

export function validateArgs(tool: string, schema: JsonSchema, args: unknown): void {
  if (args === undefined || args === null) args = {};
  if (typeof args !== 'object' || Array.isArray(args)) throw new ToolError('bad_args', `${tool}: arguments must be a JSON object.`);
  const props = (schema.properties ?? {}) as Record<string, { type?: unknown }>;
  const names = Object.keys(props);
  const given = args as Record<string, unknown>;
  if (schema.additionalProperties === false) {
    const unknown = Object.keys(given).filter((k) => !Object.hasOwn(props, k));
    if (unknown.length) throw new ToolError('bad_args', `${tool}: unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `\`${k}\``).join(', ')}. Allowed: ${names.join(', ') || '(none)'}.`);
  }
  for (const r of schema.required ?? []) {
    if (given[r] === undefined || given[r] === null) throw new ToolError('bad_args', `${tool}: \`${r}\` is required. Arguments: ${names.join(', ')}.`);
  }
  for (const [k, v] of Object.entries(given)) {
    const t = props[k]?.type;
    if (v === undefined || v === null || t === undefined) continue;
    const types = (Array.isArray(t) ? t : [t]).filter((x): x is string => typeof x === 'string' && Object.hasOwn(TYPES, x));
    if (types.length && !types.some((x) => TYPES[x](v))) throw new ToolError('bad_args', `${tool}: \`${k}\` must be ${types.join(' or ')}, got ${JSON.stringify(v)?.slice(0, 60)}.`);
  }
}
