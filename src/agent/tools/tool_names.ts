// Model-facing tool names. The built-in toolsets' tools are offered by their bare names
// (read_file, …, local_shell), which small models call reliably (builtin.ts says which); attached
// MCP tools and remote tools as `<toolset>.<tool>`. Lookup also accepts the qualified
// `local_fs.read_file` form.
import { qualifiedName, type ToolSpec } from '../../core/tool.ts';
import { offeredBare } from './builtin.ts';

export function modelName(spec: ToolSpec): string {
  if (offeredBare(spec.toolset) || spec.toolset === spec.name) return spec.name;
  return qualifiedName(spec);
}

export function resolveTool(specs: ToolSpec[], name: string): ToolSpec | undefined {
  const n = name.trim();
  return specs.find((s) => modelName(s) === n) ?? specs.find((s) => qualifiedName(s) === n) ?? specs.find((s) => n === `${s.toolset}__${s.name}`);
}
