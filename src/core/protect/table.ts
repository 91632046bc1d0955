// Every path cxl protects, in one table: the credential quarantine, the read-approve list, the
// write wall and the always-ask tier. The file tools (quarantine.ts), the envelope floor
// (envelopes_shipped.ts), `cxl check`, `cxl config` and the OS sandbox all read it from here, so
// a path is protected everywhere or nowhere. No other file lists a protected path.
// What the filesystem alone can tell (a second name of a protected file, a git dir under another
// name, the hooks dir git config names) is in path_identity.ts and git_dirs.ts.
import os from 'node:os';
import path from 'node:path';
import { dataDir } from '../platform/data_dir.ts';

/**
 * - `quarantine`: never read, written or listed, by any tool, in any envelope.
 * - `read_approve`: read only after a human says yes; refused where nobody can answer; never traversed.
 * - `write_wall`: never written by a tool, in any envelope.
 * - `always_ask`: written only after a human says yes, in every envelope (files that run code
 *   later); "allow for this session" is never offered for them, and a deny still wins.
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
  /**
   * The entry is about the user's home only: the glob's leading `**\/` stands for `$HOME/`, and
   * `at` is relative to $HOME only. A project file of the same name is not this entry (a
   * project's `.yarnrc.yml` is ordinary; `~/.yarnrc.yml` holds registry tokens).
   */
  home?: true;
}

interface Extra {
  at?: string[];
  source?: string;
  home?: true;
}

const entry = (tier: ProtectionTier) => (glob: string, reason: string, extra: Extra = {}): ProtectedPath => ({
  tier,
  glob,
  reason,
  ...(extra.source ? { source: extra.source } : {}),
  ...(extra.at ? { at: extra.at } : {}),
  ...(extra.home ? { home: true as const } : {}),
});
const q = entry('quarantine');
const approve = entry('read_approve');
const wall = entry('write_wall');
const ask = entry('always_ask');

const SHELL_STARTUP = ['.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.bash_aliases', '.profile', '.zshrc', '.zshenv', '.zprofile', '.zlogin', '.zlogout', '.login', '.cshrc', '.tcshrc', '.kshrc', '.inputrc'];
const X_STARTUP = ['.xprofile', '.xinitrc', '.xsession', '.xsessionrc'];
const AGENT_EDITOR_DIRS = ['.vscode', '.idea', '.zed', '.claude', '.cursor', '.gemini', '.codex', '.windsurf', '.continue', '.amazonq'];
const CHROMIUM_LINUX = ['.config/google-chrome', '.config/chromium', '.config/BraveSoftware', '.config/microsoft-edge'];
const BROWSERS_MAC = ['Library/Application Support/Google/Chrome', 'Library/Application Support/Chromium', 'Library/Application Support/BraveSoftware', 'Library/Application Support/Microsoft Edge', 'Library/Application Support/Firefox'];
/** cxl's data dir under $HOME when XDG_DATA_HOME does not move it (core/platform/data_dir.ts). */
const DATA_AT = '.local/share/cxl';
const braces = (names: readonly string[]) => (names.length === 1 ? names[0] : `{${names.join(',')}}`);

