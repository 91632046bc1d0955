// native-jq as a built-in toolset entry (core/registry/builtin_toolsets.ts lists it): its name,
// bare model-facing names, in the default chain, its policy keys, a read on files.read, its
// `cxl tool --policy native-jq.KEY=VALUE` flags, its tool's name, and how it opens: the toolset
// itself is imported when it is opened.
import type { CoreToolset } from '../contract/builtin_toolset.ts';
import { toolsetFlags } from '../contract/policy_flags.ts';
import { JQ_POLICY_KEYS, NATIVE_JQ, parseJqPolicy } from './policy.ts';
import { JQ_QUERY } from './tool.ts';

/** What native-jq needs of where it is opened. */
export interface JqSite {
  root: string;
  warn(text: string): void;
}

export const NATIVE_JQ_BUILTIN: CoreToolset<JqSite> = Object.freeze({
  name: NATIVE_JQ,
  room: 'native_jq',
  bareNames: true,
  policyKeys: Object.keys(JQ_POLICY_KEYS),
  defaultChain: {},
  tools: [JQ_QUERY],
  axis: () => 'files.read' as const,
  fromFlags: (flat: Readonly<Record<string, string>>) => toolsetFlags(flat, NATIVE_JQ),
  async open(site: JqSite, policy: Record<string, string> | undefined) {
    const { NativeJqToolset } = await import('./toolset.ts');
    const parsed = parseJqPolicy(policy);
    parsed.warnings.forEach(site.warn);
    return { toolset: new NativeJqToolset({ root: site.root, policy: parsed.policy }) };
  },
});
