// What a command the prefix allowlist runs unasked (the read-only profile) sees of the home
// directory: nothing but the toolchains' caches and configs it needs to build and test, read-only.
// A test suite of a cloned repository runs unasked; the home holds other projects, notes, other
// agents' state and dot-dirs nobody has listed, and hiding only what the table names leaves
// everything it does not. An approved command sees the whole home (the table's paths hidden);
// a workspace inside the home stays visible, and a workspace that is the home shows all of it.
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { isWithin } from '../../paths.ts';

/**
 * Paths under $HOME an unasked command may read, by toolchain. Credential files inside them
 * (`.cargo/credentials.toml`, `.m2/settings.xml`, `.gradle/gradle.properties`, …) stay hidden
 * by the protected-path table. Config files that often hold tokens (`.npmrc`, `.pypirc`,
 * `.config/pip`, `.bundle/config`) are not listed.
 */
export const HOME_TOOLCHAINS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  git: ['.gitconfig', '.config/git', '.gitignore', '.gitignore_global', '.gitattributes', '.editorconfig'],
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

const KEEP = Object.values(HOME_TOOLCHAINS).flat();

export interface HomeView {
  /** homes replaced by an empty read-only directory */
  masked: string[];
  /** paths under them bound back read-only (existing ones, real paths; outermost only) */
  keep: string[];
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
 * are left alone.
 */
export function homeView(homes: readonly string[], roots: readonly string[], privateTmp: boolean): HomeView {
  const masked: string[] = [];
  const keep = new Set<string>();
  for (const home of new Set(homes.map((h) => real(h)).filter((h): h is string => h !== undefined))) {
    if (home === '/' || (privateTmp && isWithin('/tmp', home))) continue;
    if (roots.some((r) => isWithin(r, home))) continue;
    masked.push(home);
    // bound by name (a link is followed to its target, wherever it is): programs open the name
    for (const rel of KEEP) {
      const abs = path.join(home, rel);
      if (statSync(abs, { throwIfNoEntry: false })) keep.add(abs);
    }
  }
  const all = [...keep].sort();
  return { masked: masked.sort(), keep: all.filter((k) => !all.some((o) => o !== k && isWithin(o, k))) };
}
