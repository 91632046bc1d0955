// `cxl config`'s list of the built-in toolsets a chain task offers and how the envelope gates
// each of their tools, so a person sees before a session that `git_status` runs unasked and
// `git_commit` asks. Each toolset's tools are the names it declares (none is opened: that would
// load its implementation); each tool is decided on its axis with no path: a path can still make it ask or
// deny (the quarantine, approve_paths, the write wall), which the lines say.
import { BUILTIN_TOOLSETS } from '../agent/tools/builtin.ts';
import { admitsToolset } from '../config/toolset_list.ts';
import { decide, type CompiledEnvelope, type Grant } from '../core/envelope/index.ts';

/** One line per built-in toolset `tools` admits: its tools grouped by what `env` decides. */
export function describeToolsetGating(tools: readonly string[], env: CompiledEnvelope): string[] {
  const lines: string[] = [];
  const off: string[] = [];
  for (const builtin of BUILTIN_TOOLSETS) {
    if (!admitsToolset(tools, builtin.name)) {
      off.push(builtin.name);
      continue;
    }
    // the names it declares, so nothing of its implementation is loaded; one that declares none
    // (the mission tools) offers none here, where no mission is bound
    const specs = (builtin.tools ?? []).map((name) => ({ name }));
    // a toolset whose every call decides its own axis (local_shell: a command line)
    if (specs.length && specs.every((t) => builtin.axis(t.name) === undefined)) {
      lines.push(`#   ${builtin.name}: each command line is decided by the shell axis (shell.grant ${env.resolved.shell.grant?.value.grant ?? 'unset'}, prefix_allowlist, ask_always, blacklist)`);
      continue;
    }
    const by = new Map<Grant, string[]>();
    for (const t of specs) {
      const d = decide(env, { toolset: builtin.name, tool: t.name, axis: builtin.axis(t.name) ?? null });
      by.set(d.action, [...(by.get(d.action) ?? []), t.name]);
    }
    const parts = (['allow', 'approve', 'deny'] as const).filter((g) => by.has(g)).map((g) => `${g} ${by.get(g)!.join(', ')}`);
    lines.push(`#   ${builtin.name}: ${parts.join('; ')}`);
  }
  if (off.length) lines.push(`#   not offered: ${off.join(', ')}`);
  return lines;
}
