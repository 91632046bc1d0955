// native-git as a built-in toolset entry (agent/tools/builtin.ts lists it): its name, bare
// model-facing names, its `cxl tool --policy native-git.KEY=VALUE` flags, and how it opens.
import { toolsetFlags } from '../contract/policy_flags.ts';
import type { Toolset } from '../contract/toolset.ts';
import { foundUpwards } from '../paths.ts';
import { NATIVE_GIT, parseGitPolicy } from './policy.ts';
import { NativeGitToolset } from './toolset.ts';

export const NATIVE_GIT_BUILTIN = Object.freeze({
  name: NATIVE_GIT,
  bareNames: true,
  /** offered to the model only in a git repository (a `.git` in the session root or above it): elsewhere its tools cost the context window and answer nothing */
  offeredIn: (root: string) => foundUpwards(root, ['.git']),
  fromFlags: (flat: Readonly<Record<string, string>>) => toolsetFlags(flat, NATIVE_GIT),
  /** `wrapCommands`: a session's checkpoints, which compare the workspace around a call that changes it (git_restore, git_checkout_branch) */
  open(site: { root: string; warn(text: string): void; wrapCommands?(t: Toolset): Toolset }, policy: Record<string, string> | undefined): { toolset: Toolset } {
    const parsed = parseGitPolicy(policy);
    parsed.warnings.forEach(site.warn);
    const git = new NativeGitToolset({ root: site.root, policy: parsed.policy });
    return { toolset: site.wrapCommands ? site.wrapCommands(git) : git };
  },
});
