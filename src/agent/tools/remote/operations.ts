// An OpenAPI document (already parsed and dereferenced by @readme/openapi-parser) turned into
// tools: one per operation, named by its operationId (or a stable name derived from the method
// and path), its path, query, header and cookie parameters and its request body merged into one
// JSON-schema object, its summary as the description. Pure: no network, no files.
import type { JsonSchema } from '../../../core/tool.ts';

export type Dialect = '2.0' | '3.0' | '3.1';
export type ParamIn = 'path' | 'query' | 'header' | 'cookie';

/** One parameter of the operation and the argument that carries it. */
export interface ParamBinding {
  name: string;
  in: ParamIn;
  /** the argument's name in the tool's schema */
  prop: string;
  style: string;
  explode: boolean;
}

export interface BodyBinding {
  contentType: string;
  kind: 'json' | 'form' | 'text';
  /** flat: the body's properties are top-level arguments; whole: one argument holds it */
  mode: 'flat' | 'whole';
  /** whole: the argument that holds the body */
  prop?: string;
  /** flat: the arguments that make up the body */
  props?: string[];
  required: boolean;
}

export interface Operation {
  /** the tool's name inside its toolset */
  tool: string;
  operationId?: string;
  /** upper case: GET, POST, … */
  method: string;
  /** the path template: /pets/{id} */
  path: string;
  description: string;
  inputSchema: JsonSchema;
  params: ParamBinding[];
  body?: BodyBinding;
}

export interface Filters {
  include?: string[];
  exclude?: string[];
}

export interface Operations {
  dialect: Dialect;
  ops: Operation[];
  /** operations left out, each with why: `uploadFile (POST /files): …` */
  skipped: string[];
  /** include entries that matched no operation */
  unmatched: string[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
/** Header parameters the spec says to ignore, and ones cxl sets itself: never the model's. */
const OWN_HEADERS = new Set(['accept', 'content-type', 'authorization', 'host', 'content-length', 'cookie', 'connection', 'transfer-encoding', 'te', 'upgrade', 'expect', 'proxy-authorization', 'keep-alive', 'trailer']);
/** Longest description offered to the model. */
const MAX_DESCRIPTION = 1024;
/** How deep a schema is copied (a shared or very deep schema is cut there, accepting anything). */
const MAX_SCHEMA_DEPTH = 12;
/** How many schema nodes one parameter or body may expand to: a schema that reuses another many
 * times over is a tree once copied, and could grow without bound (and fill the model's context). */
const MAX_SCHEMA_NODES = 2000;

class Unsupported extends Error {}

/** Which OpenAPI this is, or undefined when it is none the tools understand. */
export function dialectOf(doc: unknown): Dialect | undefined {
  if (!isObj(doc)) return undefined;
  if (typeof doc.swagger === 'string' && doc.swagger.startsWith('2.')) return '2.0';
  if (typeof doc.openapi === 'string') {
    if (/^3\.0(\.|$)/.test(doc.openapi)) return '3.0';
    if (/^3\.\d+(\.|$)/.test(doc.openapi)) return '3.1';
  }
  return undefined;
}

/**
 * The operations of `doc` as tools. `maxName` bounds a tool's name (so `<service>__<tool>`
 * stays within the 64 characters providers allow for a function name).
 */
export function operationsOf(doc: Obj, dialect: Dialect, filters: Filters = {}, maxName = 64): Operations {
  const ops: Operation[] = [];
  const skipped: string[] = [];
  const taken = new Set<string>();
  const include = filters.include?.map(globRe);
  const exclude = filters.exclude?.map(globRe);
  const hit = new Set<number>();
  const paths = isObj(doc.paths) ? doc.paths : {};
  for (const [route, rawItem] of Object.entries(paths)) {
    const item = resolve(doc, rawItem);
    if (!isObj(item) || !route.startsWith('/')) continue;
    for (const m of METHODS) {
      const op = resolve(doc, item[m]);
      if (!isObj(op)) continue;
      const method = m.toUpperCase();
      const opId = typeof op.operationId === 'string' && op.operationId.trim() ? op.operationId.trim() : undefined;
      // names are given in document order before any filter, so a filter never renames a tool
      const tool = uniqueName(opId ? sanitize(opId) : derivedName(m, route), taken, maxName);
      taken.add(tool);
      const names = opId ? [tool, opId] : [tool];
      if (include) {
        const k = include.findIndex((re) => names.some((n) => re.test(n)));
        if (k < 0) continue;
        include.forEach((re, i) => names.some((n) => re.test(n)) && hit.add(i));
      }
      if (exclude?.some((re) => names.some((n) => re.test(n)))) continue;
      try {
        ops.push(buildOperation(doc, dialect, route, method, item, op, tool, opId));
      } catch (err) {
        if (!(err instanceof Unsupported)) throw err;
        skipped.push(`${tool} (${method} ${route}): ${err.message}`);
      }
    }
  }
  const unmatched = (filters.include ?? []).filter((_, i) => !hit.has(i));
  return { dialect, ops, skipped, unmatched };
}

function globRe(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

/** operationId as a tool name: letters, digits, _ and -. */
function sanitize(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '') || 'operation';
}

/** GET /pets/{petId}/toys → get_pets_petId_toys: the same document always gives the same name. */
export function derivedName(method: string, route: string): string {
  const rest = route.replace(/[{}]/g, '').split('/').filter(Boolean).map((s) => s.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '')).filter(Boolean);
  return [method.toLowerCase(), ...rest].join('_');
}

function uniqueName(name: string, taken: Set<string>, max: number): string {
  const base = name.slice(0, Math.max(8, max));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `_${n}`;
    const cand = `${base.slice(0, Math.max(8, max) - suffix.length)}${suffix}`;
    if (!taken.has(cand)) return cand;
  }
}

