// Remote tools: an HTTP service with an OpenAPI document, offered as a toolset with no code.
// The document is fetched (or read from a file) once when the session starts, parsed and
// dereferenced by @readme/openapi-parser (OpenAPI 3.0, 3.1, Swagger 2.0; external references are
// never followed), and each operation becomes `<service>.<operationId>`. A call's arguments are
// checked against its schema with Ajv before anything is sent; its plan tells the envelope a GET
// is a read and any other method a write, and shows an approval the request it will send.
// Loaded only when a [remote_tools.*] entry exists: the parser and the validator are imported
// then, never on the way to an unrelated command.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { qualified, toolFacts } from '../../../core/contract/schema_plan.ts';
import type { CallPlan, Toolset } from '../../../core/contract/toolset.ts';
import { ToolError } from '../../../core/errors.ts';
import type { ToolSpec } from '../../../core/tool.ts';
import { describeRequest, httpError, planRequest, redact, resultOf, send, type PlannedRequest } from './http.ts';
import { dialectOf, operationsOf, type Operation } from './operations.ts';
import { ENV_TEMPLATE, type RemoteToolSpec } from '../../../config/remote_tools_schema.ts';

export const DEFAULT_TIMEOUT_MS = 30_000;
/** Fetching the document at start costs at most this, whatever the call timeout. */
export const DOCUMENT_TIMEOUT_MS = 15_000;
/** Largest document read. */
const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;
/** With _max_output_bytes = 0 (unlimited) an answer is still not buffered past this. */
const HARD_MAX_BYTES = 16 * 1024 * 1024;
export const DEFAULT_OPENAPI = '/openapi.json';

/** What a call will do, before anything is sent. */
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

/** One `[remote_tools.<name>]` entry, ready to load. */
export interface RemoteServiceConfig extends RemoteToolSpec {
  name: string;
  /** where a relative `openapi` file is found: the directory of the agents.toml that named it */
  baseDir?: string;
  /** that file, for messages */
  source?: string;
}

export interface RemoteOptions {
  /** where `{{env:NAME}}` values come from */
  env: Record<string, string | undefined>;
  /** tools_policies.local_fs._max_output_bytes (Infinity: unlimited) */
  maxOutputBytes: number;
}

/** The `[remote_tools.*]` of a configuration, each with the file it came from. */
export function remoteConfigs(specs: Record<string, RemoteToolSpec> | undefined, sources: Map<string, string>): RemoteServiceConfig[] {
  return Object.entries(specs ?? {}).map(([name, s]) => {
    const source = (sources.get(`remote_tools.${name}.openapi`) ?? sources.get(`remote_tools.${name}.url`))?.replace(/ \[agents\.[^\]]*\]$/, '');
    const fromFile = source && path.isAbsolute(source);
    return { name, ...s, ...(fromFile ? { baseDir: path.dirname(source), source } : {}) };
  });
}

/** Fills `{{env:NAME}}` in the header values; a variable that is not set stops the service. */
export function fillHeaders(cfg: RemoteServiceConfig, env: Record<string, string | undefined>): { headers: Record<string, string>; secrets: string[] } {
  const headers: Record<string, string> = {};
  const secrets: string[] = [];
  for (const [k, raw] of Object.entries(cfg.headers ?? {})) {
    const value = raw.replace(ENV_TEMPLATE, (_m, name: string) => {
      const v = env[name];
      if (v === undefined || v === '') throw new ToolError('bad_args', `remote tools ${cfg.name}: header ${k} uses {{env:${name}}}, and ${name} is not set; its tools are absent. Set ${name} in the environment cxl runs in.`);
      if (/[\r\n\0]/.test(v)) throw new ToolError('bad_args', `remote tools ${cfg.name}: ${name} (for header ${k}) holds a line break or NUL, which no header may; its tools are absent.`);
      return v;
    });
    headers[k] = value;
    secrets.push(value);
    // a template's filled part is secret on its own too (`Bearer {{env:T}}`: T alone)
    for (const m of raw.matchAll(ENV_TEMPLATE)) {
      const v = env[m[1]];
      if (v) secrets.push(v);
    }
  }
  return { headers, secrets: [...new Set(secrets)].sort((a, b) => b.length - a.length) };
}

type Where = { kind: 'url'; url: URL } | { kind: 'file'; file: string };

