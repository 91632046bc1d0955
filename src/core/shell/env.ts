// The environment spawned programs get: an allowlist of what a shell session and the common
// toolchains need (PATH, HOME, the locale, the terminal, temp dirs, certificate bundles, proxies,
// and the variables that say where Go, Rust, Node, Python, Java, Ruby and C toolchains live),
// plus what the person's configuration adds (`shell.env`), minus any value that carries a URL
// with credentials in it, a proxy with a user and password (with or without a scheme), or a
// JVM option setting a password. Such a variable is dropped, not stripped: a proxy without its
// login fails at once with a 407 that names the proxy, where a stripped one would look like a
// network fault. A denylist of secret-looking names let `DB_PASS`, `MYSQL_PWD` and
// `DATABASE_URL=postgres://app:PASS@…` through; an allowlist passes only what is known to be
// needed. Plus settings that stop tools from waiting on a terminal nobody is watching.

/** Exact names passed to every command (when set here). */
export const ENV_ALLOWLIST: readonly string[] = Object.freeze([
  // the session
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TZ', 'TERM', 'COLORTERM', 'NO_COLOR', 'FORCE_COLOR', 'CLICOLOR', 'CI',
  'TMPDIR', 'TEMP', 'TMP', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CONFIG_DIRS', 'XDG_DATA_DIRS',
  'MANPATH', 'INFOPATH', 'DEBIAN_FRONTEND',
  // certificate bundles (a TLS-inspecting proxy's CA) and proxies
  'SSL_CERT_FILE', 'SSL_CERT_DIR', 'NODE_EXTRA_CA_CERTS', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'GIT_SSL_CAINFO', 'PIP_CERT', 'NIX_SSL_CERT_FILE',
  'GRPC_DEFAULT_SSL_ROOTS_FILE_PATH', 'HTTPLIB2_CA_CERTS', 'AWS_CA_BUNDLE',
  'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'no_proxy', 'all_proxy',
  // Go
  'GOPATH', 'GOROOT', 'GOBIN', 'GOCACHE', 'GOMODCACHE', 'GOENV', 'GOFLAGS', 'GOPROXY', 'GOPRIVATE', 'GONOPROXY', 'GONOSUMDB', 'GOSUMDB', 'GOTOOLCHAIN', 'GO111MODULE', 'CGO_ENABLED', 'GOOS', 'GOARCH',
  // Rust
  'CARGO_HOME', 'RUSTUP_HOME', 'RUSTUP_TOOLCHAIN', 'CARGO_TARGET_DIR', 'CARGO_TERM_COLOR', 'CARGO_INCREMENTAL', 'RUSTFLAGS', 'RUST_BACKTRACE', 'RUST_LOG', 'RUSTUP_AUTO_INSTALL',
  // JavaScript
  'NVM_DIR', 'NVM_BIN', 'NVM_INC', 'NODE_PATH', 'COREPACK_HOME', 'PNPM_HOME', 'VOLTA_HOME', 'BUN_INSTALL', 'DENO_DIR', 'DENO_INSTALL_ROOT', 'FNM_DIR',
  // Python
  'VIRTUAL_ENV', 'PYTHONPATH', 'PYTHONHOME', 'PYTHONDONTWRITEBYTECODE', 'PYTHONUNBUFFERED', 'PYTHONIOENCODING', 'PYENV_ROOT', 'PYENV_VERSION',
  'CONDA_PREFIX', 'CONDA_DEFAULT_ENV', 'CONDA_EXE', 'CONDA_PYTHON_EXE', 'CONDA_SHLVL', 'PIP_INDEX_URL', 'PIP_EXTRA_INDEX_URL', 'PIP_FIND_LINKS',
  'PIP_DISABLE_PIP_VERSION_CHECK', 'PIP_DEFAULT_TIMEOUT', 'UV_CACHE_DIR', 'POETRY_HOME',
  // JVM, Ruby, .NET and the rest
  'JAVA_HOME', 'JDK_HOME', 'MAVEN_HOME', 'M2_HOME', 'MAVEN_OPTS', 'GRADLE_HOME', 'GRADLE_USER_HOME', 'GRADLE_OPTS', 'SDKMAN_DIR', 'ANDROID_HOME', 'ANDROID_SDK_ROOT',
  'GEM_HOME', 'GEM_PATH', 'BUNDLE_PATH', 'BUNDLE_GEMFILE', 'RBENV_ROOT', 'RBENV_VERSION', 'DOTNET_ROOT', 'DOTNET_CLI_TELEMETRY_OPTOUT',
  'ASDF_DIR', 'ASDF_DATA_DIR', 'MISE_DATA_DIR', 'HOMEBREW_PREFIX', 'HOMEBREW_CELLAR', 'HOMEBREW_REPOSITORY', 'JULIA_DEPOT_PATH', 'OPAMROOT',
  // C and C++ builds
  'CC', 'CXX', 'CFLAGS', 'CXXFLAGS', 'CPPFLAGS', 'LDFLAGS', 'MAKEFLAGS', 'PKG_CONFIG_PATH', 'CMAKE_PREFIX_PATH', 'LD_LIBRARY_PATH', 'LIBRARY_PATH', 'CPATH', 'C_INCLUDE_PATH', 'CPLUS_INCLUDE_PATH',
  // who an approved commit is by
  'GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL',
]);

