// The one list of the toolsets core brings. The agent's toolsets (agent/tools/builtin.ts), the
// default chain (config/chain.ts), the tools_policies keys (config/schema.ts), `cxl config`'s
// axes and the layering rules (test/layering.test.ts) all derive from it: a new toolset is its
// folder under src/core/ (with a `builtin.ts` entry) and one line here.
import type { CoreToolset } from '../contract/builtin_toolset.ts';
import { LOCAL_FS_BUILTIN, type FsSite } from '../local_fs/builtin.ts';
import { NATIVE_GIT_BUILTIN, type GitSite } from '../native_git/builtin.ts';
import { NATIVE_GO_BUILTIN, type GoSite } from '../native_go/builtin.ts';
import { NATIVE_JQ_BUILTIN, type JqSite } from '../native_jq/builtin.ts';
import { LOCAL_SHELL_BUILTIN, type ShellSite } from '../shell/builtin.ts';

/** Where a built-in toolset is opened: the session's root and the parts it shares with the others (each takes what it needs). */
export type ToolsetSite = FsSite & ShellSite & GitSite & JqSite & GoSite;

/** In the order they are opened and offered. */
export const CORE_TOOLSETS: readonly CoreToolset<ToolsetSite>[] = Object.freeze([
  LOCAL_FS_BUILTIN,
  LOCAL_SHELL_BUILTIN,
  NATIVE_GIT_BUILTIN,
  NATIVE_JQ_BUILTIN,
  NATIVE_GO_BUILTIN,
]);

/** The names of the built-in toolsets core brings. */
export const CORE_TOOLSET_NAMES: readonly string[] = Object.freeze(CORE_TOOLSETS.map((t) => t.name));