export const PROTECTED_PATHS: readonly ProtectedPath[] = Object.freeze([
  // ── credential quarantine: each path is where the tool's own documentation says it keeps secrets ──
  q('**/.ssh/**', 'SSH keys, agent sockets and host lists', { at: ['.ssh'], source: 'ssh(1) FILES: ~/.ssh' }),
  q('**/.gnupg/**', 'GnuPG private keys', { at: ['.gnupg'], source: 'gpg(1) FILES: ~/.gnupg' }),
  q('**/{id_rsa,id_dsa,id_ecdsa,id_ed25519}*', 'SSH private keys outside ~/.ssh', { source: 'ssh-keygen(1): default key file names' }),
  // cloud CLIs
  q('**/.aws/**', 'AWS CLI credentials', { at: ['.aws'], source: 'AWS CLI User Guide, "Configuration and credential file settings": ~/.aws/credentials' }),
  q('**/.config/gcloud/**', 'Google Cloud SDK credentials', { at: ['.config/gcloud'], source: 'gcloud topic configurations: ~/.config/gcloud' }),
  q('**/.boto', 'gsutil and boto credentials', { at: ['.boto'], source: 'gsutil docs, "The boto configuration file": ~/.boto' }),
  q('**/.azure/**', 'Azure CLI tokens', { at: ['.azure'], source: 'Azure CLI docs, "CLI configuration": ~/.azure' }),
  q('**/.oci/**', 'Oracle Cloud CLI config and API signing keys', { at: ['.oci'], source: 'OCI CLI docs, "SDK and CLI Configuration File": ~/.oci/config' }),
  q('**/.aliyun/**', 'Alibaba Cloud CLI credentials', { at: ['.aliyun'], source: 'Alibaba Cloud CLI docs: ~/.aliyun/config.json' }),
  q('**/.bluemix/**', 'IBM Cloud CLI tokens', { at: ['.bluemix'], source: 'IBM Cloud CLI docs: ~/.bluemix/config.json' }),
  q('**/.config/doctl/**', 'DigitalOcean CLI access tokens', { at: ['.config/doctl'], source: 'doctl docs, "doctl auth init": ~/.config/doctl/config.yaml' }),
  q('**/.config/hcloud/**', 'Hetzner Cloud CLI tokens', { at: ['.config/hcloud'], source: 'hcloud README, "Configuration": ~/.config/hcloud/cli.toml' }),
  q('**/.fly/**', 'Fly.io CLI access token', { at: ['.fly'], source: 'flyctl docs, "fly auth login": ~/.fly/config.yml' }),
  q('**/.kube/**', 'Kubernetes cluster credentials', { at: ['.kube'], source: 'kubectl docs, "Organizing Cluster Access": ~/.kube/config' }),
  q('**/.config/helm/registry/**', 'Helm OCI registry logins', { at: ['.config/helm/registry'], source: 'helm registry login: $HELM_REGISTRY_CONFIG, ~/.config/helm/registry/config.json' }),
  q('**/.docker/**', 'Docker registry credentials', { at: ['.docker'], source: 'docker login docs: ~/.docker/config.json' }),
  q('**/.dockercfg', 'legacy Docker registry credentials', { at: ['.dockercfg'], source: 'docker login docs: ~/.dockercfg (before config.json)' }),
  q('**/.config/containers/auth.json', 'Podman, Buildah and Skopeo registry logins', { at: ['.config/containers/auth.json'], source: 'containers-auth.json(5): $HOME/.config/containers/auth.json' }),
  q('**/.terraform.d/credentials*', 'Terraform Cloud and Enterprise API tokens', { at: ['.terraform.d/credentials.tfrc.json'], source: 'terraform login docs: ~/.terraform.d/credentials.tfrc.json' }),
  q('**/.terraformrc', 'Terraform CLI config (credentials blocks)', { at: ['.terraformrc'], source: 'Terraform docs, "CLI Configuration File": ~/.terraformrc, credentials blocks' }),
  q('**/.vault-token', 'HashiCorp Vault token', { at: ['.vault-token'], source: 'Vault docs, "Token helpers": the default helper stores ~/.vault-token' }),
  q('**/.s3cfg', 's3cmd access keys', { at: ['.s3cfg'], source: 's3cmd --configure: ~/.s3cfg' }),
  q('**/.config/rclone/rclone.conf', 'rclone remotes with their credentials', { at: ['.config/rclone/rclone.conf'], source: 'rclone docs, "Configuration file": ~/.config/rclone/rclone.conf' }),
  // forges and git
  q('**/.netrc', 'machine passwords for curl, ftp, git', { at: ['.netrc'], source: 'netrc(5); curl --netrc' }),
  q('**/.git-credentials', 'git credential store', { at: ['.git-credentials'], source: 'git-credential-store(1): ~/.git-credentials' }),
  q('**/.config/git/credentials', 'git credential store (XDG location)', { at: ['.config/git/credentials'], source: 'git-credential-store(1): $XDG_CONFIG_HOME/git/credentials' }),
  q('**/.config/gh/**', 'GitHub CLI tokens (hosts.yml) and aliases that run commands', { at: ['.config/gh'], source: 'gh help environment: GH_CONFIG_DIR, default ~/.config/gh' }),
  q('**/.config/hub', 'hub (GitHub) OAuth token', { at: ['.config/hub'], source: 'hub(1) ENVIRONMENT: HUB_CONFIG, default ~/.config/hub' }),
  q('**/.config/glab-cli/**', 'GitLab CLI tokens', { at: ['.config/glab-cli'], source: 'GitLab CLI docs, "Configure the CLI": ~/.config/glab-cli/config.yml' }),
  // package registries
  q('**/.npmrc', 'npm and pnpm registry tokens', { at: ['.npmrc'], source: 'npm docs, npmrc: ~/.npmrc and per-project .npmrc (_authToken)' }),
  q('**/{.config/pnpm/rc,Library/Preferences/pnpm/rc}', 'pnpm global config (registry tokens)', { at: ['.config/pnpm/rc', 'Library/Preferences/pnpm/rc'], source: 'pnpm docs, pnpm config: ~/.config/pnpm/rc (macOS ~/Library/Preferences/pnpm/rc)' }),
  q('**/.yarnrc.yml', "Yarn's user config, where `yarn npm login` keeps registry tokens", { at: ['.yarnrc.yml'], home: true, source: 'Yarn docs, yarn npm login: tokens go to the home folder config, never the project' }),
  q('**/.pypirc', 'PyPI upload tokens', { at: ['.pypirc'], source: 'PyPA docs, "The .pypirc file"' }),
  q('**/{.config/pypoetry,Library/Application Support/pypoetry}/auth.toml', 'Poetry repository credentials', { at: ['.config/pypoetry/auth.toml', 'Library/Application Support/pypoetry/auth.toml'], source: 'Poetry docs, "Repositories": auth.toml in the config dir when no keyring' }),
  q('**/.cargo/{credentials,credentials.toml}', 'crates.io tokens', { at: ['.cargo/credentials', '.cargo/credentials.toml'], source: 'The Cargo Book, "cargo login": $CARGO_HOME/credentials.toml' }),
  q('**/{.gem,.local/share/gem}/credentials', 'RubyGems API keys', { at: ['.gem/credentials', '.local/share/gem/credentials'], source: 'RubyGems guides, "gem signin": ~/.gem/credentials' }),
  q('**/.m2/{settings.xml,settings-security.xml}', 'Maven server passwords and their master password', { at: ['.m2/settings.xml', '.m2/settings-security.xml'], source: 'Maven docs, "Settings Reference" and "Password Encryption"' }),
  q('**/.gradle/gradle.properties', 'Gradle user properties (repository and signing credentials)', { at: ['.gradle/gradle.properties'], source: 'Gradle docs, "Gradle properties": GRADLE_USER_HOME/gradle.properties' }),
  q('**/{.composer,.config/composer}/auth.json', 'Composer repository tokens', { at: ['.composer/auth.json', '.config/composer/auth.json'], source: 'Composer docs, "Authentication for privately hosted packages": COMPOSER_HOME/auth.json' }),
  q('**/{.nuget/NuGet,.config/NuGet}/NuGet.Config', 'NuGet feed credentials', { at: ['.nuget/NuGet/NuGet.Config', '.config/NuGet/NuGet.Config'], source: 'NuGet docs, "Common NuGet configurations": user-level NuGet.Config, packageSourceCredentials' }),
  q('**/{.ivy2,.sbt}/.credentials', 'sbt and Ivy repository credentials', { at: ['.ivy2/.credentials', '.sbt/.credentials'], source: 'sbt docs, "Publishing": credentials += Credentials(Path.userHome / ".sbt" / ".credentials"), commonly ~/.ivy2/.credentials' }),
  q('**/.stack/upload/credentials.json', 'Hackage login saved by stack upload', { at: ['.stack/upload/credentials.json'], source: 'stack docs, "stack upload": username and password saved to ~/.stack/upload/credentials.json' }),
  q('**/.local/share/uv/credentials/**', 'uv package index credentials', { at: ['.local/share/uv/credentials'], source: 'uv docs, "HTTP credentials": uv auth login stores them in ~/.local/share/uv/credentials/credentials.toml' }),
  q('**/.julia/servers/**', 'Julia package server tokens', { at: ['.julia/servers'], source: 'Pkg.jl (PlatformEngines): the depot\'s servers/<server>/auth.toml holds the server\'s access and refresh tokens' }),
  q('**/{.config/dart/pub-credentials.json,.pub-cache/credentials.json}', 'Dart pub publishing credentials', { at: ['.config/dart/pub-credentials.json', '.pub-cache/credentials.json'], source: 'Dart docs, "dart pub token" and publishing: $XDG_CONFIG_HOME/dart/pub-credentials.json (before: ~/.pub-cache/credentials.json)' }),
  // databases
  q('**/.pgpass', 'PostgreSQL passwords', { at: ['.pgpass'], source: 'PostgreSQL docs, libpq "The Password File": ~/.pgpass' }),
  q('**/{.my.cnf,.mylogin.cnf}', 'MySQL client passwords', { at: ['.my.cnf', '.mylogin.cnf'], source: 'MySQL docs, "Using Option Files" (~/.my.cnf) and mysql_config_editor (~/.mylogin.cnf)' }),
  // password stores, keyrings, browser profiles
  q('**/.password-store/**', 'pass password store', { at: ['.password-store'], source: 'pass(1): ~/.password-store' }),
  q('**/{*.kdbx,wallet.dat}', 'password databases and wallets', { source: 'KeePass database format; Bitcoin Core wallet.dat' }),
  q('**/.local/share/keyrings/**', 'GNOME keyrings', { at: ['.local/share/keyrings'], source: 'GNOME Keyring docs: ~/.local/share/keyrings' }),
  q('**/.local/share/kwalletd/**', 'KDE wallets', { at: ['.local/share/kwalletd'], source: 'KWallet docs: ~/.local/share/kwalletd' }),
  q('**/Library/Keychains/**', 'macOS keychains', { at: ['Library/Keychains'], source: 'Keychain Access User Guide: ~/Library/Keychains' }),
  q('**/.mozilla/**', 'Firefox profiles: saved logins, cookies, session tokens', { at: ['.mozilla'], source: 'Mozilla support, "Profiles - Where Firefox stores your bookmarks, passwords…": ~/.mozilla/firefox' }),
  q(`**/${braces(CHROMIUM_LINUX)}/**`, 'Chromium-family browser profiles: saved logins, cookies, session tokens', { at: CHROMIUM_LINUX, source: 'Chromium docs, "User Data Directory" (Linux: ~/.config/google-chrome, chromium, BraveSoftware, microsoft-edge)' }),
  q(`**/${braces(BROWSERS_MAC)}/**`, 'browser profiles on macOS: saved logins, cookies, session tokens', { at: BROWSERS_MAC, source: 'Chromium docs, "User Data Directory" (Mac); Mozilla support, "Profiles"' }),
  q('**/{.bash_history,.zsh_history,.python_history}', 'shell and REPL histories hold typed secrets', { at: ['.bash_history', '.zsh_history', '.python_history'], source: 'bash(1) HISTFILE; zsh docs HISTFILE; python(1) readline history' }),
  q('**/*.ppk', 'PuTTY private keys', { source: 'PuTTY manual, "PuTTYgen": private keys saved as .ppk files' }),
  // other coding agents: their logins, and what their sessions saw
  q('**/.codex/auth.json', 'Codex CLI login (OpenAI API key or ChatGPT tokens)', { at: ['.codex/auth.json'], source: 'Codex docs, "Authentication": $CODEX_HOME/auth.json, default ~/.codex/auth.json' }),
  q('**/.codex/{sessions/**,history.jsonl}', 'Codex CLI transcripts: every file and command output its sessions saw', { at: ['.codex/sessions', '.codex/history.jsonl'], home: true, source: 'Codex docs, "Configuration": rollouts in ~/.codex/sessions, history in ~/.codex/history.jsonl' }),
  q('**/.claude/.credentials.json', 'Claude Code login (OAuth tokens)', { at: ['.claude/.credentials.json'], source: 'Claude Code docs, "Identity and Access Management": credentials in ~/.claude/.credentials.json on Linux' }),
  q('**/{.claude.json,.claude/projects/**}', "Claude Code's state (account, MCP servers with their env) and session transcripts", { at: ['.claude.json', '.claude/projects'], home: true, source: 'Claude Code docs, "Settings": ~/.claude.json; transcripts in ~/.claude/projects' }),
  q('**/.config/github-copilot/**', 'GitHub Copilot OAuth tokens (apps.json, hosts.json)', { at: ['.config/github-copilot'], source: 'GitHub Copilot for Vim/Neovim and Copilot CLI: tokens in ~/.config/github-copilot' }),
  q('**/.gemini/{oauth_creds.json,mcp-oauth-tokens.json}', 'Gemini CLI login and MCP server tokens', { at: ['.gemini/oauth_creds.json', '.gemini/mcp-oauth-tokens.json'], source: 'Gemini CLI docs, "Authentication": cached credentials in ~/.gemini/oauth_creds.json' }),
  q('**/.qwen/oauth_creds.json', 'Qwen Code login', { at: ['.qwen/oauth_creds.json'], source: 'Qwen Code (a Gemini CLI fork): ~/.qwen/oauth_creds.json' }),
  q('**/{.config/Cursor,Library/Application Support/Cursor}/User/globalStorage/**', 'Cursor login (cursorAuth tokens in state.vscdb)', { at: ['.config/Cursor/User/globalStorage', 'Library/Application Support/Cursor/User/globalStorage'], source: 'Cursor (a VS Code fork): User/globalStorage/state.vscdb holds cursorAuth/accessToken' }),
  q('**/.local/share/opencode/auth.json', 'opencode provider logins and API keys', { at: ['.local/share/opencode/auth.json'], source: 'opencode docs, "Providers": credentials in ~/.local/share/opencode/auth.json' }),
  q('**/.continue/{config.json,config.yaml}', "Continue's model list with API keys", { at: ['.continue/config.json', '.continue/config.yaml'], home: true, source: 'Continue docs, config.yaml reference: models[].apiKey, in ~/.continue' }),
  q('**/.aider.conf.yml', "aider's settings, where API keys may be set", { at: ['.aider.conf.yml'], home: true, source: 'aider docs, "YAML config file": ~/.aider.conf.yml, openai-api-key and api-key' }),
  q('**/.config/goose/secrets.yaml', "goose's provider keys when no keyring is available", { at: ['.config/goose/secrets.yaml'], source: 'goose docs, "Configuration": secrets.yaml beside config.yaml without a keyring' }),
  // cxl's own data: session logs hold what a person approved reading in any project
  q(`**/${DATA_AT}/**`, "cxl's own sessions, prompt history and checkpoints (another project's approved reads)", { at: [DATA_AT], home: true, source: 'core/platform/data_dir.ts: $XDG_DATA_HOME/cxl, default ~/.local/share/cxl' }),
  // ── read-approve ──
  approve('**/{*.pem,*.key,.env,.env.*}', 'keys, certificates and environment files often hold secrets'),
  approve('**/.envrc', "direnv's exports: tokens and passwords set for the directory", { source: 'direnv(1): .envrc exports variables on entering the directory' }),
  // ── write wall ──
  wall(`**/${braces(SHELL_STARTUP)}`, 'shell start-up and alias files run on every new shell', { at: SHELL_STARTUP, source: 'bash(1) INVOCATION; zsh(1) STARTUP/SHUTDOWN FILES; csh(1); readline(3)' }),
  wall('**/.config/fish/**', 'fish start-up files run on every new shell', { at: ['.config/fish'], source: 'fish docs, "Configuration files": ~/.config/fish' }),
  wall(`**/${braces(X_STARTUP)}`, 'X session start-up files run at every graphical login', { at: X_STARTUP, source: 'Xsession(5); startx(1)' }),
  // Git internals are written by git itself, never by a file tool. The sandbox cannot wall all of
  // .git (an approved commit writes objects); it re-protects the parts that run code: hooks, config.
  // A git dir under another name (a bare `x.git`) is found by shape in git_dirs.ts.
  wall('**/.git/**', 'git internals: written by git, never by a tool', { source: 'gitrepository-layout(5)' }),
  wall('**/.git/hooks/**', 'git hooks run on commit, checkout, push', { at: ['.git/hooks'], source: 'githooks(5)' }),
  wall('**/.git/config', 'git config can name programs git runs (core.fsmonitor, core.pager, diff.external)', { at: ['.git/config'], source: 'git-config(1)' }),
  wall('**/.gitconfig', 'git config can name programs git runs and the hooks dir (core.hooksPath)', { at: ['.gitconfig'], source: 'git-config(1) FILES: ~/.gitconfig' }),
  wall('**/.config/git/**', 'git config can name programs git runs and the hooks dir (core.hooksPath)', { at: ['.config/git'], source: 'git-config(1) FILES: $XDG_CONFIG_HOME/git/config' }),
  wall('**/.contenox/**', "the agent's own configuration", { at: ['.contenox'] }),
  wall(`**/${braces(AGENT_EDITOR_DIRS)}/**`, 'editor and agent configs can run commands or auto-approve tools', { at: AGENT_EDITOR_DIRS, source: 'VS Code tasks (runOn folderOpen), JetBrains run configurations, Zed tasks, agent settings and hooks' }),
  wall('**/.mcp.json', 'project MCP server list: each entry is a command an agent starts', { at: ['.mcp.json'], source: 'Model Context Protocol clients: project-scoped .mcp.json' }),
  // ── always ask: written only after a human says yes; they run code later. Ordinary project
  // files that run code when someone asks (Makefile, package.json scripts) are not here. ──
  ask('**/.husky/**', 'husky hook scripts run on git commit and push', { at: ['.husky'], source: 'husky docs: hooks in .husky/, run through core.hooksPath' }),
  ask('**/.githooks/**', 'the conventional core.hooksPath dir: its scripts run on git commit and push', { at: ['.githooks'], source: 'git-config(1) core.hooksPath; githooks(5)' }),
  ask('**/.envrc', 'direnv runs .envrc in your shell on cd', { at: ['.envrc'], source: 'direnv(1): .envrc is loaded on entering the directory' }),
  ask('**/{.yarnrc,.yarnrc.yml}', 'Yarn runs the file yarnPath / yarn-path names', { at: ['.yarnrc', '.yarnrc.yml'], source: 'Yarn docs, .yarnrc.yml yarnPath; Yarn classic .yarnrc yarn-path' }),
  ask('**/{.devcontainer/**,.devcontainer.json}', 'dev container commands run on the host and in the container (initializeCommand, postCreateCommand)', { at: ['.devcontainer', '.devcontainer.json'], source: 'Dev Container specification, lifecycle scripts' }),
  ask('**/.local/bin/**', 'on PATH: a program here runs instead of the one you meant', { at: ['.local/bin'], source: 'file-hierarchy(7): ~/.local/bin; Debian /etc/skel/.profile' }),
  ask('**/bin/**', '~/bin is on PATH: a program here runs instead of the one you meant', { at: ['bin'], home: true, source: 'Debian /etc/skel/.profile adds ~/bin to PATH' }),
  ask('**/.config/autostart/**', 'desktop autostart entries run at every login', { at: ['.config/autostart'], source: 'XDG Autostart Specification: $XDG_CONFIG_HOME/autostart' }),
  ask('**/.config/systemd/user/**', 'systemd user units run at login or on a timer', { at: ['.config/systemd/user'], source: 'systemd.unit(5): ~/.config/systemd/user' }),
  ask('**/Library/LaunchAgents/**', 'launchd agents run at every macOS login', { at: ['Library/LaunchAgents'], source: 'launchd.plist(5): ~/Library/LaunchAgents' }),
]);

