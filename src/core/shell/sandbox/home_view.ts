// What a command the prefix allowlist runs unasked (the read-only profile) sees of the home
// directory: nothing but the toolchains' caches and configs it needs to build and test, read-only.
// A test suite of a cloned repository runs unasked; the home holds other projects, notes, other
// agents' state and dot-dirs nobody has listed, and hiding only what the table names leaves
// everything it does not. An approved command sees the whole home (the table's paths hidden);
// a workspace inside the home stays visible, and a workspace that is the home shows all of it.
// Inside the kept dirs, credential stores are the table's (hidden everywhere); what is listed
// here is what an unasked command reads differently: config files through a copy without their
// credential lines, and code that may carry credentials not at all.
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { isWithin } from '../../paths.ts';
import { scrub, type ScrubFormat } from './scrub.ts';
import { nodeCrypto } from '../../platform/runtime.ts';

/**
 * Paths under $HOME an unasked command may read, by toolchain. Credential stores inside them
 * (`.cargo/credentials.toml`, `.m2/settings.xml`, `.gradle/gradle.properties`, `.ivy2/.credentials`,
 * `.stack/upload/credentials.json`, …) stay hidden by the protected-path table; config files
 * that mix settings a build needs with credentials are bound as scrubbed copies
 * (`HOME_SCRUBBED`); code that may carry credentials is withheld (`HOME_WITHHELD`). Config files
 * that are mostly tokens (`.npmrc`, `.pypirc`, `.config/pip`, `.bundle/config`, `.docker`,
 * `.composer`, `.pub-cache`, `.hex`) are not listed.
 */
export const HOME_TOOLCHAINS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  // git's XDG dir by file: it also holds `credentials` and any file `include.path` names
  git: ['.gitconfig', '.config/git/config', '.config/git/ignore', '.config/git/attributes', '.gitignore', '.gitignore_global', '.gitattributes', '.editorconfig'],
  'programs on PATH': ['.local/bin', 'bin'],
  node: ['.npm', '.nvm', '.node-gyp', '.cache/node-gyp', '.yarn', '.cache/yarn', '.config/yarn', '.local/share/pnpm', '.cache/pnpm', '.config/pnpm', '.bun', '.volta', '.fnm', '.local/share/fnm', '.cache/ms-playwright', '.cache/puppeteer', '.cache/Cypress'],
  deno: ['.deno', '.cache/deno'],
  rust: ['.cargo', '.rustup'],
  go: ['go', '.cache/go-build', '.config/go', 'sdk'],
  python: ['.pyenv', '.local/lib', '.cache/pip', '.cache/pypoetry', '.config/pypoetry', '.cache/uv', '.local/share/uv', '.local/share/virtualenvs', '.virtualenvs', '.local/pipx', '.local/share/pipx', '.conda', 'miniconda3', 'anaconda3', 'miniforge3', 'mambaforge'],
  jvm: ['.m2', '.gradle', '.sdkman', '.jdks', '.ivy2', '.sbt', '.cache/coursier'],
  ruby: ['.rbenv', '.rvm', '.gem', '.local/share/gem'],
  'version managers': ['.asdf', '.tool-versions', '.local/share/mise', '.config/mise'],
  other: ['.dotnet', '.nuget/packages', '.ghcup', '.cabal', '.stack', '.opam', '.elan', '.julia', '.swiftpm', '.cache/bazel', '.ccache', '.cache/ccache', '.cache/zig'],
});

/**
 * Config files inside the kept dirs that hold what a build needs beside what it must not see:
 * an unasked command reads a copy with every line holding a credential left out (scrub.ts).
 * `*` stands for one directory level (a node or python version). Each with where its tool says
 * it keeps the secret.
 */
