// The credential stores the protected-paths table gained, each as its tool writes it (plus
// nested, absolute and shouted forms): shared by the matcher test and the file-tool test.
export const NEW_CREDENTIALS = [
  '.config/gh/hosts.yml', '.config/gh/config.yml', '.config/hub', '.config/glab-cli/config.yml', '.cargo/credentials.toml', '.cargo/credentials',
  '.pgpass', '.vault-token', '.my.cnf', '.mylogin.cnf', '.terraform.d/credentials.tfrc.json', '.terraformrc', '.oci/config', '.oci/oci_api_key.pem',
  '.config/pnpm/rc', 'Library/Preferences/pnpm/rc', '.config/pypoetry/auth.toml', '.gem/credentials', '.local/share/gem/credentials',
  '.m2/settings.xml', '.m2/settings-security.xml', '.gradle/gradle.properties', '.composer/auth.json', '.config/composer/auth.json',
  '.nuget/NuGet/NuGet.Config', '.config/NuGet/NuGet.Config', '.dockercfg', '.config/containers/auth.json', '.config/helm/registry/config.json',
  '.boto', '.s3cfg', '.config/rclone/rclone.conf', '.aliyun/config.json', '.bluemix/config.json', '.config/doctl/config.yaml', '.config/hcloud/cli.toml',
  '.fly/config.yml', '.config/git/credentials', '.local/share/kwalletd/kdewallet.kwl', 'Library/Keychains/login.keychain-db',
  '.mozilla/firefox/abc.default/logins.json', '.config/google-chrome/Default/Cookies', '.config/chromium/Default/Login Data',
  '.config/BraveSoftware/Brave-Browser/Default/Cookies', '.config/microsoft-edge/Default/Cookies', 'Library/Application Support/Google/Chrome/Default/Cookies',
  'Library/Application Support/Firefox/Profiles/x/key4.db', 'home/u/.config/gh/hosts.yml', '/home/u/.PGPASS', 'deep/a/.Vault-Token',
];

/** Other coding agents' logins, and PuTTY keys: quarantined wherever they are. */
export const AGENT_CREDENTIALS = [
  '.codex/auth.json', '.claude/.credentials.json', '.config/github-copilot/apps.json', '.config/github-copilot/hosts.json', '.gemini/oauth_creds.json',
  '.gemini/mcp-oauth-tokens.json', '.qwen/oauth_creds.json', '.config/Cursor/User/globalStorage/state.vscdb', '.local/share/opencode/auth.json',
  '.config/goose/secrets.yaml', 'Library/Application Support/Cursor/User/globalStorage/state.vscdb', 'deploy/server.ppk', 'home/u/.codex/auth.json',
];

/** Under $HOME only: agents' transcripts and state, cxl's own data dir (a project may hold the same names as ordinary files). */
export const AGENT_HOME_FILES = [
  '.codex/sessions/2025/01/01/rollout.jsonl', '.codex/history.jsonl', '.claude.json', '.claude/projects/-home-u-p/s.jsonl', '.continue/config.yaml',
  '.continue/config.json', '.aider.conf.yml', '.local/share/cxl/sessions/s1.jsonl', '.local/share/cxl/history', '.local/share/cxl',
];
