// The native-go toolset: read-only, type-checked answers about the Go module in the workspace,
// when a go toolchain is on PATH (probed once; each call without one says how to get it). Every
// tool is a read on the envelope's files.read axis; the module's files are read by go and by
// cxl's helper inside the OS sandbox's read-only view (toolchain.ts), only as confinement lets
// them through (sources.ts).
import fs from 'node:fs';
import path from 'node:path';
import { checkArgs } from '../contract/args.ts';
import type { CallPlan, CallView, PlanContext, Toolset, ToolOutput } from '../contract/toolset.ts';
import type { CallFacts } from '../envelope/index.ts';
import { ToolError, toToolError } from '../errors.ts';
import { canonicalRoot, confine } from '../paths.ts';
import type { ToolSpec } from '../tool.ts';
import type { GoPackage } from './helper.ts';
import { findModule, listPackages, packageOf } from './module.ts';
import { capOf, GO_CAPS, NATIVE_GO, type GoPolicy } from './policy.ts';
import { goDefinition, goDescribe, goDiagnostics, goImplementations, goReferences, goSymbols, passesOf, type GoCtx, type GoResult } from './queries.ts';
import { noteWorkspaces } from '../shell/sandbox/launch_programs.ts';
import { probeSandbox } from '../shell/sandbox/probe.ts';
import { confineReplacements, confineSources, goPaths } from './sources.ts';
import { requireToolchain } from './toolchain.ts';
import { GO_TOOLS } from './tools.ts';

export { NATIVE_GO };

export interface NativeGoOptions {
  root: string;
  policy?: GoPolicy;
}

export class NativeGoToolset implements Toolset {
  readonly name = NATIVE_GO;
  readonly root: string;
  readonly policy: GoPolicy;
  readonly #tools = new Map(GO_TOOLS.map((t) => [t.name, t]));
  /** .go files and their mtimes as the last go_diagnostics saw them: what "changed" is measured against */
  #seen: Map<string, number> | undefined;

  constructor(o: NativeGoOptions) {
    this.root = canonicalRoot(o.root);
    // go is started from outside it (shell/sandbox/launch_programs.ts)
    noteWorkspaces([this.root]);
    this.policy = o.policy ?? { maxReferences: GO_CAPS.references.ceiling, maxSymbols: GO_CAPS.symbols.ceiling, maxDiagnostics: GO_CAPS.diagnostics.ceiling };
  }

  list(): ToolSpec[] {
    return GO_TOOLS.map((t) => ({ toolset: NATIVE_GO, name: t.name, description: t.description, inputSchema: t.inputSchema, kind: t.kind }));
  }

