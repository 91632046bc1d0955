// native-go as a built-in toolset entry (agent/tools/builtin.ts lists it): its name, bare
// model-facing names, its `cxl tool --policy native-go.KEY=VALUE` flags, and how it opens.
// Opening probes nothing: the go toolchain is looked for on the first call.
import { toolsetFlags } from '../contract/policy_flags.ts';
import type { Toolset } from '../contract/toolset.ts';
import { foundUpwards } from '../paths.ts';
import { NATIVE_GO, parseGoPolicy } from './policy.ts';
import { NativeGoToolset } from './toolset.ts';

export const NATIVE_GO_BUILTIN = Object.freeze({
  name: NATIVE_GO,
  bareNames: true,
  /** offered to the model only in a Go module or workspace (a `go.mod` or `go.work` in the session root or above it): elsewhere its tools cost the context window and answer nothing */
  offeredIn: (root: string) => foundUpwards(root, ['go.mod', 'go.work']),
  fromFlags: (flat: Readonly<Record<string, string>>) => toolsetFlags(flat, NATIVE_GO),
  open(site: { root: string; warn(text: string): void }, policy: Record<string, string> | undefined): { toolset: Toolset } {
    const parsed = parseGoPolicy(policy);
    parsed.warnings.forEach(site.warn);
    return { toolset: new NativeGoToolset({ root: site.root, policy: parsed.policy }) };
  },
});