// ── one operation ──────────────────────────────────────────────────────────────────────────

function buildOperation(doc: Obj, dialect: Dialect, route: string, method: string, item: Obj, op: Obj, tool: string, opId?: string): Operation {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const params: ParamBinding[] = [];
  // path-level parameters, overridden by the operation's own of the same name and place
  const merged = new Map<string, Obj>();
  for (const list of [item.parameters, op.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const p = resolve(doc, raw);
      if (isObj(p) && typeof p.name === 'string' && typeof p.in === 'string') merged.set(`${p.in}\0${p.name}`, p);
    }
  }
  const formFields: Obj[] = [];
  let swaggerBody: Obj | undefined;
  for (const p of merged.values()) {
    const where = p.in as string;
    if (where === 'body') {
      swaggerBody = p;
      continue;
    }
    if (where === 'formData') {
      formFields.push(p);
      continue;
    }
    if (where !== 'path' && where !== 'query' && where !== 'header' && where !== 'cookie') continue;
    const name = p.name as string;
    if (where === 'header' && OWN_HEADERS.has(name.toLowerCase())) continue;
    if (where === 'path' && !route.includes(`{${name}}`)) continue;
    const schema = paramSchema(doc, dialect, p);
    const prop = Object.hasOwn(properties, name) ? `${where}_${name}` : name;
    properties[prop] = schema;
    if (where === 'path' || p.required === true) required.push(prop);
    params.push({ name, in: where, prop, ...serialization(dialect, where, p) });
  }
  // every {name} of the path must have a value
  for (const m of route.matchAll(/\{([^}]+)\}/g)) {
    if (!params.some((b) => b.in === 'path' && b.name === m[1])) {
      properties[m[1]] = { type: 'string' };
      required.push(m[1]);
      params.push({ name: m[1], in: 'path', prop: m[1], style: 'simple', explode: false });
    }
  }

  let body: BodyBinding | undefined;
  const request = requestBody(doc, dialect, op, swaggerBody, formFields);
  if (request && (method === 'GET' || method === 'HEAD')) throw new Unsupported(`a ${method} with a request body cannot be sent (fetch refuses it)`);
  if (request) {
    const { schema, contentType, kind, required: bodyRequired } = request;
    const flat = kind !== 'text' && isFlatObject(schema) && Object.keys(schema.properties).every((k) => !Object.hasOwn(properties, k));
    if (flat) {
      const props = Object.keys(schema.properties);
      for (const k of props) properties[k] = schema.properties[k];
      if (bodyRequired && Array.isArray(schema.required)) for (const r of schema.required) if (typeof r === 'string' && props.includes(r)) required.push(r);
      body = { contentType, kind, mode: 'flat', props, required: bodyRequired };
    } else {
      const prop = Object.hasOwn(properties, 'body') ? 'request_body' : 'body';
      properties[prop] = schema;
      if (bodyRequired) required.push(prop);
      body = { contentType, kind, mode: 'whole', prop, required: bodyRequired };
    }
  }

  const inputSchema: JsonSchema = { type: 'object', properties, additionalProperties: false };
  if (required.length) inputSchema.required = [...new Set(required)];
  return { tool, ...(opId ? { operationId: opId } : {}), method, path: route, description: describe(op, method, route), inputSchema, params, ...(body ? { body } : {}) };
}