  #def(tool: string) {
    const name = tool.startsWith(`${NATIVE_GO}.`) ? tool.slice(NATIVE_GO.length + 1) : tool;
    const def = this.#tools.get(name);
    if (!def) throw new ToolError('unknown_tool', `native-go has no tool \`${tool}\`; its tools are ${[...this.#tools.keys()].join(', ')} (build, test and format go through local_shell).`);
    return def;
  }

  view(tool: string, args: Record<string, unknown>): CallView {
    const what = [args.symbol, args.target, args.scope].find((x) => typeof x === 'string' && x) as string | undefined;
    return { title: `${NATIVE_GO}.${tool}${what ? `: ${what}` : ''}`, kind: this.#tools.get(tool)?.kind ?? 'read', locations: [] };
  }

  async plan(tool: string, args: Record<string, unknown>, _ctx?: PlanContext): Promise<CallPlan> {
    const def = this.#def(tool);
    const a = checkArgs(def.name, def.inputSchema, args);
    const dir = typeof a.dir === 'string' && a.dir ? a.dir : '.';
    const c = confine(this.root, dir);
    const facts: CallFacts = { toolset: NATIVE_GO, tool: def.name, axis: 'files.read', ...(dir !== '.' ? { paths: [c.requestedRel], resolved: [c.rel] } : {}) };
    if (a.scope !== undefined && !['changed', 'package', 'all'].includes(String(a.scope))) throw new ToolError('bad_args', `native-go: unknown diagnostics scope ${JSON.stringify(a.scope)}; use "changed", "package", or "all".`);
    if (def.name === 'go_diagnostics') passesOf(a.passes);
    return {
      facts,
      scope: { whole: [{ kind: 'tool', tool: `${NATIVE_GO}.${def.name}` }] },
      locations: dir !== '.' ? [c.rel] : [],
      effects: 'none',
      keepsNames: true,
      approval: async () => ({ title: `${NATIVE_GO}.${def.name}` }),
      run: () => this.#run(def.name, a, dir),
    };
  }

  async #ctx(dir: string): Promise<GoCtx> {
    const tc = requireToolchain(this.root);
    const mod = findModule(this.root, dir);
    confineReplacements(this.root, mod.replacedBy);
    const paths = goPaths(tc);
    const { pkgs, leftOut, unvetted } = confineSources(this.root, await listPackages(tc, mod, this.root), paths);
    const real = confine(this.root, dir).real;
    const at = fs.existsSync(real) && fs.statSync(real).isFile() ? path.dirname(real) : real;
    const sandboxed = ['bubblewrap', 'seatbelt'].includes(probeSandbox({ network: false, roots: [this.root] }).state);
    return { tc, mod, pkgs, base: this.root, dir: at, sandboxed, paths, leftOut, unvetted };
  }

  async #run(tool: string, a: Record<string, unknown>, dir: string): Promise<GoResult> {
    const c = await this.#ctx(dir);
    const p = this.policy;
    switch (tool) {
      case 'go_symbols':
        return goSymbols(c, a.target as string | undefined, capOf(a.max, GO_CAPS.symbols, p.maxSymbols));
      case 'go_definition':
        return goDefinition(c, String(a.symbol));
      case 'go_references':
        return goReferences(c, String(a.symbol), capOf(a.max, GO_CAPS.references, p.maxReferences));
      case 'go_describe':
        return goDescribe(c, String(a.symbol));
      case 'go_implementations':
        return goImplementations(c, String(a.symbol));
      default: {
        const scope = (a.scope as string | undefined) ?? 'changed';
        const { pkgs, label } = this.#diagScope(c, scope, a.target as string | undefined);
        return goDiagnostics(c, pkgs, label, passesOf(a.passes), capOf(a.max, GO_CAPS.diagnostics, p.maxDiagnostics));
      }
    }
  }

  /** The packages a diagnostics scope covers; "changed" is measured against the previous call's view of the files. */
  #diagScope(c: GoCtx, scope: string, target: string | undefined): { pkgs: GoPackage[]; label: string } {
    const now = new Map<string, number>();
    for (const k of c.pkgs) for (const f of k.GoFiles ?? []) now.set(path.join(k.Dir, f), fs.statSync(path.join(k.Dir, f), { throwIfNoEntry: false })?.mtimeMs ?? 0);
    const before = this.#seen;
    this.#seen = now;
    if (scope === 'all') return { pkgs: c.pkgs, label: 'all packages' };
    if (scope === 'package') {
      if (!target) throw new ToolError('bad_args', 'native-go: scope "package" needs target (a package or a .go file).');
      const k = packageOf(c.pkgs, target, this.root);
      return { pkgs: [k], label: `package ${k.ImportPath}` };
    }
    if (!before) return { pkgs: c.pkgs, label: 'changed (first call: every package)' };
    const changed = c.pkgs.filter((k) => (k.GoFiles ?? []).some((f) => before.get(path.join(k.Dir, f)) !== now.get(path.join(k.Dir, f))));
    return { pkgs: changed, label: `changed since the last go_diagnostics (${changed.length} package(s))` };
  }

  async call(tool: string, args: Record<string, unknown>, _opts: { signal?: AbortSignal } = {}): Promise<unknown> {
    try {
      const plan = await this.plan(tool, args);
      return await plan.run({ decision: { action: 'allow', rule: 'default_action', envelope: '(none)', sentence: 'called directly' }, readOnly: true, ask: async () => false });
    } catch (err) {
      throw toToolError(err);
    }
  }

  output(_tool: string, result: unknown): ToolOutput {
    const r = result as Partial<GoResult>;
    return { result, forModel: typeof r?.text === 'string' ? r.text : JSON.stringify(result), display: {} };
  }
}