/** An absolute directory as a glob prefix (`**\/home/u`): matches the absolute path with or without its leading `/`. */
export function absolutePrefix(dir: string): string | null {
  const segs = dir.split('/').filter(Boolean);
  if (segs.length === 0) return null; // `/` : nothing to anchor to
  return `**/${segs.map((s) => s.replace(/[\\*?{}[\]]/g, '\\$&')).join('/')}`;
}
const homePrefix = absolutePrefix;

/**
 * cxl's data dir as the quarantine glob, when XDG_DATA_HOME puts it outside the home (the
 * table's own entry covers ~/.local/share/cxl); null when the table's entry covers it.
 */
export function ownDataGlob(env: Record<string, string | undefined>, home: string = os.homedir()): string | null {
  const dir = dataDir(env);
  if (dir === path.join(env.HOME || home, DATA_AT)) return null;
  const prefix = absolutePrefix(dir);
  return prefix === null ? null : `${prefix}/**`;
}

/** The glob an entry is matched with: its own, or for a `home` entry the same anchored at `home`. */
export function matchGlob(e: ProtectedPath, home: string = os.homedir()): string {
  if (!e.home) return e.glob;
  const prefix = homePrefix(home);
  return prefix === null ? e.glob : `${prefix}/${e.glob.slice(3)}`;
}