/** Where the document is: a path under `url`, a full URL, or a file (relative to the agents.toml). */
export function documentLocation(cfg: RemoteServiceConfig): Where {
  const spec = cfg.openapi ?? DEFAULT_OPENAPI;
  const base = new URL(cfg.url);
  if (/^https?:\/\//i.test(spec)) return { kind: 'url', url: new URL(spec) };
  if (spec.startsWith('/')) return { kind: 'url', url: new URL(`${base.pathname.replace(/\/+$/, '')}${spec}`, base.origin) };
  if (spec.startsWith('file://')) return { kind: 'file', file: new URL(spec).pathname };
  const file = spec.startsWith('~/') ? path.join(os.homedir(), spec.slice(2)) : path.resolve(cfg.baseDir ?? process.cwd(), spec);
  return { kind: 'file', file };
}

function describeErr(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
}

// Ajv and the parser, imported once, on first need.
type Validate = ((data: unknown) => boolean) & { errors?: Array<{ instancePath: string; message?: string; params?: Record<string, unknown>; keyword: string }> | null };
interface AjvLike {
  compile(schema: unknown): Validate;
}
let ajvPromise: Promise<AjvLike> | undefined;
function validator(): Promise<AjvLike> {
  ajvPromise ??= import('ajv/dist/2020.js').then((m) => {
    const mod = m as unknown as { default: { default?: new (o: object) => AjvLike } & (new (o: object) => AjvLike) };
    const Ajv = mod.default.default ?? mod.default;
    // formats are not checked (no format plug-in); unknown keywords (x-…) are ignored
    return new Ajv({ strict: false, allErrors: true, validateFormats: false, logger: false });
  });
  return ajvPromise;
}

export class RemoteToolset implements Toolset {
  readonly name: string;
  readonly base: URL;
  private readonly byTool: Map<string, Operation>;
  private readonly validators = new Map<string, Validate>();
  private readonly timeoutMs: number;

  private constructor(
    readonly config: RemoteServiceConfig,
    readonly ops: Operation[],
    /** operations left out, with why */
    readonly skipped: string[],
    /** include entries that matched nothing */
    readonly unmatched: string[],
    readonly documentAt: string,
    private readonly headers: Record<string, string>,
    private readonly secrets: string[],
    private readonly ajv: AjvLike,
    private readonly maxOutputBytes: number,
  ) {
    this.name = config.name;
    this.base = new URL(config.url);
    this.byTool = new Map(ops.map((o) => [o.tool, o]));
    this.timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** Fetches, parses and dereferences the document. Throws ToolError saying why the service is absent. */
  static async load(cfg: RemoteServiceConfig, opts: RemoteOptions): Promise<RemoteToolset> {
    const { headers, secrets } = fillHeaders(cfg, opts.env);
    const where = documentLocation(cfg);
    const at = where.kind === 'url' ? where.url.href : where.file;
    const absent = `its tools are absent this session`;
    const fix = `Fix url/openapi in [remote_tools.${cfg.name}]${cfg.source ? ` (${cfg.source})` : ''}, or start the service.`;
    let text: string;
    if (where.kind === 'file') {
      try {
        text = fs.readFileSync(where.file, 'utf8');
      } catch (err) {
        throw new ToolError('io_error', `remote tools ${cfg.name}: cannot read its OpenAPI document ${at} (${(err as NodeJS.ErrnoException).code ?? describeErr(err)}); ${absent}. ${fix}`);
      }
    } else {
      // credentials go only to the service's own origin
      const own = where.url.origin === new URL(cfg.url).origin;
      const plan: PlannedRequest = { method: 'GET', url: where.url, headers: {} };
      const timeoutMs = Math.min(cfg.timeoutMs ?? DEFAULT_TIMEOUT_MS, DOCUMENT_TIMEOUT_MS);
      let answer;
      try {
        answer = await send(plan, { fixedHeaders: own ? headers : {}, timeoutMs, maxBytes: MAX_DOCUMENT_BYTES, secrets, label: `remote tools ${cfg.name}`, timeoutHint: `timeout in [remote_tools.${cfg.name}]` });
      } catch (err) {
        const reason = err instanceof ToolError && typeof err.details?.reason === 'string' ? err.details.reason : describeErr(err);
        throw new ToolError(err instanceof ToolError && err.code === 'timeout' ? 'timeout' : 'io_error', `remote tools ${cfg.name}: cannot fetch its OpenAPI document ${at} (${reason}); ${absent}. ${fix}`);
      }
      if (answer.status >= 400) throw new ToolError('io_error', `remote tools ${cfg.name}: fetching its OpenAPI document ${at} got ${answer.status}${answer.statusText ? ` ${answer.statusText}` : ''}; ${absent}. ${fix}`);
      if (answer.truncated) throw new ToolError('too_large', `remote tools ${cfg.name}: its OpenAPI document ${at} is larger than ${MAX_DOCUMENT_BYTES} bytes; ${absent}.`);
      text = answer.text ?? '';
    }
    const doc = await parseDocument(text, at, cfg.name, absent);
    const dialect = dialectOf(doc)!;
    const maxName = 64 - cfg.name.length - 2;
    let found;
    try {
      found = operationsOf(doc, dialect, { include: cfg.include, exclude: cfg.exclude }, maxName);
    } catch (err) {
      throw new ToolError('bad_args', `remote tools ${cfg.name}: its OpenAPI document ${at} cannot be turned into tools (${describeErr(err)}); ${absent}.`);
    }
    const ajv = await validator();
    const max = Number.isFinite(opts.maxOutputBytes) && opts.maxOutputBytes > 0 ? Math.min(opts.maxOutputBytes, HARD_MAX_BYTES) : HARD_MAX_BYTES;
    return new RemoteToolset(cfg, found.ops, found.skipped, found.unmatched, at, headers, secrets, ajv, max);
  }

  /** Things worth saying once when the session starts (operations left out, include names that matched nothing). */
  notes(): string[] {
    const out: string[] = [];
    if (this.skipped.length) out.push(`remote tools ${this.name}: ${this.skipped.length} operation${this.skipped.length === 1 ? '' : 's'} left out: ${this.skipped.join('; ')}.`);
    if (this.unmatched.length) out.push(`remote tools ${this.name}: include names ${this.unmatched.join(', ')}, which match no operation of ${this.documentAt}.`);
    return out;
  }

  list(): ToolSpec[] {
    return this.ops.map((o) => ({
      toolset: this.name,
      name: o.tool,
      description: o.description,
      inputSchema: o.inputSchema,
      kind: o.method === 'GET' ? 'fetch' : 'other',
    }));
  }

  private op(tool: string): Operation {
    const op = this.byTool.get(tool);
    if (!op) throw new ToolError('unknown_tool', `The service ${this.name} has no operation ${tool}; it has ${this.ops.map((o) => o.tool).join(', ') || 'none'}.`);
    return op;
  }

  /** Arguments against the operation's schema: bad_args naming each problem. */
  private check(op: Operation, args: Record<string, unknown>): void {
    let v = this.validators.get(op.tool);
    if (!v) {
      try {
        v = this.ajv.compile(op.inputSchema);
      } catch (err) {
        throw new ToolError('internal', `${this.name}.${op.tool}: its schema from ${this.documentAt} cannot be compiled (${describeErr(err)}); the call was not sent.`);
      }
      this.validators.set(op.tool, v);
    }
    if (v(args)) return;
    const problems = (v.errors ?? []).slice(0, 6).map((e) => {
      const at = e.instancePath ? `\`${e.instancePath.slice(1).replace(/\//g, '.')}\`` : 'the arguments';
      if (e.keyword === 'additionalProperties') return `unknown argument \`${String(e.params?.additionalProperty)}\``;
      if (e.keyword === 'required') return `missing ${e.instancePath ? `${at}.` : ''}\`${String(e.params?.missingProperty)}\``;
      if (e.keyword === 'enum') return `${at} must be one of ${JSON.stringify(e.params?.allowedValues)}`;
      return `${at} ${e.message ?? 'is invalid'}`;
    });
    const valid = Object.keys(op.inputSchema.properties);
    throw new ToolError('bad_args', `${this.name}.${op.tool}: ${[...new Set(problems)].join('; ')}. Its arguments: ${valid.join(', ') || '(none)'}${op.inputSchema.required?.length ? ` (required: ${op.inputSchema.required.join(', ')})` : ''}. Nothing was sent.`, { errors: problems });
  }

  private request(tool: string, args: Record<string, unknown>): { op: Operation; plan: PlannedRequest } {
    const op = this.op(tool);
    this.check(op, args);
    return { op, plan: planRequest(this.base, op, args, `${this.name}.${tool}`) };
  }

  /** Checks the arguments (bad_args, nothing sent) and says what the request will be. */
  preview(tool: string, args: Record<string, unknown>): CallPreview {
    const { op, plan } = this.request(tool, args);
    return {
      access: op.method === 'GET' ? 'read' : 'write',
      accessReason: `${op.method} ${op.path}`,
      title: `${plan.method} ${plan.url.href}`,
      detail: describeRequest(plan, Object.keys(this.headers)).map((l) => redact(l, this.secrets)),
    };
  }

  /** A read or a write for the envelope (no axis names a service), one tool for the session, the request for an approval. */
  plan(tool: string, args: Record<string, unknown>): CallPlan {
    const preview = this.preview(tool, args);
    return {
      facts: { ...toolFacts(this.name, tool, args), access: preview.access, accessReason: preview.accessReason },
      // a request changes the service, not the workspace
      effects: 'none',
      scope: { whole: [{ kind: 'tool', tool: `${this.name}.${tool}` }] },
      locations: [],
      approval: async () => ({ title: `${qualified(this.name, tool)}: ${preview.title}`, detail: preview.detail }),
      run: (ctx) => this.call(tool, args, { signal: ctx.signal }),
    };
  }

  async call(tool: string, args: Record<string, unknown>, opts: { signal?: AbortSignal } = {}): Promise<unknown> {
    const { plan } = this.request(tool, args);
    const label = `${this.name}.${tool}`;
    const answer = await send(plan, {
      fixedHeaders: this.headers,
      timeoutMs: this.timeoutMs,
      maxBytes: this.maxOutputBytes,
      signal: opts.signal,
      secrets: this.secrets,
      label,
      timeoutHint: `timeout in [remote_tools.${this.name}]`,
    });
    if (answer.status >= 400) throw httpError(answer, label);
    return resultOf(answer, this.maxOutputBytes);
  }

  /** Lines for `cxl config`: the service, where its document is, and its tools. */
  describe(): string[] {
    const lines = [`# remote tools ${this.name} (${this.base.href}, document ${this.documentAt}): ${this.ops.length} tool${this.ops.length === 1 ? '' : 's'}; GET counts as a read, other methods as writes`];
    for (const o of this.ops) lines.push(`#   ${this.name}.${o.tool} (${o.method} ${o.path}): ${o.description.split('\n')[0].slice(0, 100)}`);
    for (const n of this.notes()) lines.push(`# ${n}`);
    return lines;
  }
}

/** Text → a dereferenced OpenAPI document, or a ToolError saying why it does not parse. */
async function parseDocument(text: string, at: string, name: string, absent: string): Promise<Record<string, unknown>> {
  const fail = (why: string) => new ToolError('bad_args', `remote tools ${name}: its OpenAPI document ${at} does not parse (${why}); ${absent}.`);
  let raw: unknown;
  const t = text.replace(/^\uFEFF/, '');
  if (/^\s*[{[]/.test(t)) {
    try {
      raw = JSON.parse(t);
    } catch (err) {
      throw fail(`not JSON: ${describeErr(err).slice(0, 200)}`);
    }
  } else {
    const yaml = await import('js-yaml');
    try {
      raw = yaml.load(t, { json: true });
    } catch (err) {
      throw fail(`neither JSON nor YAML: ${describeErr(err).split('\n')[0].slice(0, 200)}`);
    }
  }
  if (!dialectOf(raw)) {
    const v = typeof raw === 'object' && raw !== null ? ((raw as Record<string, unknown>).openapi ?? (raw as Record<string, unknown>).swagger) : undefined;
    throw fail(v === undefined ? 'no `openapi` or `swagger` version field: it is not an OpenAPI document' : `version ${JSON.stringify(v)} is not OpenAPI 3.0, 3.1 or Swagger 2.0`);
  }
  const paths = (raw as Record<string, unknown>).paths;
  if (paths !== undefined && (typeof paths !== 'object' || paths === null || Array.isArray(paths))) throw fail('`paths` is not an object');
  const { dereference } = await import('@readme/openapi-parser');
  try {
    // external references (other files, other URLs) are never followed: a document cannot make
    // cxl read a local file or call another host
    return (await dereference(raw as Parameters<typeof dereference>[0], { resolve: { external: false, file: false }, dereference: { circular: 'ignore' } })) as unknown as Record<string, unknown>;
  } catch (err) {
    throw fail(describeErr(err).slice(0, 300));
  }
}

/**
 * Loads every configured service side by side (one slow service costs its own timeout, not
 * everyone's). A service that is down or whose document does not parse is one problem line and
 * no tools; the others load.
 */
export async function loadRemoteTools(configs: RemoteServiceConfig[], opts: RemoteOptions): Promise<{ toolsets: RemoteToolset[]; problems: string[] }> {
  const settled = await Promise.allSettled(configs.map((c) => RemoteToolset.load(c, opts)));
  const toolsets: RemoteToolset[] = [];
  const problems: string[] = [];
  for (const r of settled) {
    if (r.status === 'fulfilled') {
      toolsets.push(r.value);
      problems.push(...r.value.notes());
    } else problems.push(describeErr(r.reason));
  }
  return { toolsets, problems };
}
