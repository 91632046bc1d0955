// The toolsets cxl brings, in one list: each by name, how the model sees its tools, how `cxl tool`
// flags become its policy, and how it is opened for a session or a `cxl tool` run. Everything else
// a toolset says of itself (its axis for the envelope, its titles, its approvals) it says through
// the contract (core/contract/toolset.ts): adding one is its own folder and one entry here.
import { unprefixedFlags } from '../../core/contract/policy_flags.ts';
import type { Toolset } from '../../core/contract/toolset.ts';
import type { ApprovalMode } from '../../core/local_fs/context.ts';
import type { FileIO } from '../../core/local_fs/file_io.ts';
import type { ReadLedger } from '../../core/local_fs/ledger.ts';
import { DEFAULT_CHAIN_LOCAL_FS, parseFsPolicy } from '../../core/local_fs/policy.ts';
import { LOCAL_FS, LocalFsToolset } from '../../core/local_fs/toolset.ts';
import { NATIVE_GIT_BUILTIN } from '../../core/native_git/builtin.ts';
import { NATIVE_GO_BUILTIN } from '../../core/native_go/builtin.ts';
import { NATIVE_JQ_BUILTIN } from '../../core/native_jq/builtin.ts';
import { LOCAL_SHELL, LocalShell } from '../../core/shell/local_shell.ts';
import { shellPolicyFromFlat, withoutShellOnlyKeys } from '../../core/shell/shell_policy.ts';
import type { TerminalHost } from '../../core/shell/terminal.ts';
import type { MissionBinding } from './mission/binding.ts';
import { MISSION, MissionToolset } from './mission/toolset.ts';

/** Where a toolset is opened: the session's root and the parts it shares with the others. */
export interface ToolsetSite {
  root: string;
  sessionId?: string;
  /** the session's read ledger */
  ledger: ReadLedger;
  /** the content half of the file tools: the client's fs/*, else the workspace itself */
  io?: FileIO;
  /** where commands run: the client's terminals, else this machine */
  host?: TerminalHost;
  /** what the session's mission tools speak for: a unit's mission, or a supervising session */
  mission?: MissionBinding;
  warn(text: string): void;
  /** the session's checkpoints: the file tools' writes go through this IO, and commands are compared around */
  wrapIO?(io: FileIO): FileIO;
  wrapCommands?(toolset: Toolset): Toolset;
}

export interface Opened {
  toolset: Toolset;
  /** the root it confines itself to, where that moves the session's (local_fs's `_allowed_dir`) */
  root?: string;
}

export interface BuiltinToolset {
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
  /** `cxl tool --policy key=value` flags as this toolset's tools_policies */
  fromFlags(flat: Readonly<Record<string, string>>): Record<string, string>;
  /** Opens it with its tools_policies (strings, as configured); throws ToolError when they cannot be used. */
  open(site: ToolsetSite, policy: Record<string, string> | undefined): Opened;
}

// read-approve paths (.env, *.pem) are asked through the gate, per call; outside it nobody can
// answer, so they are refused
const ASK: ApprovalMode = 'ask';

const localFs: BuiltinToolset = {
  name: LOCAL_FS,
  bareNames: true,
  fromFlags: (flat) => ({ ...DEFAULT_CHAIN_LOCAL_FS, ...withoutShellOnlyKeys(unprefixedFlags(flat)) }),
  open(site, policy) {
    const parsed = parseFsPolicy(policy);
    parsed.warnings.forEach(site.warn);
    const opts = { root: site.root, policy: parsed.policy, ledger: site.ledger, sessionId: site.sessionId, io: site.io, approvals: ASK };
    let ts = new LocalFsToolset(opts);
    // the IO is the toolset's own (the workspace under its root) unless the site brings one
    if (site.wrapIO) ts = new LocalFsToolset({ ...opts, io: site.wrapIO(ts.io) });
    return { toolset: ts, root: ts.root };
  },
};

const localShell: BuiltinToolset = {
  name: LOCAL_SHELL,
  bareNames: true,
  fromFlags: shellPolicyFromFlat,
  /**
   * Under a command policy `cd` stays inside the session root unless the policy names another
   * _allowed_dir; no policy at all is the platform shell, unconfined. Without a client terminal
   * the tool is still offered, and refuses naming the capability.
   */
  open(site, policy) {
    const confined = policy && Object.keys(policy).length && policy._allowed_dir === undefined ? { ...policy, _allowed_dir: '.' } : policy;
    const shell = new LocalShell({ root: site.root, policy: confined, host: site.host });
    return { toolset: site.wrapCommands ? site.wrapCommands(shell) : shell };
  },
};

const mission: BuiltinToolset = {
  name: MISSION,
  bareNames: true,
  always: true,
  fromFlags: () => ({}),
  open: (site) => ({ toolset: new MissionToolset(site.mission) }),
};

/** In the order they are opened and offered. */
export const BUILTIN_TOOLSETS: readonly BuiltinToolset[] = Object.freeze([localFs, localShell, NATIVE_GIT_BUILTIN, NATIVE_JQ_BUILTIN, NATIVE_GO_BUILTIN, mission]);

/** Whether a toolset's tools go to the model by their bare names. */
export function offeredBare(toolset: string): boolean {
  return BUILTIN_TOOLSETS.some((b) => b.bareNames && b.name === toolset);
}
