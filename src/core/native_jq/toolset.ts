// The native-jq toolset: jq_query, a real jq (1.7.1, WebAssembly) over one document, in a worker
// stopped at its deadline. A read on the envelope's files.read axis; a file on the read-approve
// list asks in every envelope, as reading it with read_file does.
import path from 'node:path';
import { checkArgs } from '../contract/args.ts';
import type { CallPlan, CallView, PlanContext, Toolset, ToolOutput } from '../contract/toolset.ts';
import type { CallFacts } from '../envelope/index.ts';
import { ToolError, toToolError } from '../errors.ts';
import { canonicalRoot } from '../paths.ts';
import type { ToolSpec } from '../tool.ts';
import { formatOfName, type Format } from './documents.ts';
import { JQ_LIMITS, NATIVE_JQ, type JqPolicy } from './policy.ts';
import { checkFilter, runQuery, type JqResult } from './query.ts';
import { fileSource, inlineText, readSource } from './source.ts';
import { JQ_QUERY, JQ_TOOL } from './tool.ts';

export { NATIVE_JQ };

export interface NativeJqOptions {
  root: string;
  policy?: JqPolicy;
}

const FORMATS: Record<string, Format> = { json: 'json', jsonl: 'json', yaml: 'yaml', yml: 'yaml' };

export class NativeJqToolset implements Toolset {
  readonly name = NATIVE_JQ;
  readonly root: string;
  /** where `path` is confined to */
  readonly base: string;
  readonly policy: JqPolicy;

  constructor(o: NativeJqOptions) {
    this.root = canonicalRoot(o.root);
    this.policy = o.policy ?? { maxInputBytes: JQ_LIMITS.maxInputBytes, maxOutputBytes: JQ_LIMITS.maxOutputBytes, maxValues: JQ_LIMITS.maxValues, maxDeadlineMs: JQ_LIMITS.maxDeadlineMs };
    this.base = this.policy.allowedDir ? canonicalRoot(path.resolve(this.root, this.policy.allowedDir)) : this.root;
  }

  list(): ToolSpec[] {
    return [{ toolset: NATIVE_JQ, name: JQ_QUERY, description: JQ_TOOL.description, inputSchema: JQ_TOOL.inputSchema, kind: JQ_TOOL.kind }];
  }

  #name(tool: string): string {
    const name = tool.startsWith(`${NATIVE_JQ}.`) ? tool.slice(NATIVE_JQ.length + 1) : tool;
    if (name !== JQ_QUERY) throw new ToolError('unknown_tool', `native-jq has no tool \`${tool}\`; its one tool is jq_query.`);
    return name;
  }

  view(_tool: string, args: Record<string, unknown>): CallView {
    const p = typeof args.path === 'string' && args.path ? args.path : '';
    const f = typeof args.filter === 'string' ? args.filter.slice(0, 60) : '';
    return { title: `${NATIVE_JQ}.${JQ_QUERY}: ${f}${p ? ` (${p})` : ''}`, kind: 'read', locations: p ? [{ path: path.resolve(this.base, p) }] : [] };
  }

  async plan(tool: string, args: Record<string, unknown>, _ctx?: PlanContext): Promise<CallPlan> {
    const name = this.#name(tool);
    const a = checkArgs(name, JQ_TOOL.inputSchema, args);
    const filter = String(a.filter);
    checkFilter(filter);
    if (a.format !== undefined && !Object.hasOwn(FORMATS, String(a.format))) throw new ToolError('bad_args', `jq: format must be "json", "jsonl", "yaml" or "yml", got ${JSON.stringify(a.format)}.`);
    const asked = a.format !== undefined ? FORMATS[String(a.format)] : undefined;
    const hasPath = typeof a.path === 'string' && a.path !== '';
    if (hasPath && a.input !== undefined) throw new ToolError('bad_args', `jq: pass EITHER path OR input, not both: ${JSON.stringify(a.path)} names a file and input carries a document. Drop one.`);
    if (!hasPath && a.input === undefined) throw new ToolError('bad_args', 'jq: an input source is required: pass path (a workspace file) or input (the document itself).');
    const facts: CallFacts = { toolset: NATIVE_JQ, tool: name, axis: 'files.read' };
    const common = { filter, asked, max: a.max as number | undefined, deadlineMs: a.deadline_ms as number | undefined };
    if (!hasPath) {
      const text = inlineText(a.input, this.policy.maxInputBytes);
      return this.#plan(facts, [], false, () => runQuery({ ...common, source: '(inline input)', text }, this.policy));
    }
    const src = fileSource(this.base, String(a.path));
    facts.paths = [src.c.requestedRel];
    facts.resolved = [src.c.rel];
    facts.absolute = [src.c.lexical, src.c.real];
    return this.#plan(facts, [src.c.rel], src.readApprove, () => runQuery({ ...common, source: src.c.rel, named: formatOfName(src.c.rel), text: readSource(src, this.policy.maxInputBytes) }, this.policy));
  }

  #plan(facts: CallFacts, files: string[], readApprove: boolean, run: () => Promise<JqResult>): CallPlan {
    const title = `${NATIVE_JQ}.${JQ_QUERY}${files.length ? `: ${files[0]}` : ''}`;
    return {
      facts,
      ...(readApprove ? { readApprove: files } : {}),
      scope: { whole: [{ kind: 'tool', tool: `${NATIVE_JQ}.${JQ_QUERY}` }], ...(files.length ? { paths: [{ kind: 'file', axis: 'files.read', path: files[0] }] } : {}) },
      locations: files,
      effects: 'none',
      keepsNames: true,
      approval: async () => ({ title }),
      run: () => run(),
    };
  }

  /** Runs a call without an envelope; a read-approve file is refused, as nobody was asked. */
  async call(tool: string, args: Record<string, unknown>, _opts: { signal?: AbortSignal } = {}): Promise<unknown> {
    try {
      const plan = await this.plan(tool, args);
      if (plan.readApprove?.length) throw new ToolError('approval_required', `jq: ${plan.readApprove[0]} matches the read-approve list (.env, *.pem, *.key) and needs a human's approval, which nobody can give here.`);
      return await plan.run({ decision: { action: 'allow', rule: 'default_action', envelope: '(none)', sentence: 'called directly' }, readOnly: true, ask: async () => false });
    } catch (err) {
      throw toToolError(err);
    }
  }

  output(_tool: string, result: unknown): ToolOutput {
    const r = result as Partial<JqResult>;
    return { result, forModel: typeof r?.text === 'string' ? r.text : JSON.stringify(result), display: {} };
  }
}
