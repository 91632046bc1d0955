// Model-facing tool names. local_fs tools are offered by their bare names (read_file, …) and
// local_shell as `local_shell`, which small models call reliably; attached MCP tools as
// `<server>.<tool>`. Lookup also accepts the qualified `local_fs.read_file` form.
import { qualifiedName, type ToolSpec } from '../../core/tool.ts';

export function modelName(spec: ToolSpec): string {
  if (spec.toolset === 'local_fs' || spec.toolset === spec.name) return spec.name;
  return qualifiedName(spec);
}

export function resolveTool(specs: ToolSpec[], name: string): ToolSpec | undefined {
  const n = name.trim();
  return specs.find((s) => modelName(s) === n) ?? specs.find((s) => qualifiedName(s) === n) ?? specs.find((s) => n === `${s.toolset}__${s.name}`);
}
