// An agent's form elicitation (elicitation/create, form mode) as the client shows and checks it:
// its schema's properties as typed fields (text, number, integer, yes/no, one of a list, several
// of a list), the values as the person edits them, and the check that turns them into the
// answer's content (required fields, bounds, lengths, patterns, formats) or says what to fix.
// The wire types and their parsing are the SDK's; this only reads the parsed schema.
import type { ElicitationPropertySchema, ElicitationSchema } from '@agentclientprotocol/sdk';

export type FieldKind = 'text' | 'number' | 'integer' | 'boolean' | 'choice' | 'multi';

export interface Choice {
  value: string;
  title: string;
}

export interface FormField {
  name: string;
  title: string;
  description?: string;
  kind: FieldKind;
  required: boolean;
  choices: Choice[];
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
}

/** What a field holds while it is edited: typed text, a yes/no, the chosen values. */
export type FieldValue = string | boolean | string[];

export interface FormView {
  message: string;
  title?: string;
  fields: FormField[];
  /** properties of a type this client cannot show (left out of the answer) */
  skipped: string[];
}

function choicesOf(p: Record<string, unknown>): Choice[] {
  const one = (p.oneOf ?? p.anyOf) as Array<{ const?: unknown; title?: unknown }> | undefined;
  if (Array.isArray(one)) return one.flatMap((o) => (typeof o.const === 'string' ? [{ value: o.const, title: typeof o.title === 'string' ? o.title : o.const }] : []));
  const e = p.enum as unknown[] | undefined;
  return Array.isArray(e) ? e.filter((x): x is string => typeof x === 'string').map((v) => ({ value: v, title: v })) : [];
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** One property as a field, or undefined for a type this client does not show. */
function fieldOf(name: string, schema: ElicitationPropertySchema, required: boolean): FormField | undefined {
  const p = schema as Record<string, unknown>;
  const base = { name, title: str(p.title) ?? name, ...(str(p.description) ? { description: str(p.description) } : {}), required, choices: [] as Choice[] };
  switch (p.type) {
    case 'string': {
      const choices = choicesOf(p);
      if (choices.length) return { ...base, kind: 'choice', choices };
      return { ...base, kind: 'text', minLength: num(p.minLength), maxLength: num(p.maxLength), pattern: str(p.pattern), format: str(p.format) };
    }
    case 'number':
    case 'integer':
      return { ...base, kind: p.type, min: num(p.minimum), max: num(p.maximum) };
    case 'boolean':
      return { ...base, kind: 'boolean' };
    case 'array': {
      const choices = choicesOf((p.items ?? {}) as Record<string, unknown>);
      return choices.length ? { ...base, kind: 'multi', choices, min: num(p.minItems), max: num(p.maxItems) } : undefined;
    }
    default:
      return undefined;
  }
}

export function formOf(message: string, schema: ElicitationSchema): FormView {
  const required = new Set(schema.required ?? []);
  const fields: FormField[] = [];
  const skipped: string[] = [];
  for (const [name, p] of Object.entries(schema.properties ?? {})) {
    const f = fieldOf(name, p, required.has(name));
    if (f) fields.push(f);
    else skipped.push(name);
  }
  return { message, ...(str(schema.title) ? { title: str(schema.title) } : {}), fields, skipped };
}

/** The value a field starts with: the schema's default, else empty. */
export function initialValues(fields: FormField[], schema: ElicitationSchema): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  for (const f of fields) {
    const d = (schema.properties?.[f.name] as { default?: unknown } | undefined)?.default;
    if (f.kind === 'boolean') out[f.name] = d === true;
    else if (f.kind === 'multi') out[f.name] = Array.isArray(d) ? d.filter((x): x is string => typeof x === 'string') : [];
    else out[f.name] = d === undefined || d === null ? '' : String(d);
  }
  return out;
}

const FORMATS: Record<string, RegExp> = {
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  uri: /^[a-z][a-z0-9+.-]*:\S+$/i,
  date: /^\d{4}-\d{2}-\d{2}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/,
};

/** Why a field's value cannot be sent, or undefined; `parsed` is what goes in the answer. */
function checkField(f: FormField, v: FieldValue | undefined): { error?: string; parsed?: string | number | boolean | string[] } {
  if (f.kind === 'boolean') return { parsed: v === true };
  if (f.kind === 'multi') {
    const list = Array.isArray(v) ? v : [];
    if (f.required && list.length === 0) return { error: `${f.title}: pick at least one` };
    if (f.min !== undefined && list.length < f.min) return { error: `${f.title}: pick at least ${f.min}` };
    if (f.max !== undefined && list.length > f.max) return { error: `${f.title}: pick at most ${f.max}` };
    return list.length ? { parsed: list } : {};
  }
  const text = typeof v === 'string' ? v.trim() : '';
  if (text === '') return f.required ? { error: `${f.title} is required` } : {};
  if (f.kind === 'choice') return f.choices.some((c) => c.value === text) ? { parsed: text } : { error: `${f.title}: pick one of ${f.choices.map((c) => c.title).join(', ')}` };
  if (f.kind === 'number' || f.kind === 'integer') {
    const n = Number(text);
    if (!Number.isFinite(n) || (f.kind === 'integer' && !Number.isInteger(n))) return { error: `${f.title} must be ${f.kind === 'integer' ? 'a whole number' : 'a number'}` };
    if (f.min !== undefined && n < f.min) return { error: `${f.title} must be at least ${f.min}` };
    if (f.max !== undefined && n > f.max) return { error: `${f.title} must be at most ${f.max}` };
    return { parsed: n };
  }
  if (f.minLength !== undefined && [...text].length < f.minLength) return { error: `${f.title} needs at least ${f.minLength} characters` };
  if (f.maxLength !== undefined && [...text].length > f.maxLength) return { error: `${f.title} takes at most ${f.maxLength} characters` };
  if (f.format && FORMATS[f.format] && !FORMATS[f.format].test(text)) return { error: `${f.title} must be ${f.format === 'email' ? 'an email address' : `a ${f.format}`}` };
  if (f.pattern) {
    let re: RegExp | undefined;
    try {
      re = new RegExp(f.pattern, 'u');
    } catch {
      re = undefined; // a pattern this runtime cannot read is the agent's to check
    }
    if (re && !re.test(text)) return { error: `${f.title} does not match the form it must have (${f.pattern})` };
  }
  return { parsed: text };
}

/** The answer's content, or the first thing to fix (and its field). */
export function checkForm(fields: FormField[], values: Record<string, FieldValue>): { content: Record<string, string | number | boolean | string[]> } | { error: string; field: number } {
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const [i, f] of fields.entries()) {
    const r = checkField(f, values[f.name]);
    if (r.error) return { error: r.error, field: i };
    if (r.parsed !== undefined) content[f.name] = r.parsed;
  }
  return { content };
}
