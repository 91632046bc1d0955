// git run unasked runs with repository-driven execution switched off for that run: no
// fsmonitor, no hooks, no pager, no external diff or textconv, no transport (so no lazy fetch
// through a remote helper), no signature program, no system configuration, no implicitly found
// bare repository, and the repository pinned to the one that was checked (the root's own .git).
import path from 'node:path';
import type { GitStep } from './step_args.ts';

/** `-c` settings put right after `git`: they win over every configuration file. */
export const GIT_READ_ONLY_CONFIG: readonly string[] = [
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'core.pager=cat',
  'protocol.allow=never',
  'log.showSignature=false',
  'safe.bareRepository=explicit',
];

/** Subcommands that diff, where --no-ext-diff and --no-textconv are also given. */
const DIFFING = new Set(['diff', 'log', 'show', 'whatchanged']);

/** The argv that runs: the hardening options inserted after `git` and after its subcommand. */
export function hardenGitArgv(argv: readonly string[], git: GitStep): string[] {
  const out = argv.slice(0, git.at + 1);
  for (const c of GIT_READ_ONLY_CONFIG) out.push('-c', c);
  out.push('--no-pager');
  if (git.sub && DIFFING.has(git.sub.name)) {
    out.push(...argv.slice(git.at + 1, git.sub.index + 1), '--no-ext-diff', '--no-textconv', ...argv.slice(git.sub.index + 1));
  } else out.push(...argv.slice(git.at + 1));
  return out;
}

/** What the hardening sets: a client's terminal sets these over its own environment too. */
export const GIT_READ_ONLY_ENV: readonly string[] = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_CONFIG_NOSYSTEM', 'GIT_NO_LAZY_FETCH', 'GIT_OPTIONAL_LOCKS', 'GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT', 'GIT_TERMINAL_PROMPT', 'GIT_PAGER'];

/**
 * The environment: every GIT_* variable dropped (GIT_DIR, GIT_CONFIG_*, GIT_EXTERNAL_DIFF,
 * GIT_SSH_COMMAND, … could each point git elsewhere), then the repository pinned to `gitDir`,
 * system configuration off, no lazy fetch, no optional index writes, and no `-c` settings from
 * the environment (set empty: a client's terminal cannot drop what its own environment has).
 */
export function hardenGitEnv(env: Record<string, string>, gitDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (!k.startsWith('GIT_')) out[k] = v;
  return {
    ...out,
    GIT_CONFIG_PARAMETERS: '',
    GIT_CONFIG_COUNT: '0',
    GIT_DIR: gitDir,
    GIT_WORK_TREE: path.basename(gitDir) === '.git' ? path.dirname(gitDir) : gitDir,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_NO_LAZY_FETCH: '1',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
  };
}
