// git's read-only subcommands (the ones `default` runs unasked: status, log, diff, show,
// branch --show-current, rev-parse): flag allowlists. --output writes a file; --ext-diff and
// --textconv run programs that configuration names; --show-signature runs gpg. Operands are
// revisions, `REV:path` and pathspecs, which git.ts turns into paths for the path rules.
import { ask, flags, optional, reads, refuse, text } from './build.ts';
import type { Opt, Rules } from './types.ts';
import { gitOperands } from './git_paths.ts';

const DIFF: Opt[] = [
  flags('-p', '-u', '--patch', '-s', '--no-patch', '--raw', '--patch-with-raw', '--patch-with-stat', '--indent-heuristic', '--no-indent-heuristic', '--minimal', '--patience'),
  flags('--histogram', '--compact-summary', '--numstat', '--shortstat', '--cumulative', '--summary', '--name-only', '--name-status', '--no-color', '--no-color-moved'),
  flags('--no-color-moved-ws', '--no-renames', '--rename-empty', '--no-rename-empty', '--check', '--full-index', '--binary', '--find-copies-harder', '-D', '--irreversible-delete'),
  flags('--pickaxe-all', '--pickaxe-regex', '-R', '--no-relative', '-a', '--text', '--ignore-cr-at-eol', '--ignore-space-at-eol', '-b', '--ignore-space-change', '-w', '--ignore-all-space'),
  flags('--ignore-blank-lines', '-W', '--function-context', '--exit-code', '--quiet', '--no-ext-diff', '--no-textconv', '--no-prefix', '--default-prefix', '--ita-invisible-in-index'),
  flags('--ita-visible-in-index', '-z', '-c', '--cc', '--combined-all-paths', '-m', '--no-diff-merges', '--remerge-diff', '--dd', '-t', '-1', '-2', '-3', '-0', '--base', '--ours', '--theirs'),
  optional('--stat', '--dirstat', '--submodule', '--color', '--color-moved', '--word-diff', '--color-words', '--abbrev', '-B', '--break-rewrites', '-M', '--find-renames', '-C'),
  optional('--find-copies', '--relative', '--ignore-submodules', '-l'),
  text('--color-moved-ws', '--word-diff-regex', '--ws-error-highlight', '--diff-filter', '-S', '-G', '--find-object', '--skip-to', '--rotate-to', '-I', '--ignore-matching-lines'),
  text('--inter-hunk-context', '--src-prefix', '--dst-prefix', '--line-prefix', '-U', '--unified', '--output-indicator-new', '--output-indicator-old', '--output-indicator-context'),
  text('--anchored', '--diff-algorithm', '--stat-width', '--stat-name-width', '--stat-graph-width', '--stat-count', '--diff-merges'),
  reads('-O'),
  refuse('writes the output to a file', ['--output'], { arg: 'required', kind: 'write' }),
  refuse('runs the external diff program configuration names (diff.external, diff.<driver>.command)', ['--ext-diff']),
  refuse('runs the textconv filters configuration names (diff.<driver>.textconv)', ['--textconv']),
];

const LOG: Opt[] = [
  ...DIFF,
  text('-n', '--max-count', '--skip', '--since', '--after', '--since-as-filter', '--until', '--before', '--author', '--committer', '--grep-reflog', '--grep', '--min-parents', '--max-parents'),
  text('--glob', '--exclude', '--exclude-hidden', '--format', '--encoding', '--date', '--decorate-refs', '--decorate-refs-exclude'),
  flags('--all-match', '--invert-grep', '-i', '--regexp-ignore-case', '--basic-regexp', '-E', '--extended-regexp', '-F', '--fixed-strings', '-P', '--perl-regexp', '--remove-empty'),
  flags('--merges', '--no-merges', '--no-min-parents', '--no-max-parents', '--first-parent', '--exclude-first-parent-only', '--not', '--all', '--reflog', '--alternate-refs'),
  flags('--single-worktree', '--ignore-missing', '--bisect', '--stdin', '--cherry-mark', '--cherry-pick', '--left-only', '--right-only', '--cherry', '-g', '--walk-reflogs', '--merge'),
  flags('--boundary', '--simplify-by-decoration', '--show-pulls', '--full-history', '--dense', '--sparse', '--simplify-merges', '--date-order', '--author-date-order', '--topo-order'),
  flags('--reverse', '--do-walk', '--abbrev-commit', '--no-abbrev-commit', '--oneline', '--no-expand-tabs', '--no-notes', '--standard-notes', '--no-standard-notes', '--relative-date'),
  flags('--parents', '--children', '--left-right', '--graph', '--follow', '--no-decorate', '--clear-decorations', '--source', '--mailmap', '--no-mailmap', '--use-mailmap', '--no-use-mailmap'),
  flags('--full-diff', '--log-size', '-q'),
  optional('--branches', '--tags', '--remotes', '--ancestry-path', '--no-walk', '--pretty', '--expand-tabs', '--notes', '--show-notes', '--show-linear-break', '--decorate'),
  // -L<start>,<end>:<file> names a file; git_paths reads it
  text('-L'),
  ask('runs gpg (gpg.program) to check signatures', ['--show-signature']),
];

