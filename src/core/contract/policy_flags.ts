// `cxl tool --policy` flags for the toolsets whose keys are written with their name in front
// (`--policy native-git._allowed_dir=..`), so one flat list of flags serves every toolset and
// none of them sees another's keys.

/** The keys of `flat` that name `toolset`, without its prefix. */
export function toolsetFlags(flat: Readonly<Record<string, string>>, toolset: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(flat)) if (k.startsWith(`${toolset}.`)) out[k.slice(toolset.length + 1)] = v;
  return out;
}

/** The keys of `flat` that name no toolset (the flat local_fs and local_shell keys). */
export function unprefixedFlags(flat: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(flat).filter(([k]) => !k.includes('.')));
}

/** The flat keys only local_shell reads (`_allowed_dir` is shared with local_fs). */
export const SHELL_ONLY_FLAGS: readonly string[] = Object.freeze(['_allowed_commands', '_denied_commands']);

/** A flat set without the keys only local_shell reads. */
export function withoutShellOnlyKeys(flat: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(flat).filter(([k]) => !SHELL_ONLY_FLAGS.includes(k)));
}
