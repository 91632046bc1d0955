// The one check every tool call's arguments pass before anything else, against the JSON schema
// its toolset lists (local_fs, local_shell, attached MCP servers, a toolset of the future): an
// object, no argument the schema does not have (when it says so), every required one present,
// and each value of its declared type, coerced leniently by one table ("12" is an integer, "yes"
// a boolean, 12 a string). A call that fails it is bad_args and never reaches a human. Remote
// tools check their OpenAPI schemas with Ajv instead (agent/tools/remote/toolset.ts).
import { ToolError } from '../errors.ts';
import type { JsonSchema } from '../tool.ts';

/** A value that does not fit a type. */
const MISFIT = Symbol('misfit');
type Fit = unknown | typeof MISFIT;

interface Coercion {
  /** how the type reads in a message: `an integer` */
  want: string;
  /** the value as this type, or MISFIT */
  fit(v: unknown): Fit;
}

const INTEGER = /^\s*[+-]?\d+\s*$/;
const NUMBER = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;
const TRUE = /^(?:true|1|yes|y|on)$/i;
const FALSE = /^(?:false|0|no|n|off|)$/i;

/** The coercion table: JSON-schema type → what it accepts and what it makes of it. */
export const COERCIONS: Readonly<Record<string, Coercion>> = Object.freeze({
  string: { want: 'a string', fit: (v) => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : MISFIT) },
  integer: {
    want: 'an integer',
    fit: (v) => {
      const n = typeof v === 'number' ? v : typeof v === 'string' && INTEGER.test(v) ? Number(v) : NaN;
      return Number.isSafeInteger(n) ? n : MISFIT;
    },
  },
  number: {
    want: 'a number',
    fit: (v) => {
      const n = typeof v === 'number' ? v : typeof v === 'string' && NUMBER.test(v) ? Number(v) : NaN;
      return Number.isFinite(n) ? n : MISFIT;
    },
  },
  boolean: {
    want: 'a boolean (true/false)',
    fit: (v) => {
      if (typeof v === 'boolean') return v;
      if (v === 0 || v === 1) return v === 1;
      if (typeof v === 'string') return TRUE.test(v.trim()) ? true : FALSE.test(v.trim()) ? false : MISFIT;
      return MISFIT;
    },
  },
  array: { want: 'a list', fit: (v) => (Array.isArray(v) ? v : MISFIT) },
  object: { want: 'an object', fit: (v) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? v : MISFIT) },
  null: { want: 'null', fit: (v) => (v === null ? v : MISFIT) },
});

/** One property as a schema declares it (only what the check reads). */
interface Prop {
  type?: unknown;
  minimum?: unknown;
  items?: { type?: unknown };
}

/** The declared types this table knows, in the schema's order. */
function typesOf(p: Prop | undefined): string[] {
  const t = p?.type;
  return (Array.isArray(t) ? t : [t]).filter((x): x is string => typeof x === 'string' && Object.hasOwn(COERCIONS, x));
}

/** The value as one of `types`: the exact type first (`5` stays a number under string|number), then the first coercion that fits. */
function coerceTo(types: readonly string[], v: unknown): Fit {
  for (const t of types) if (COERCIONS[t].fit(v) === v) return v;
  for (const t of types) {
    const x = COERCIONS[t].fit(v);
    if (x !== MISFIT) return x;
  }
  return MISFIT;
}

function wantOf(types: readonly string[], p: Prop): string {
  const min = typeof p.minimum === 'number' && (types.includes('integer') || types.includes('number')) ? ` ≥ ${p.minimum}` : '';
  return `${types.map((t) => COERCIONS[t].want).join(' or ')}${min}`;
}

/** One argument as its declared type: list items too when the schema gives them a type. */
function coerce(tool: string, k: string, p: Prop, v: unknown): unknown {
  const types = typesOf(p);
  if (!types.length) return v;
  const fail = (): never => {
    throw new ToolError('bad_args', `${tool}: \`${k}\` must be ${wantOf(types, p)}, got ${JSON.stringify(v)?.slice(0, 60)}.`);
  };
  const x = coerceTo(types, v);
  if (x === MISFIT) return fail();
  if (typeof x === 'number' && typeof p.minimum === 'number' && x < p.minimum) return fail();
  const items = typesOf(p.items);
  if (!Array.isArray(x) || !items.length) return x;
  return x.map((item, i) => {
    const y = coerceTo(items, item);
    if (y === MISFIT) throw new ToolError('bad_args', `${tool}: \`${k}\` must be a list of ${items.map((t) => COERCIONS[t].want.replace(/^an? /, '')).join(' or ')}s; item ${i + 1} is ${JSON.stringify(item)?.slice(0, 60)}.`);
    return y;
  });
}

/**
 * Checked arguments: each of the schema's properties as its declared type (an absent or null
 * one left out, unless the schema allows null), and any other argument as given where the
 * schema allows others. `tool` names the call in the messages (`read_file`, `github.search`).
 */
export function checkArgs(tool: string, schema: JsonSchema, args: unknown): Record<string, unknown> {
  if (args === undefined || args === null) args = {};
  if (typeof args !== 'object' || Array.isArray(args)) throw new ToolError('bad_args', `${tool}: arguments must be a JSON object.`);
  const props = (schema.properties ?? {}) as Record<string, Prop>;
  const names = Object.keys(props);
  const given = args as Record<string, unknown>;
  if (schema.additionalProperties === false) {
    const unknown = Object.keys(given).filter((k) => !Object.hasOwn(props, k));
    if (unknown.length) throw new ToolError('bad_args', `${tool}: unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `\`${k}\``).join(', ')}. Allowed: ${names.join(', ') || '(none)'}.`);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(given)) {
    if (!Object.hasOwn(props, k)) out[k] = v;
    else if (v === null && typesOf(props[k]).includes('null')) out[k] = null;
    else if (v !== undefined && v !== null) out[k] = coerce(tool, k, props[k], v);
  }
  for (const r of schema.required ?? []) {
    if (out[r] === undefined || out[r] === null) throw new ToolError('bad_args', `${tool}: \`${r}\` is required. Arguments: ${names.join(', ')}.`);
  }
  return out;
}
