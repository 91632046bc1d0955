// local_shell as a built-in toolset entry (core/registry/builtin_toolsets.ts lists it): bare
// model-facing names, in the default chain under the shipped command policy, its policy keys,
// its flat `cxl tool --policy` flags, its one tool's name, and how it opens: the shell itself
// (local_shell.ts, its checker and argument rules) is imported when it is opened.
import type { CoreToolset } from '../contract/builtin_toolset.ts';
import { LOCAL_SHELL, SHELL_POLICY_KEYS, SHIPPED_SHELL_POLICY, shellPolicyFromFlat } from './shell_policy.ts';
import type { TerminalHost } from './terminal.ts';

/** What local_shell needs of where it is opened. */
export interface ShellSite {
  root: string;
  /** where commands run: the client's terminals, else this machine */
  host?: TerminalHost;
  /** the session's additional directories, checked and canonical (local_fs/extra_roots.ts) */
  extra?: readonly string[];
}

export const LOCAL_SHELL_BUILTIN: CoreToolset<ShellSite> = Object.freeze({
  name: LOCAL_SHELL,
  room: 'shell',
  bareNames: true,
  policyKeys: SHELL_POLICY_KEYS,
  defaultChain: { policy: { _allowed_dir: '.', ...SHIPPED_SHELL_POLICY } },
  tools: [LOCAL_SHELL],
  // each command line is decided on its own facts (the shell axis, prefixes, the blacklist)
  axis: () => undefined,
  fromFlags: shellPolicyFromFlat,
  /**
   * Under a command policy `cd` stays inside the session root unless the policy names another
   * _allowed_dir; no policy at all is the platform shell, unconfined. Without a client terminal
   * the tool is still offered, and refuses naming the capability.
   */
  async open(site: ShellSite, policy: Record<string, string> | undefined) {
    const { LocalShell } = await import('./local_shell.ts');
    const confined = policy && Object.keys(policy).length && policy._allowed_dir === undefined ? { ...policy, _allowed_dir: '.' } : policy;
    return { toolset: new LocalShell({ root: site.root, policy: confined, host: site.host, ...(site.extra?.length ? { extra: site.extra } : {}) }) };
  },
});
