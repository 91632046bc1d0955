// Argument checking against a tool's JSON schema: unknown keys are an error naming the allowed
// ones; numbers and booleans are coerced leniently from strings ("12", "true", "yes").
import { ToolError } from '../errors.ts';
import type { JsonSchema } from '../tool.ts';

type Prop = { type: 'string' | 'integer' | 'boolean'; description: string; minimum?: number };

/** Builds an object schema from `{name: [type, description]}`, the required names first. */
export function schema(props: Record<string, Prop>, required: string[] = []): JsonSchema {
  return { type: 'object', properties: props, required, additionalProperties: false };
}

export const str = (description: string): Prop => ({ type: 'string', description });
export const int = (description: string, minimum?: number): Prop => ({ type: 'integer', description, ...(minimum === undefined ? {} : { minimum }) });
export const bool = (description: string): Prop => ({ type: 'boolean', description });

/** Validated, coerced arguments (only the schema's keys, each of its declared type). */
export function checkArgs(tool: string, s: JsonSchema, args: unknown): Record<string, string | number | boolean | undefined> {
  if (args === undefined || args === null) args = {};
  if (typeof args !== 'object' || Array.isArray(args)) throw new ToolError('bad_args', `${tool}: arguments must be a JSON object.`);
  const props = s.properties as Record<string, Prop>;
  const allowed = Object.keys(props);
  const out: Record<string, string | number | boolean | undefined> = {};
  for (const [k, v] of Object.entries(args as Record<string, unknown>)) {
    const p = props[k];
    if (!p) throw new ToolError('bad_args', `${tool}: unknown argument \`${k}\`. Allowed: ${allowed.join(', ')}.`);
    if (v === undefined || v === null) continue;
    out[k] = coerce(tool, k, p, v);
  }
  for (const r of s.required ?? []) {
    if (out[r] === undefined) throw new ToolError('bad_args', `${tool}: \`${r}\` is required. Arguments: ${allowed.join(', ')}.`);
  }
  return out;
}

function coerce(tool: string, k: string, p: Prop, v: unknown): string | number | boolean {
  const fail = (want: string): never => {
    throw new ToolError('bad_args', `${tool}: \`${k}\` must be ${want}, got ${JSON.stringify(v)?.slice(0, 60)}.`);
  };
  switch (p.type) {
    case 'string':
      if (typeof v === 'string') return v;
      if (typeof v === 'number' || typeof v === 'boolean') return String(v);
      return fail('a string');
    case 'integer': {
      let n: number;
      if (typeof v === 'number') n = v;
      else if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) n = Number(v);
      else return fail('an integer');
      if (!Number.isSafeInteger(n)) return fail('an integer');
      if (p.minimum !== undefined && n < p.minimum) return fail(`an integer ≥ ${p.minimum}`);
      return n;
    }
    case 'boolean':
      if (typeof v === 'boolean') return v;
      if (typeof v === 'number' && (v === 0 || v === 1)) return v === 1;
      if (typeof v === 'string') {
        if (/^(true|1|yes|y|on)$/i.test(v.trim())) return true;
        if (/^(false|0|no|n|off)$/i.test(v.trim())) return false;
      }
      return fail('a boolean (true/false)');
  }
}
