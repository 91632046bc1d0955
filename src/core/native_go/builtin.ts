// native-go as a built-in toolset entry (core/registry/builtin_toolsets.ts lists it): its name,
// bare model-facing names, in the default chain, its policy keys, reads on files.read, its
// `cxl tool --policy native-go.KEY=VALUE` flags, its tools' names, and how it opens: the toolset
// itself is imported when it is opened. Opening probes nothing: the go toolchain is looked for on
// the first call.
import type { CoreToolset } from '../contract/builtin_toolset.ts';
import { toolsetFlags } from '../contract/policy_flags.ts';
import { foundUpwards } from '../paths.ts';
import { GO_POLICY_KEYS, NATIVE_GO, parseGoPolicy } from './policy.ts';
import { GO_TOOLS } from './tools.ts';

/** What native-go needs of where it is opened. */
export interface GoSite {
  root: string;
  warn(text: string): void;
}

export const NATIVE_GO_BUILTIN: CoreToolset<GoSite> = Object.freeze({
  name: NATIVE_GO,
  room: 'native_go',
  // its calls run go under the shell's OS sandbox
  uses: ['shell'],
  bareNames: true,
  policyKeys: Object.keys(GO_POLICY_KEYS),
  defaultChain: {},
  tools: GO_TOOLS.map((t) => t.name),
  axis: () => 'files.read' as const,
  /** offered to the model only in a Go module or workspace (a `go.mod` or `go.work` in the session root or above it): elsewhere its tools cost the context window and answer nothing */
  offeredIn: (root: string) => foundUpwards(root, ['go.mod', 'go.work']),
  fromFlags: (flat: Readonly<Record<string, string>>) => toolsetFlags(flat, NATIVE_GO),
  async open(site: GoSite, policy: Record<string, string> | undefined) {
    const { NativeGoToolset } = await import('./toolset.ts');
    const parsed = parseGoPolicy(policy);
    parsed.warnings.forEach(site.warn);
    return { toolset: new NativeGoToolset({ root: site.root, policy: parsed.policy }) };
  },
});