/** The match globs of one tier, in table order (a `home` entry anchored at $HOME). */
export function globsOf(tier: ProtectionTier, home?: string): readonly string[] {
  return Object.freeze(PROTECTED_PATHS.filter((p) => p.tier === tier).map((p) => matchGlob(p, home)));
}

/** The entries of one tier. */
export function entriesOf(tier: ProtectionTier): readonly ProtectedPath[] {
  return PROTECTED_PATHS.filter((p) => p.tier === tier);
}

/** How an entry's pattern is shown to people: a `home` entry as `~/…`. */
export function shownPattern(e: ProtectedPath): string {
  return e.home ? `~/${e.glob.slice(3)}` : e.glob;
}

/**
 * Protections that no glob can state, found on the filesystem (git_dirs.ts, path_identity.ts):
 * listed next to the table by `cxl config` and the docs.
 */
export const FOUND_ON_DISK: readonly { tier: ProtectionTier; pattern: string; reason: string }[] = Object.freeze([
  { tier: 'quarantine', pattern: "(cxl's data dir: $XDG_DATA_HOME/cxl)", reason: "cxl's own sessions, prompt history and checkpoints, wherever XDG_DATA_HOME puts them" },
  { tier: 'quarantine', pattern: '(a second name of a quarantined file)', reason: 'a hard link is the same file: it is read, listed and searched as the file it links to' },
  { tier: 'read_approve', pattern: '(a second name of a read-approve file)', reason: 'a hard link is the same file: reading it asks like the file it links to' },
  { tier: 'write_wall', pattern: '(any git dir: HEAD, objects and refs)', reason: 'git internals wherever a git dir is, not only one named .git' },
  { tier: 'write_wall', pattern: '(any git dir: config, hooks, commondir, gitdir; any .git file)', reason: "read-only to commands too, in submodules', linked worktrees' and nested repositories' git dirs: they name what git runs" },
  { tier: 'always_ask', pattern: '(the dir core.hooksPath names)', reason: 'git runs its scripts as hooks on commit and push' },
]);