/** How a parameter's value is written (OpenAPI 3 style/explode; Swagger 2 collectionFormat). */
function serialization(dialect: Dialect, where: ParamIn, p: Obj): { style: string; explode: boolean } {
  if (dialect === '2.0') {
    const f = typeof p.collectionFormat === 'string' ? p.collectionFormat : 'csv';
    const style = f === 'ssv' ? 'spaceDelimited' : f === 'pipes' ? 'pipeDelimited' : f === 'tsv' ? 'tabDelimited' : where === 'path' || where === 'header' ? 'simple' : 'form';
    return { style, explode: f === 'multi' };
  }
  const style = typeof p.style === 'string' ? p.style : where === 'query' || where === 'cookie' ? 'form' : 'simple';
  return { style, explode: typeof p.explode === 'boolean' ? p.explode : style === 'form' };
}

function describe(op: Obj, method: string, route: string): string {
  const summary = typeof op.summary === 'string' ? op.summary.trim() : '';
  const description = typeof op.description === 'string' ? op.description.trim() : '';
  let text = summary || description.split(/\n\s*\n/)[0].replace(/\s+/g, ' ') || `${method} ${route}`;
  if (op.deprecated === true) text += ' (deprecated)';
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text;
}

function paramSchema(doc: Obj, dialect: Dialect, p: Obj): unknown {
  let raw: unknown;
  if (dialect === '2.0') {
    if (p.type === 'file') throw new Unsupported('file parameters are not supported');
    const { name: _n, in: _i, required: _r, description: _d, collectionFormat: _c, allowEmptyValue: _a, ...rest } = p;
    raw = rest;
  } else if (p.schema !== undefined) raw = p.schema;
  else if (isObj(p.content)) raw = Object.values(p.content).map((m) => (isObj(m) ? m.schema : undefined)).find((s) => s !== undefined);
  const schema = toJsonSchema(doc, dialect, raw ?? {}, true);
  if (typeof p.description === 'string' && isObj(schema) && schema.description === undefined) return { ...schema, description: p.description };
  return schema;
}

interface Request {
  schema: Obj;
  contentType: string;
  kind: BodyBinding['kind'];
  required: boolean;
}

const isJson = (t: string) => /^application\/(?:[\w.+-]+\+)?json$/i.test(t) || t === '*/*';