export const HOME_SCRUBBED: readonly { at: string; format: ScrubFormat; source: string }[] = Object.freeze([
  { at: '.gitconfig', format: 'git', source: 'git-config(1): url.<base>.insteadOf (a token in the URL), http.extraHeader, credential.* (helpers may embed a password), http.proxy, sendemail.smtpPass' },
  { at: '.config/git/config', format: 'git', source: 'git-config(1) FILES: $XDG_CONFIG_HOME/git/config, the same keys' },
  { at: '.cargo/config.toml', format: 'lines', source: 'The Cargo Book, "Configuration": registry.token, registries.<name>.token, credential-provider, http.proxy, source URLs' },
  { at: '.cargo/config', format: 'lines', source: 'The Cargo Book, "Configuration": config without the .toml extension, the same keys' },
  { at: '.config/go/env', format: 'lines', source: 'go help environment, go env -w: GOPROXY URLs with user:pass, written to $XDG_CONFIG_HOME/go/env' },
  { at: '.config/pypoetry/config.toml', format: 'lines', source: 'Poetry docs, "Configuration": repositories.<name>.url, http-basic.<name>' },
  { at: '.config/mise/config.toml', format: 'lines', source: 'mise docs, "Configuration": [env] sets variables (tokens among them) for every command' },
  { at: '.cabal/config', format: 'lines', source: 'cabal-install docs, "Configuration": username, password and password-command for hackage' },
  { at: '.sbt/repositories', format: 'lines', source: 'sbt docs, "Proxy repositories": ~/.sbt/repositories, repository URLs' },
  // npm's global config lives in the prefix of the node a version manager installed
  ...['.nvm/versions/node/*', '.volta/tools/image/node/*', '.fnm/node-versions/*/installation', '.local/share/fnm/node-versions/*/installation', '.asdf/installs/nodejs/*', '.local/share/mise/installs/node/*'].map((prefix) => ({
    at: `${prefix}/etc/npmrc`,
    format: 'lines' as const,
    source: 'npm docs, npmrc: the global config file $PREFIX/etc/npmrc (_authToken, _auth, _password)',
  })),
  // pip reads a virtualenv's own config: the site config file
  ...['.virtualenvs/*', '.local/share/virtualenvs/*', '.pyenv/versions/*', '.local/pipx/venvs/*', '.local/share/pipx/venvs/*'].map((venv) => ({
    at: `${venv}/pip.conf`,
    format: 'lines' as const,
    source: 'pip docs, "Configuration": site config $VIRTUAL_ENV/pip.conf (index-url with user:password)',
  })),
  ...['.conda', 'miniconda3', 'anaconda3', 'miniforge3', 'mambaforge'].map((root) => ({
    at: `${root}/.condarc`,
    format: 'lines' as const,
    source: 'conda docs, "Using the .condarc conda configuration file": channel URLs with tokens (/t/<token>/), proxy_servers',
  })),
]);

/** Files inside the kept dirs an unasked command does not see: code, where credentials cannot be told from the rest. */
export const HOME_WITHHELD: readonly { at: string; source: string }[] = Object.freeze([
  { at: '.gradle/init.gradle', source: 'Gradle docs, "Initialization Scripts": USER_HOME/.gradle/init.gradle (repository credentials in code)' },
  { at: '.gradle/init.gradle.kts', source: 'Gradle docs, "Initialization Scripts": USER_HOME/.gradle/init.gradle.kts' },
  { at: '.gradle/init.d', source: 'Gradle docs, "Initialization Scripts": USER_HOME/.gradle/init.d/*.gradle' },
  { at: '.sbt/*/credentials.sbt', source: 'sbt docs, "Publishing": credentials += Credentials(…) in a global .sbt file' },
]);

const KEEP = Object.values(HOME_TOOLCHAINS).flat();

/** The existing paths a name with `*` segments stands for under `home` (one readdir per `*`). */
export function expandAt(home: string, at: string): string[] {
  let found = [home];
  for (const seg of at.split('/')) {
    const next: string[] = [];
    for (const dir of found) {
      if (seg !== '*') {
        next.push(path.join(dir, seg));
        continue;
      }
      // most homes have none of these: a stat is cheaper than the throw of a missing dir's readdir
      if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) continue;
      try {
        for (const d of readdirSync(dir, { withFileTypes: true })) if (d.isDirectory()) next.push(path.join(dir, d.name));
      } catch {
        // unreadable: nothing under it is shown either
      }
    }
    found = next;
  }
  return found.filter((p) => statSync(p, { throwIfNoEntry: false }) !== undefined);
}

