// native-git as a built-in toolset entry (core/registry/builtin_toolsets.ts lists it): its name,
// bare model-facing names, in the default chain, its policy keys, reads on files.read and the
// four writes on files.write, its `cxl tool --policy native-git.KEY=VALUE` flags, its tools' names,
// and how it opens: the toolset itself is imported when it is opened.
import type { CoreToolset } from '../contract/builtin_toolset.ts';
import { toolsetFlags } from '../contract/policy_flags.ts';
import { foundUpwards } from '../paths.ts';
import { GIT_POLICY_KEYS, NATIVE_GIT, parseGitPolicy } from './policy.ts';
import { GIT_TOOLS } from './tools.ts';

/** What native-git needs of where it is opened. */
export interface GitSite {
  root: string;
  warn(text: string): void;
}

export const NATIVE_GIT_BUILTIN: CoreToolset<GitSite> = Object.freeze({
  name: NATIVE_GIT,
  room: 'native_git',
  bareNames: true,
  policyKeys: Object.keys(GIT_POLICY_KEYS),
  defaultChain: {},
  tools: GIT_TOOLS.map((t) => t.name),
  axis: (tool: string) => (GIT_TOOLS.find((t) => t.name === tool)?.writes ? 'files.write' : 'files.read'),
  /** offered to the model only in a git repository (a `.git` in the session root or above it): elsewhere its tools cost the context window and answer nothing */
  offeredIn: (root: string) => foundUpwards(root, ['.git']),
  fromFlags: (flat: Readonly<Record<string, string>>) => toolsetFlags(flat, NATIVE_GIT),
  async open(site: GitSite, policy: Record<string, string> | undefined) {
    const { NativeGitToolset } = await import('./toolset.ts');
    const parsed = parseGitPolicy(policy);
    parsed.warnings.forEach(site.warn);
    return { toolset: new NativeGitToolset({ root: site.root, policy: parsed.policy }) };
  },
});
