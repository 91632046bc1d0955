// local_fs as a built-in toolset entry (core/registry/builtin_toolsets.ts lists it): bare
// model-facing names, in the default chain with its conservative limits, its policy keys, its
// flat `cxl tool --policy` flags, its tools' names, and how it opens: the toolset itself (toolset.ts
// and the ten tools) is imported when it is opened.
import type { CoreToolset } from '../contract/builtin_toolset.ts';
import { axisOf } from '../envelope/index.ts';
import { unprefixedFlags, withoutShellOnlyKeys } from '../contract/policy_flags.ts';
import type { ApprovalMode } from './context.ts';
import type { FileIO } from './file_io.ts';
import type { ReadLedger } from './ledger.ts';
import { DEFAULT_CHAIN_LOCAL_FS, FS_POLICY_KEYS, LOCAL_FS, parseFsPolicy } from './policy.ts';
import type { LocalFsToolset } from './toolset.ts';

/** What local_fs needs of where it is opened. */
export interface FsSite {
  root: string;
  /** the session's additional directories, checked and canonical (extra_roots.ts) */
  extra?: readonly string[];
  sessionId?: string;
  /** the session's read ledger */
  ledger: ReadLedger;
  /** the content half of the file tools: the client's fs/*, else the workspace itself */
  io?: FileIO;
  warn(text: string): void;
}

// read-approve paths (.env, *.pem) are asked through the gate, per call; outside it nobody can
// answer, so they are refused
const ASK: ApprovalMode = 'ask';

export const LOCAL_FS_BUILTIN: CoreToolset<FsSite> = Object.freeze({
  name: LOCAL_FS,
  room: 'local_fs',
  bareNames: true,
  policyKeys: Object.keys(FS_POLICY_KEYS),
  defaultChain: { policy: { _allowed_dir: '.', ...DEFAULT_CHAIN_LOCAL_FS } },
  // toolset.ts's LOCAL_FS_TOOLS, in its order (test/core/registry/builtin_toolsets.test.ts compares them)
  tools: ['read_file', 'read_file_range', 'write_file', 'edit_file', 'sed', 'list_dir', 'grep', 'find_files', 'stat_file', 'count_stats'],
  axis: (tool: string) => axisOf(LOCAL_FS, tool),
  fromFlags: (flat: Readonly<Record<string, string>>) => ({ ...DEFAULT_CHAIN_LOCAL_FS, ...withoutShellOnlyKeys(unprefixedFlags(flat)) }),
  async open(site: FsSite, policy: Record<string, string> | undefined) {
    const { LocalFsToolset } = await import('./toolset.ts');
    const parsed = parseFsPolicy(policy);
    parsed.warnings.forEach(site.warn);
    // the IO is the toolset's own (the workspace under its root) unless the site brings one
    const ts: LocalFsToolset = new LocalFsToolset({ root: site.root, policy: parsed.policy, ledger: site.ledger, sessionId: site.sessionId, io: site.io, approvals: ASK, ...(site.extra?.length ? { extra: site.extra } : {}) });
    return { toolset: ts, root: ts.root };
  },
});