// the scrubbed copies: files of this process only, in a directory nobody else can guess or write
// (a command's /tmp is its own empty one), named by their content, gone when the process ends
let copies: string | undefined;
function copyDir(): string {
  if (copies === undefined) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cxl-home-view-'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    copies = dir;
  }
  return copies;
}

// what a file was found to need, by what it is now (the view is built for every command; a
// file that changed is another key)
const scrubbedBefore = new Map<string, string | undefined>();

/** The scrubbed copy of `file`, or undefined when nothing in it needs leaving out (or it cannot be read). */
function scrubbedCopy(file: string, format: ScrubFormat): string | undefined {
  const st = statSync(file, { throwIfNoEntry: false });
  if (!st?.isFile()) return undefined;
  const key = `${file}\0${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  if (scrubbedBefore.has(key)) return scrubbedBefore.get(key);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const clean = scrub(text, format);
  let copy: string | undefined;
  if (clean !== text) {
    copy = path.join(copyDir(), `${nodeCrypto().createHash('sha256').update(clean).digest('hex').slice(0, 24)}-${path.basename(file)}`);
    if (!statSync(copy, { throwIfNoEntry: false })) writeFileSync(copy, clean, { mode: 0o444 });
  }
  scrubbedBefore.set(key, copy);
  return copy;
}

export interface HomeView {
  /** homes replaced by an empty read-only directory */
  masked: string[];
  /** paths under them bound back read-only (existing ones, real paths; outermost only) */
  keep: string[];
  /** config files shown as a copy with their credential lines left out: `copy` bound over `path` */
  scrubbed: { path: string; copy: string }[];
  /** files and directories under kept paths that stay hidden (HOME_WITHHELD) */
  withheld: { path: string; dir: boolean }[];
}

function real(p: string): string | undefined {
  try {
    return realpathSync.native(p);
  } catch {
    return undefined;
  }
}

/**
 * The homes to mask for the read-only profile and what comes back: a home that a root is or
 * lies under is not masked (the workspace is the home); `/` and homes under the private /tmp
 * are left alone. Scrubbed copies and withheld files apply to every home, masked or not: a
 * workspace that is the home still shows its `.gitconfig` scrubbed to an unasked command.
 */
export function homeView(homes: readonly string[], roots: readonly string[], privateTmp: boolean): HomeView {
  const masked: string[] = [];
  const keep = new Set<string>();
  const scrubbed = new Map<string, string>();
  const withheld = new Map<string, boolean>();
  for (const home of new Set(homes.map((h) => real(h)).filter((h): h is string => h !== undefined))) {
    if (home === '/' || (privateTmp && isWithin('/tmp', home))) continue;
    for (const s of HOME_SCRUBBED) {
      for (const file of expandAt(home, s.at)) {
        const copy = scrubbedCopy(file, s.format);
        if (copy) scrubbed.set(file, copy);
      }
    }
    for (const w of HOME_WITHHELD) for (const p of expandAt(home, w.at)) withheld.set(p, statSync(p).isDirectory());
    if (roots.some((r) => isWithin(r, home))) continue;
    masked.push(home);
    // bound by name (a link is followed to its target, wherever it is): programs open the name
    for (const rel of KEEP) {
      const abs = path.join(home, rel);
      if (statSync(abs, { throwIfNoEntry: false })) keep.add(abs);
    }
  }
  const all = [...keep].sort();
  return {
    masked: masked.sort(),
    keep: all.filter((k) => !all.some((o) => o !== k && isWithin(o, k))),
    scrubbed: [...scrubbed].sort(([a], [b]) => (a < b ? -1 : 1)).map(([p, copy]) => ({ path: p, copy })),
    withheld: [...withheld].sort(([a], [b]) => (a < b ? -1 : 1)).map(([p, dir]) => ({ path: p, dir })),
  };
}
