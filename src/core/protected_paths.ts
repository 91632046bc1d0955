// Every path cxl protects, in one table: the credential quarantine, the read-approve list and the
// write wall. The file tools (quarantine.ts), the envelope floor (envelopes_shipped.ts), `cxl
// check`, `cxl config` and the OS sandbox all read it from here, so a path is protected
// everywhere or nowhere. No other file lists a protected path.

/**
 * - `quarantine`: never read, written or listed, by any tool, in any envelope.
 * - `read_approve`: read only after a human says yes; refused where nobody can answer; never traversed.
 * - `write_wall`: never written by a tool, in any envelope.
 * - `always_ask`: written only after a human says yes, in every envelope (files that run code later).
 */
export type ProtectionTier = 'quarantine' | 'read_approve' | 'write_wall' | 'always_ask';

export const TIERS: readonly ProtectionTier[] = ['quarantine', 'read_approve', 'write_wall', 'always_ask'];

export interface ProtectedPath {
  tier: ProtectionTier;
  /** matched case-insensitively against root-relative and absolute `/` paths */
  glob: string;
  /** why it is protected: shown by `cxl config` and in decisions */
  reason: string;
  /** where the path comes from (the owning tool's documentation) */
  source?: string;
  /**
   * Concrete names, relative to $HOME and to the workspace root, that the OS sandbox acts on when
   * they exist: hidden (quarantine, read_approve) or bound read-only (write_wall, always_ask).
   * An entry without `at` (`**\/id_rsa*`) is found by matching its glob.
   */
  at?: readonly string[];
}

const q = (glob: string, reason: string, at?: string[], source?: string): ProtectedPath => ({ tier: 'quarantine', glob, reason, ...(at ? { at } : {}), ...(source ? { source } : {}) });
const wall = (glob: string, reason: string, at?: string[]): ProtectedPath => ({ tier: 'write_wall', glob, reason, ...(at ? { at } : {}) });

const SHELL_STARTUP = ['.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.zshrc', '.zshenv', '.zprofile', '.zlogin', '.zlogout', '.login', '.cshrc', '.tcshrc', '.kshrc', '.inputrc'];
const AGENT_EDITOR_DIRS = ['.vscode', '.claude', '.cursor', '.gemini', '.codex'];

export const PROTECTED_PATHS: readonly ProtectedPath[] = Object.freeze([
  // ── credential quarantine ──
  q('**/.ssh/**', 'SSH keys, agent sockets and host lists', ['.ssh'], 'ssh(1): ~/.ssh'),
  q('**/.gnupg/**', 'GnuPG private keys', ['.gnupg'], 'gpg(1): ~/.gnupg'),
  q('**/.aws/**', 'AWS CLI credentials', ['.aws'], 'AWS CLI docs: ~/.aws/credentials'),
  q('**/.azure/**', 'Azure CLI tokens', ['.azure'], 'Azure CLI docs: ~/.azure'),
  q('**/.kube/**', 'Kubernetes cluster credentials', ['.kube'], 'kubectl docs: ~/.kube/config'),
  q('**/.config/gcloud/**', 'Google Cloud SDK credentials', ['.config/gcloud'], 'gcloud docs: ~/.config/gcloud'),
  q('**/.docker/**', 'Docker registry credentials', ['.docker'], 'docker login docs: ~/.docker/config.json'),
  q('**/.password-store/**', 'pass password store', ['.password-store'], 'pass(1): ~/.password-store'),
  q('**/.local/share/keyrings/**', 'GNOME keyrings', ['.local/share/keyrings'], 'GNOME Keyring: ~/.local/share/keyrings'),
  q('**/.netrc', 'machine passwords for curl, ftp, git', ['.netrc'], 'netrc(5)'),
  q('**/.git-credentials', 'git credential store', ['.git-credentials'], 'git-credential-store(1)'),
  q('**/.npmrc', 'npm registry tokens', ['.npmrc'], 'npm docs: npmrc'),
  q('**/.pypirc', 'PyPI upload tokens', ['.pypirc'], 'PyPA docs: .pypirc'),
  q('**/{.bash_history,.zsh_history,.python_history}', 'shell and REPL histories hold typed secrets', ['.bash_history', '.zsh_history', '.python_history']),
  q('**/{id_rsa,id_dsa,id_ecdsa,id_ed25519}*', 'SSH private keys outside ~/.ssh', undefined, 'ssh-keygen(1) default names'),
  q('**/{*.kdbx,wallet.dat}', 'password databases and wallets'),
  // ── read-approve ──
  { tier: 'read_approve', glob: '**/{*.pem,*.key,.env,.env.*}', reason: 'keys, certificates and environment files often hold secrets' },
  // ── write wall ──
  wall(`**/{${SHELL_STARTUP.join(',')}}`, 'shell start-up files run on every new shell', SHELL_STARTUP),
  wall('**/.config/fish/**', 'fish start-up files run on every new shell', ['.config/fish']),
  // Git internals are written by git itself, never by a file tool. The sandbox cannot wall all of
  // .git (an approved commit writes objects); it re-protects the parts that run code: hooks, config.
  wall('**/.git/**', 'git internals: written by git, never by a tool'),
  wall('**/.git/hooks/**', 'git hooks run on commit, checkout, push', ['.git/hooks']),
  wall('**/.git/config', 'git config can name programs git runs (core.fsmonitor, core.pager, diff.external)', ['.git/config']),
  wall('**/.contenox/**', "the agent's own configuration", ['.contenox']),
  wall(`**/{${AGENT_EDITOR_DIRS.join(',')}}/**`, 'editor and agent configs can run commands or auto-approve tools', AGENT_EDITOR_DIRS),
]);

/** The globs of one tier, in table order. */
export function globsOf(tier: ProtectionTier): readonly string[] {
  return Object.freeze(PROTECTED_PATHS.filter((p) => p.tier === tier).map((p) => p.glob));
}

/** The entries of one tier. */
export function entriesOf(tier: ProtectionTier): readonly ProtectedPath[] {
  return PROTECTED_PATHS.filter((p) => p.tier === tier);
}
