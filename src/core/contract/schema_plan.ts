// What a toolset that brings only a JSON schema per tool gets (an attached MCP server, a toolset
// with no plan of its own): its arguments checked against the schema, path-like arguments shown
// to the envelope, one tool at a time for the session, the name as the title, the result as its
// text or JSON. Toolsets with more to say (remote tools) start from these pieces.
import type { CallFacts } from '../envelope/index.ts';
import type { ToolSpec } from '../tool.ts';
import { checkArgs } from './args.ts';
import type { CallPlan, CallView, Toolset, ToolOutput } from './toolset.ts';

// argument names of other toolsets (MCP) whose string values are paths: the quarantine
// and every path list see them too.
const PATH_ARG = /^(?:path|paths|file|files|filename|filepath|file_path|dir|directory|target|source|src|dest|destination)$/i;

/** `github.create_issue`; a toolset named for its one tool (`local_shell`) by that name alone. */
export function qualified(toolset: string, tool: string): string {
  return tool === toolset ? tool : `${toolset}.${tool}`;
}

/** The string values of path-like arguments. */
export function pathArgs(args: Record<string, unknown>): string[] {
  const paths: string[] = [];
  for (const [k, v] of Object.entries(args)) {
    if (!PATH_ARG.test(k)) continue;
    if (typeof v === 'string' && v !== '') paths.push(v);
    else if (Array.isArray(v)) for (const x of v) if (typeof x === 'string' && x !== '') paths.push(x);
  }
  return paths;
}

/** The facts of a call no axis names: the tool, and the paths its arguments name. */
export function toolFacts(toolset: string, tool: string, args: Record<string, unknown>): CallFacts {
  const paths = pathArgs(args);
  return { toolset, tool, ...(paths.length ? { paths } : {}) };
}

/** `<toolset>.<tool>`, and its `path` argument when it has one. */
export function schemaView(spec: ToolSpec, args: Record<string, unknown>): CallView {
  const p = typeof args.path === 'string' ? args.path : '';
  return { title: p ? `${spec.toolset}.${spec.name}: ${p}` : `${spec.toolset}.${spec.name}`, kind: spec.kind, locations: [] };
}

/** The plan of a call checked against its tool's schema and run as checked. */
export function schemaPlan(ts: Toolset, tool: string, args: Record<string, unknown>): CallPlan {
  const spec = ts.list().find((s) => s.name === tool);
  // a tool the toolset does not list is its own to refuse (unknown_tool) when called
  const checked = spec ? checkArgs(qualified(ts.name, tool), spec.inputSchema, args) : args;
  return {
    facts: toolFacts(ts.name, tool, args),
    // a server's own process changes what it changes: nothing here can compare or keep it
    effects: 'none',
    scope: { whole: [{ kind: 'tool', tool: `${ts.name}.${tool}` }] },
    locations: [],
    approval: async () => ({ title: qualified(ts.name, tool) }),
    run: (ctx) => ts.call(tool, checked, { signal: ctx.signal }),
  };
}

/** Text as it is, anything else as JSON; a result carrying `diff: {path, oldText, newText}` is shown as that diff. */
export function plainOutput(result: unknown): ToolOutput {
  const forModel = typeof result === 'string' ? result : (JSON.stringify(result) ?? '');
  const d = typeof result === 'object' && result !== null ? (result as { diff?: { path?: unknown; oldText?: unknown; newText?: unknown } }).diff : undefined;
  const diff = d && typeof d.path === 'string' && typeof d.newText === 'string' ? { path: d.path, oldText: typeof d.oldText === 'string' ? d.oldText : null, newText: d.newText } : undefined;
  return { result, forModel, display: diff ? { diff } : {} };
}