const STATUS: Opt[] = [
  flags('-s', '--short', '-b', '--branch', '--show-stash', '--long', '-v', '--verbose', '-z', '--no-column', '--ahead-behind', '--no-ahead-behind', '--renames', '--no-renames'),
  optional('--porcelain', '-u', '--untracked-files', '--ignore-submodules', '--ignored', '--column', '--find-renames', '-M'),
];

const BRANCH: Opt[] = [
  flags('--show-current', '-l', '--list', '-a', '--all', '-r', '--remotes', '-v', '-vv', '--verbose', '-i', '--ignore-case', '--no-column', '--no-color', '--no-abbrev', '-q', '--quiet', '--omit-empty'),
  optional('--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--color', '--column', '--abbrev'),
  text('--sort', '--format'),
];

const REV_PARSE: Opt[] = [
  flags('--parseopt', '--sq-quote', '--keep-dashdash', '--stop-at-non-option', '--stuck-long', '--revs-only', '--no-revs', '--flags', '--no-flags', '--verify', '-q', '--quiet', '--sq'),
  flags('--not', '--symbolic', '--symbolic-full-name', '--all', '--local-env-vars', '--show-toplevel', '--show-prefix', '--show-cdup', '--git-dir', '--git-common-dir', '--absolute-git-dir'),
  flags('--is-inside-git-dir', '--is-inside-work-tree', '--is-bare-repository', '--is-shallow-repository', '--show-superproject-working-tree', '--shared-index-path', '--show-ref-format', '--end-of-options'),
  optional('--short', '--abbrev-ref', '--branches', '--tags', '--remotes', '--show-object-format', '--disambiguate'),
  text('--default', '--prefix', '--glob', '--exclude', '--exclude-hidden', '--since', '--after', '--until', '--before', '--path-format', '--git-path'),
  reads('--resolve-git-dir'),
];

const table = (id: string, options: Opt[], more: Partial<Rules> = {}): Rules => ({ id, syntax: 'gnu', flags: 'allowlist', options: [...options, flags('-h', '--help')], operands: { rest: 'text' }, numericOption: true, check: gitOperands, ...more });

export const GIT_READ: Readonly<Record<string, Rules>> = {
  status: table('git status', STATUS),
  log: table('git log', LOG),
  whatchanged: table('git whatchanged', LOG),
  shortlog: table('git shortlog', [...LOG, flags('-e', '--email', '-s', '--summary', '--committer'), text('--group'), optional('-w')]),
  show: table('git show', LOG),
  diff: table('git diff', [...DIFF, flags('--cached', '--staged', '--merge-base', '--no-index')]),
  branch: table('git branch', BRANCH, {
    check: (c) => {
      // without --list, a name creates a branch (and -d/-m and friends are not on the list)
      const listing = c.has('--list', '-l', '--contains', '--merged', '--no-merged', '--no-contains', '--points-at');
      if (!listing && c.parsed.operands.length) c.find('ask', c.parsed.operands[0].value, 'a name without --list creates a branch', c.parsed.operands[0].index);
    },
  }),
  'rev-parse': table('git rev-parse', REV_PARSE),
};