function requestBody(doc: Obj, dialect: Dialect, op: Obj, swaggerBody: Obj | undefined, formFields: Obj[]): Request | undefined {
  if (dialect === '2.0') {
    const consumes = (Array.isArray(op.consumes) ? op.consumes : Array.isArray(doc.consumes) ? doc.consumes : []).filter((c): c is string => typeof c === 'string');
    if (swaggerBody) {
      const ct = consumes.find(isJson) ?? consumes.find((c) => c.startsWith('text/')) ?? 'application/json';
      const kind = isJson(ct) ? 'json' : ct.startsWith('text/') ? 'text' : undefined;
      if (!kind) throw new Unsupported(`request bodies of type ${ct} are not supported`);
      const schema = toJsonSchema(doc, dialect, swaggerBody.schema ?? {}, true);
      return { schema: isObj(schema) ? schema : {}, contentType: ct === '*/*' ? 'application/json' : ct, kind, required: swaggerBody.required === true };
    }
    if (formFields.length) {
      if (formFields.some((f) => f.type === 'file')) throw new Unsupported('file uploads are not supported');
      const properties: Obj = {};
      const required: string[] = [];
      for (const f of formFields) {
        properties[f.name as string] = paramSchema(doc, dialect, f);
        if (f.required === true) required.push(f.name as string);
      }
      return { schema: { type: 'object', properties, ...(required.length ? { required } : {}) }, contentType: 'application/x-www-form-urlencoded', kind: 'form', required: required.length > 0 };
    }
    return undefined;
  }
  const rb = resolve(doc, op.requestBody);
  if (!isObj(rb) || !isObj(rb.content)) return undefined;
  const types = Object.keys(rb.content);
  if (!types.length) return undefined;
  const ct = types.find(isJson) ?? types.find((t) => t === 'application/x-www-form-urlencoded') ?? types.find((t) => t.startsWith('text/'));
  if (!ct) throw new Unsupported(`request bodies of type ${types.join(', ')} are not supported (JSON, form-urlencoded and text are)`);
  const media = rb.content[ct];
  const schema = toJsonSchema(doc, dialect, isObj(media) ? (media.schema ?? {}) : {}, true);
  const kind: BodyBinding['kind'] = isJson(ct) ? 'json' : ct.startsWith('text/') ? 'text' : 'form';
  return { schema: isObj(schema) ? schema : {}, contentType: ct === '*/*' ? 'application/json' : ct, kind, required: rb.required === true };
}

/** An object schema with named properties and nothing else at its top: its properties can be arguments. */
function isFlatObject(s: Obj): s is Obj & { properties: Obj } {
  if (!isObj(s.properties) || !Object.keys(s.properties).length) return false;
  if (s.type !== undefined && s.type !== 'object') return false;
  if (s.additionalProperties !== undefined && s.additionalProperties !== false) return false;
  for (const k of ['allOf', 'anyOf', 'oneOf', 'not', 'patternProperties', 'if', 'dependentSchemas', 'unevaluatedProperties']) if (s[k] !== undefined) return false;
  return true;
}

// ── schemas ────────────────────────────────────────────────────────────────────────────────

/** A `$ref` the dereferencer left (a circular one) or an object as is. */
function resolve(doc: Obj, v: unknown, seen: string[] = []): unknown {
  if (isObj(v) && typeof v.$ref === 'string' && v.$ref.startsWith('#/') && !seen.includes(v.$ref) && seen.length < 8) {
    return resolve(doc, pointer(doc, v.$ref), [...seen, v.$ref]);
  }
  return v;
}

function pointer(doc: Obj, ref: string): unknown {
  let cur: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObj(cur) && !Array.isArray(cur)) return undefined;
    cur = (cur as Obj)[key];
  }
  return cur;
}