/**
 * Where local services listen outside any home and any workspace, hidden from every sandboxed
 * command (a file is bound over each that exists). The sandbox's unix-socket filter already
 * refuses every connection (shell/sandbox/seccomp.ts); hiding them also covers a sandbox that
 * reads paths only (macOS). The per-user runtime dir (`$XDG_RUNTIME_DIR`, `/run/user/UID`:
 * agent sockets, the session bus, podman's login) is hidden whole.
 */
export const SERVICE_SOCKETS: readonly { path: string; reason: string; source: string }[] = Object.freeze([
  { path: '/run/docker.sock', reason: 'the Docker daemon: whoever connects is root on the machine', source: 'dockerd(8) --host: default unix:///var/run/docker.sock (/var/run is /run)' },
  { path: '/var/run/docker.sock', reason: 'the Docker daemon: whoever connects is root on the machine', source: 'dockerd(8) --host: default unix:///var/run/docker.sock' },
  { path: '/run/containerd/containerd.sock', reason: 'containerd: starts containers as root', source: 'containerd config: grpc.address' },
  { path: '/run/podman/podman.sock', reason: 'the rootful Podman API', source: 'podman-system-service(1): unix:///run/podman/podman.sock' },
  { path: '/run/dbus/system_bus_socket', reason: 'the D-Bus system bus (systemd, polkit, NetworkManager)', source: 'dbus-daemon(1): unix:path=/run/dbus/system_bus_socket' },
]);

/** The per-user runtime dir, hidden whole: as `cxl config` lists it. */
export const RUNTIME_DIR_ROW = { pattern: '$XDG_RUNTIME_DIR, /run/user/UID', reason: 'agent sockets (ssh, gpg), the session bus (Secret Service), Wayland and PulseAudio sockets, podman registry logins', source: 'XDG Base Directory Specification: XDG_RUNTIME_DIR; pam_systemd(8): /run/user/$UID' };

/** What the filesystem says about a path beyond its name (a git dir by shape, the hooks dir git config names). */
export interface ProtectedFact {
  tier: 'write_wall' | 'always_ask';
  /** the path as shown */
  path: string;
  /** what it was found to be, for the sentence: "inside the git dir `bare.git`" */
  why: string;
}
