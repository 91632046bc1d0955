// The toolsets a session opens: core's (core/registry/builtin_toolsets.ts, the one list) and the
// agent's own mission tools, which speak for a mission and so live here. Everything else a
// toolset says of itself it says through the contract (core/contract/toolset.ts).
import type { BuiltinToolset } from '../../core/contract/builtin_toolset.ts';
import { CORE_TOOLSETS, type ToolsetSite as CoreSite } from '../../core/registry/builtin_toolsets.ts';
import type { MissionBinding } from './mission/binding.ts';
import { MISSION, MISSION_AXES, MissionToolset } from './mission/toolset.ts';

export type { Opened } from '../../core/contract/builtin_toolset.ts';

/** Where a toolset is opened: the session's root and the parts it shares with the others. */
export interface ToolsetSite extends CoreSite {
  /** what the session's mission tools speak for: a unit's mission, or a supervising session */
  mission?: MissionBinding;
}

export type { BuiltinToolset };

const mission: BuiltinToolset<ToolsetSite> = {
  name: MISSION,
  bareNames: true,
  always: true,
  policyKeys: [],
  axis: (tool) => MISSION_AXES[tool] ?? null,
  fromFlags: () => ({}),
  // its tools depend on what it speaks for (a supervisor is offered more): no `tools`, it is opened to list them
  open: async (site) => ({ toolset: new MissionToolset(site.mission) }),
};

/** In the order they are opened and offered. */
export const BUILTIN_TOOLSETS: readonly BuiltinToolset<ToolsetSite>[] = Object.freeze([...CORE_TOOLSETS, mission]);

/** Whether a toolset's tools go to the model by their bare names. */
export function offeredBare(toolset: string): boolean {
  return BUILTIN_TOOLSETS.some((b) => b.bareNames && b.name === toolset);
}
