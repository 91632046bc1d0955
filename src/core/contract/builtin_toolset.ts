// What a built-in toolset says of itself to the one registry (core/registry/builtin_toolsets.ts):
// its name and folder, how the model sees its tools, whether the default chain offers it and with
// which tools_policies, its policy keys, the axis `cxl config` shows each tool on, its
// `cxl tool --policy` flags, its tools' names, and how it is opened. Everything it says about a call it says
// through the contract (toolset.ts); the agent, the config and the layering test read this.
import type { Axis } from '../envelope/index.ts';
import type { Toolset } from './toolset.ts';

export interface Opened {
  toolset: Toolset;
  /** the root it confines itself to, where that moves the session's (local_fs's `_allowed_dir`) */
  root?: string;
}

/** A built-in toolset, opened at a `Site` (the root and the parts it shares with the others). */
export interface BuiltinToolset<Site> {
  readonly name: string;
  /** its tools are offered to the model by their bare names (`read_file`), not `<toolset>.<tool>` */
  readonly bareNames: boolean;
  /** opened in every session (it offers what its binding allows), not only when a chain's task names it */
  readonly always?: boolean;
  /**
   * Whether a session rooted at `root` offers its tools to the model (native-git in a repository,
   * native-go in a module); absent: everywhere. `cxl tool` reaches them by name wherever it runs.
   */
  offeredIn?(root: string): boolean;
  /** its `tools_policies` keys, as agents.toml and a chain may set them */
  readonly policyKeys: readonly string[];
  /** in the built-in default chain, with these tools_policies (absent: the chain does not name it) */
  readonly defaultChain?: { readonly policy?: Readonly<Record<string, string>> };
  /** the envelope axis a tool of it is decided on with no path (`cxl config`); undefined: each call decides (a command line) */
  axis(tool: string): Axis | undefined;
  /** `cxl tool --policy key=value` flags as this toolset's tools_policies */
  fromFlags(flat: Readonly<Record<string, string>>): Record<string, string>;
  /**
   * The names of the tools it offers, known without opening it (`cxl tool` routes a bare name by
   * them, `cxl config` lists them); absent: open it and ask its list().
   */
  readonly tools?: readonly string[];
  /**
   * Opens it with its tools_policies (strings, as configured); rejects with ToolError when they
   * cannot be used. Asynchronous so a toolset's implementation is imported only when it is opened:
   * a cold `cxl tool stat_file` loads none of local_shell, native-git, native-go or native-jq.
   */
  open(site: Site, policy: Record<string, string> | undefined): Promise<Opened>;
}

/** A built-in toolset of core: its folder under src/core/ and the rooms past the contract's it imports (test/layering.test.ts). */
export interface CoreToolset<Site> extends BuiltinToolset<Site> {
  readonly room: string;
  readonly uses?: readonly string[];
}
