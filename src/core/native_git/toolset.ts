// The native-git toolset: git in-process (isomorphic-git) over the repository at the session root,
// ten tools behind the gate like any other toolset. Reads are on the envelope's files.read axis
// and the four writes on files.write, so every envelope decides them as it decides reading and
// writing files; what each call will do is its plan (plan.ts).
import path from 'node:path';
import { checkArgs } from '../contract/args.ts';
import type { CallPlan, CallView, PlanContext, Toolset, ToolOutput } from '../contract/toolset.ts';
import { ToolError, toToolError } from '../errors.ts';
import { canonicalRoot } from '../paths.ts';
import type { ToolSpec } from '../tool.ts';
import { gitContext } from './engine.ts';
import { planGitCall, type GitResult } from './plan.ts';
import { NATIVE_GIT, type GitPolicy, GIT_MAX_OUTPUT_BYTES } from './policy.ts';
import { openRepo } from './repo.ts';
import { GIT_TOOLS, type GitToolSpec } from './tools.ts';

export { NATIVE_GIT };

export interface NativeGitOptions {
  /** the session root */
  root: string;
  policy?: GitPolicy;
}

export class NativeGitToolset implements Toolset {
  readonly name = NATIVE_GIT;
  readonly root: string;
  /** the directory the repository must lie in */
  readonly base: string;
  readonly #maxBytes: number;
  readonly #tools = new Map(GIT_TOOLS.map((t) => [t.name, t]));

  constructor(o: NativeGitOptions) {
    this.root = canonicalRoot(o.root);
    this.base = o.policy?.allowedDir ? canonicalRoot(path.resolve(this.root, o.policy.allowedDir)) : this.root;
    this.#maxBytes = o.policy?.maxOutputBytes ?? GIT_MAX_OUTPUT_BYTES;
  }

  list(): ToolSpec[] {
    return GIT_TOOLS.map((t) => ({ toolset: NATIVE_GIT, name: t.name, description: t.description, inputSchema: t.inputSchema, kind: t.kind }));
  }

  #def(tool: string): GitToolSpec {
    const name = tool.startsWith(`${NATIVE_GIT}.`) ? tool.slice(NATIVE_GIT.length + 1) : tool;
    const def = this.#tools.get(name);
    if (!def) throw new ToolError('unknown_tool', `native-git has no tool \`${tool}\` (network verbs, config writes, merge, rebase and reset are not offered; use local_shell for them). Tools: ${[...this.#tools.keys()].join(', ')}.`);
    return def;
  }

  view(tool: string, args: Record<string, unknown>): CallView {
    const def = this.#tools.get(tool);
    const arg = [args.path, args.ref, args.branch, Array.isArray(args.paths) ? args.paths.join(', ') : args.paths].find((x) => typeof x === 'string' && x !== '') as string | undefined;
    return { title: `${NATIVE_GIT}.${tool}${arg ? `: ${arg}` : ''}`, kind: def?.kind ?? 'other', locations: typeof args.path === 'string' && args.path ? [{ path: path.resolve(this.root, args.path) }] : [] };
  }

  async plan(tool: string, args: Record<string, unknown>, _ctx?: PlanContext): Promise<CallPlan> {
    const def = this.#def(tool);
    const a = checkArgs(def.name, def.inputSchema, args);
    const c = await gitContext(openRepo(def.name, this.root, this.base));
    return planGitCall(c, def.name, a, def.writes, this.#maxBytes);
  }

  /** Runs a call as planned, without an envelope (the gate's way in is the plan). */
  async call(tool: string, args: Record<string, unknown>, opts: { signal?: AbortSignal } = {}): Promise<unknown> {
    try {
      const plan = await this.plan(tool, args);
      if (opts.signal?.aborted) throw new ToolError('cancelled', `${tool} was cancelled before it started.`);
      return await plan.run({ decision: { action: 'allow', rule: 'default_action', envelope: '(none)', sentence: 'called directly' }, readOnly: false, ask: async () => true });
    } catch (err) {
      throw toToolError(err);
    }
  }

  output(_tool: string, result: unknown): ToolOutput {
    const text = typeof result === 'object' && result !== null && typeof (result as GitResult).text === 'string' ? (result as GitResult).text : JSON.stringify(result);
    return { result, forModel: text, display: {} };
  }
}