/** Name prefixes passed whole: the locale. */
const ALLOWED_PREFIXES = ['LC_'];

const ALLOWED = new Set(ENV_ALLOWLIST);

/** A variable name, or a prefix of names ending in `*`, as `shell.env` takes them. */
export const ENV_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/** True when `name` is passed by the built-in allowlist. */
export function isAllowedName(name: string): boolean {
  return ALLOWED.has(name) || ALLOWED_PREFIXES.some((p) => name.startsWith(p));
}

/** A URL with userinfo (`scheme://user:pass@host`, `https://TOKEN@host`, percent-encoded or not), anywhere in a value. */
const URL_WITH_CREDENTIALS = /[a-z][a-z0-9+.-]*:\/\/[^/\s@]+@/i;

/** True when a value holds a URL with credentials: never passed, whatever its name. */
export function holdsCredentialUrl(value: string): boolean {
  return URL_WITH_CREDENTIALS.test(value);
}

/**
 * Variables whose value is a proxy or a list of hosts and URLs (HTTP_PROXY, https_proxy,
 * ALL_PROXY, NO_PROXY, GOPROXY, npm_config_proxy, …): curl, git, pip, npm and Go take
 * `user:pass@proxy:3128` there without a scheme, so an `@` before the host is userinfo there.
 */
const PROXY_NAME = /proxy$/i;

/** A proxy value with userinfo, with or without a scheme, in any element of a list (`,`, `|` or spaces between). */
export function holdsProxyCredentials(value: string): boolean {
  return value.split(/[\s,|]+/).some((el) => /^[^/?#]*@/.test(el.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')));
}

/**
 * JVM options (MAVEN_OPTS, GRADLE_OPTS, JAVA_TOOL_OPTIONS): a system property holding a password
 * or a token (`-Dhttp.proxyPassword=…`, `-Dorg.gradle.project.repoPassword=…`) is a secret in plain sight.
 */
const JVM_OPTS_NAME = /_OPT(ION)?S$/;
const SECRET_PROPERTY = /-D[^=\s]*(password|passwd|secret|token)[^=\s]*=/i;

function matches(patterns: readonly string[], name: string): boolean {
  return patterns.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : p === name));
}

export interface EnvOptions {
  /** pass the whole environment (no allowlist): a caller that chose so (tests, `keepSecrets`) */
  keepSecrets?: boolean;
  /** names (or `PREFIX_*`) passed beyond the allowlist: the person's `shell.env` */
  allow?: readonly string[];
  /** set or override (applied last, never filtered: the caller chose them) */
  extra?: Record<string, string>;
}

export type DropReason = 'not allowlisted' | 'credentials in a URL' | 'credentials in a proxy' | 'a secret in a JVM option';

/** What a variable is dropped for, or undefined when it is passed. */
export function dropReason(name: string, value: string, opts: Pick<EnvOptions, 'allow'> = {}): DropReason | undefined {
  if (!isAllowedName(name) && !matches(opts.allow ?? [], name)) return 'not allowlisted';
  if (holdsCredentialUrl(value)) return 'credentials in a URL';
  if (PROXY_NAME.test(name) && holdsProxyCredentials(value)) return 'credentials in a proxy';
  if (JVM_OPTS_NAME.test(name) && SECRET_PROPERTY.test(value)) return 'a secret in a JVM option';
  return undefined;
}

/** The environment for a spawned program, built from `base` (normally process.env). */
export function childEnv(base: Record<string, string | undefined>, opts: EnvOptions = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) {
    if (v === undefined) continue;
    if (!opts.keepSecrets && dropReason(k, v, opts) !== undefined) continue;
    out[k] = v;
  }
  // No prompts and no pagers: nobody can answer them.
  out.GIT_TERMINAL_PROMPT = '0';
  out.GIT_PAGER = 'cat';
  out.PAGER = 'cat';
  return { ...out, ...opts.extra };
}