/** Keys of OpenAPI schema objects that are not JSON Schema, or that would confuse a validator. */
const DROP = new Set(['discriminator', 'xml', 'externalDocs', 'nullable', 'example', 'x-nullable', '$id', '$schema', '$anchor', '$dynamicAnchor', '$dynamicRef', '$comment', '$vocabulary']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_ONE = new Set(['additionalProperties', 'additionalItems', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'contentSchema']);
const SCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

/**
 * An OpenAPI schema object as JSON Schema 2020-12, what the model and the validator read:
 * 3.0's `nullable` and boolean exclusive bounds rewritten, OpenAPI-only keys dropped, `readOnly`
 * properties left out of a request, and a `$ref` the dereferencer left (a recursive schema)
 * followed once and then accepted as anything.
 */
export function toJsonSchema(doc: Obj, dialect: Dialect, schema: unknown, request: boolean): unknown {
  return convert(schema, { doc, dialect, request, refs: [], depth: 0, budget: { left: MAX_SCHEMA_NODES } });
}

interface Ctx {
  doc: Obj;
  dialect: Dialect;
  request: boolean;
  refs: string[];
  depth: number;
  /** nodes left to copy, shared by the whole schema */
  budget: { left: number };
}

function convert(s: unknown, ctx: Ctx): unknown {
  if (typeof s === 'boolean') return s;
  if (!isObj(s) || ctx.depth > MAX_SCHEMA_DEPTH) return {};
  if (--ctx.budget.left < 0) return { description: '(cut: the schema is too large to offer whole)' };
  if (typeof s.$ref === 'string') {
    const ref = s.$ref;
    const { $ref: _r, ...siblings } = s;
    if (!ref.startsWith('#/')) return { description: `(a reference to ${ref}, which is not followed)` };
    const name = ref.split('/').pop();
    if (ctx.refs.includes(ref)) return { description: `(recursive: the same shape as ${name})` };
    const inner = convert(pointer(ctx.doc, ref), { ...ctx, refs: [...ctx.refs, ref], depth: ctx.depth + 1 });
    if (!Object.keys(siblings).length || !isObj(inner)) return inner;
    return { ...inner, ...(convert(siblings, ctx) as Obj) };
  }
  if (ctx.dialect === '2.0' && s.type === 'file') throw new Unsupported('file uploads are not supported');
  if (ctx.request && s.type === 'string' && (s.format === 'binary' || s.contentEncoding === 'binary')) throw new Unsupported('binary uploads are not supported');
  const next: Ctx = { ...ctx, depth: ctx.depth + 1 };
  const out: Obj = {};
  const dropped = new Set<string>();
  for (const [k, v] of Object.entries(s)) {
    if (DROP.has(k) || k.startsWith('x-')) continue;
    if (SCHEMA_MAPS.has(k) && isObj(v)) {
      const m: Obj = {};
      for (const [name, sub] of Object.entries(v)) {
        const c = convert(sub, next);
        // a readOnly property is the server's to fill: a request does not send it
        if (k === 'properties' && ctx.request && isObj(c) && c.readOnly === true) {
          dropped.add(name);
          continue;
        }
        m[name] = c;
      }
      out[k] = m;
    } else if (SCHEMA_ONE.has(k) && (isObj(v) || typeof v === 'boolean')) out[k] = convert(v, next);
    else if (SCHEMA_LIST.has(k) && Array.isArray(v)) out[k] = v.map((x) => convert(x, next));
    else if (k === 'items') {
      // draft-4 style tuples (an array of schemas) are 2020-12's prefixItems
      if (Array.isArray(v)) out.prefixItems = v.map((x) => convert(x, next));
      else out.items = convert(v, next);
    } else out[k] = v;
  }
  if (dropped.size && Array.isArray(out.required)) {
    const req = out.required.filter((r) => !dropped.has(r as string));
    if (req.length) out.required = req;
    else delete out.required;
  }
  if (ctx.dialect !== '3.1') {
    // 3.0 and 2.0 bounds: `exclusiveMinimum: true` qualifies `minimum`
    for (const [ex, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
      if (typeof s[ex] !== 'boolean') continue;
      delete out[ex];
      if (s[ex] === true && typeof s[bound] === 'number') {
        out[ex] = s[bound];
        delete out[bound];
      }
    }
  }
  if (s.nullable === true || s['x-nullable'] === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  if (s.example !== undefined && out.examples === undefined) out.examples = [s.example];
  return out;
}
