// native-jq as a built-in toolset entry (agent/tools/builtin.ts lists it): its name, bare
// model-facing names, its `cxl tool --policy native-jq.KEY=VALUE` flags, and how it opens.
import { toolsetFlags } from '../contract/policy_flags.ts';
import type { Toolset } from '../contract/toolset.ts';
import { NATIVE_JQ, parseJqPolicy } from './policy.ts';
import { NativeJqToolset } from './toolset.ts';

export const NATIVE_JQ_BUILTIN = Object.freeze({
  name: NATIVE_JQ,
  bareNames: true,
  fromFlags: (flat: Readonly<Record<string, string>>) => toolsetFlags(flat, NATIVE_JQ),
  open(site: { root: string; warn(text: string): void }, policy: Record<string, string> | undefined): { toolset: Toolset } {
    const parsed = parseJqPolicy(policy);
    parsed.warnings.forEach(site.warn);
    return { toolset: new NativeJqToolset({ root: site.root, policy: parsed.policy }) };
  },
});
