// Readers the shipped `default` envelope runs unasked (GNU coreutils, grep, diff, file): flag
// allowlists. None of these options runs a program or writes a file; what they read is named by
// their operands and file-taking options, which the path rules classify. An option not listed
// here is not known to be harmless, so the step asks.
import { ask, flags, optional, reads, recursive, text } from './build.ts';
import type { Parsed, Rules } from './types.ts';

const gnu = (id: string, options: Rules['options'], more: Partial<Rules> = {}): Rules => ({ id, syntax: 'gnu', flags: 'allowlist', options: [...options, flags('--help', '--version')], ...more });

export const LS = gnu('ls', [
  flags('-a', '--all', '-A', '--almost-all', '--author', '-b', '--escape', '-B', '--ignore-backups', '-c', '-C', '-d', '--directory', '-D', '--dired', '-f'),
  optional('-F', '--classify', '--color', '--hyperlink'),
  flags('--file-type', '--full-time', '-g', '--group-directories-first', '-G', '--no-group', '-h', '--human-readable', '--si', '-H', '--dereference-command-line'),
  flags('--dereference-command-line-symlink-to-dir', '-i', '--inode', '-k', '--kibibytes', '-l', '-m', '-n', '--numeric-uid-gid', '-N', '--literal'),
  // -L with -R walks into linked directories, wherever they lead
  { names: ['-L', '--dereference'], safe: true, follow: true },
  flags('-o', '-p', '-q', '--hide-control-chars', '--show-control-chars', '-Q', '--quote-name', '-r', '--reverse', '-s', '--size', '-S', '-t', '-u', '-U', '-v', '-x', '-X'),
  flags('-Z', '--context', '--zero', '-1'),
  recursive('-R', '--recursive'),
  text('--block-size', '--format', '--hide', '--indicator-style', '-I', '--ignore', '--quoting-style', '--sort', '--time', '--time-style', '-T', '--tabsize', '-w', '--width'),
], { defaultDir: true });

export const CAT = gnu('cat', [flags('-A', '--show-all', '-b', '--number-nonblank', '-e', '-E', '--show-ends', '-n', '--number', '-s', '--squeeze-blank', '-t', '-T', '--show-tabs', '-u', '-v', '--show-nonprinting')]);

const lines = [text('-c', '--bytes', '-n', '--lines'), flags('-q', '--quiet', '--silent', '-v', '--verbose', '-z', '--zero-terminated')];
export const HEAD = gnu('head', lines, { numericOption: true });
const waits = 'waits for the file to grow and never ends on its own';
export const TAIL = gnu('tail', [...lines, ask(waits, ['-f', '--follow'], { arg: 'optional' }), ask(waits, ['-F', '--retry']), ask(waits, ['--pid', '-s', '--sleep-interval', '--max-unchanged-stats'], { arg: 'required' })], { numericOption: true });

export const WC = gnu('wc', [flags('-c', '--bytes', '-m', '--chars', '-l', '--lines', '-L', '--max-line-length', '-w', '--words'), reads('--files0-from'), text('--total')]);

// grep reads PATTERNS from its first operand unless -e or -f gave them; the rest are files.
const grepOperands = (p: Parsed) => (p.opts.some((o) => o.opt && ['-e', '--regexp', '-f', '--file'].includes(o.name)) ? { rest: 'read' as const } : { first: ['text' as const], rest: 'read' as const });
export const GREP = gnu('grep', [
  flags('-E', '--extended-regexp', '-F', '--fixed-strings', '-G', '--basic-regexp', '-P', '--perl-regexp', '-i', '-y', '--ignore-case', '--no-ignore-case', '-w', '--word-regexp'),
  flags('-x', '--line-regexp', '-z', '--null-data', '-s', '--no-messages', '-v', '--invert-match', '-V', '-b', '--byte-offset', '-n', '--line-number', '--line-buffered'),
  flags('-H', '--with-filename', '-h', '--no-filename', '-o', '--only-matching', '-q', '--quiet', '--silent', '-a', '--text', '-I', '-L', '--files-without-match'),
  flags('-l', '--files-with-matches', '-c', '--count', '-T', '--initial-tab', '-Z', '--null', '--no-group-separator', '-U', '--binary'),
  text('-e', '--regexp', '-m', '--max-count', '--label', '--binary-files', '-D', '--devices', '--include', '--exclude', '--exclude-dir', '-B', '--before-context', '-A', '--after-context', '-C', '--context', '--group-separator'),
  optional('--color', '--colour'),
  reads('-f', '--file', '--exclude-from'),
  recursive('-r', '--recursive'),
  { names: ['-R', '--dereference-recursive'], safe: true, recursive: true, follow: true },
  // -d recurse is -r; any other action is harmless
  { names: ['-d', '--directories'], arg: 'required', safe: true, recursive: true },
], { numericOption: true, operands: grepOperands });

export const DIFF = gnu('diff', [
  flags('--normal', '-q', '--brief', '-s', '--report-identical-files', '-c', '-u', '-e', '--ed', '-n', '--rcs', '-y', '--side-by-side', '--left-column', '--suppress-common-lines'),
  flags('-p', '--show-c-function', '-t', '--expand-tabs', '-T', '--initial-tab', '--suppress-blank-empty', '-N', '--new-file', '--unidirectional-new-file'),
  { names: ['--no-dereference'], safe: true, noFollow: true },
  flags('--ignore-file-name-case', '--no-ignore-file-name-case', '-i', '--ignore-case', '-E', '--ignore-tab-expansion', '-Z', '--ignore-trailing-space', '-b', '--ignore-space-change'),
  flags('-w', '--ignore-all-space', '-B', '--ignore-blank-lines', '-a', '--text', '--strip-trailing-cr', '-d', '--minimal', '--speed-large-files', '-v'),
  optional('--context', '--unified', '--color'),
  text('-C', '-U', '-W', '--width', '-F', '--show-function-line', '--label', '--tabsize', '-x', '--exclude', '-I', '--ignore-matching-lines', '-D', '--ifdef', '--horizon-lines', '--palette'),
  text('--line-format', '--old-line-format', '--new-line-format', '--unchanged-line-format', '--old-group-format', '--new-group-format', '--unchanged-group-format', '--changed-group-format'),
  reads('-X', '--exclude-from', '-S', '--starting-file', '--from-file', '--to-file'),
  // diff -r reads what each link leads to, files and directories alike (unless --no-dereference)
  { names: ['-r', '--recursive'], safe: true, recursive: true, follow: true },
  ask("runs the output through the `pr` program", ['-l', '--paginate']),
]);

export const STAT = gnu('stat', [flags('-L', '--dereference', '-f', '--file-system', '-t', '--terse'), text('--cached', '-c', '--format', '--printf')]);

const fileRuns = 'makes file run decompressors or drop its own sandbox';
export const FILE = gnu('file', [
  flags('-b', '--brief', '-c', '--checking-printout', '-i', '--mime', '--apple', '--extension', '--mime-type', '--mime-encoding', '-k', '--keep-going', '-l', '--list'),
  flags('-L', '--dereference', '-h', '--no-dereference', '-n', '--no-buffer', '-N', '--no-pad', '-0', '--print0', '-r', '--raw', '-s', '--special-files', '-d', '--debug', '-v'),
  text('-e', '--exclude', '--exclude-quiet', '-F', '--separator', '-P', '--parameter'),
  reads('-m', '--magic-file', '-f', '--files-from'),
  ask(fileRuns, ['-z', '--uncompress', '-Z', '--uncompress-noreport', '-S', '--no-sandbox']),
  ask('writes a compiled magic file', ['-C', '--compile']),
  ask("resets the files' access times", ['-p', '--preserve-date']),
]);

export const DU = gnu('du', [
  flags('-0', '--null', '-a', '--all', '--apparent-size', '-b', '--bytes', '-c', '--total', '-D', '--dereference-args', '-H', '-h', '--human-readable', '--inodes', '-k'),
  flags('-l', '--count-links', '-m', '-P', '--no-dereference', '-S', '--separate-dirs', '--si', '-s', '--summarize', '-x', '--one-file-system'),
  { names: ['-L', '--dereference'], safe: true, follow: true },
  text('-B', '--block-size', '-d', '--max-depth', '-t', '--threshold', '--time-style', '--exclude'),
  optional('--time'),
  reads('--files0-from', '-X', '--exclude-from'),
], { recursive: true, defaultDir: true });

// Operands are names, not paths they open.
export const WHICH: Rules = { id: 'which', syntax: 'gnu', flags: 'allowlist', options: [flags('-a', '-s')], operands: { rest: 'text' } };
export const BASENAME = gnu('basename', [flags('-a', '--multiple', '-z', '--zero'), text('-s', '--suffix')], { operands: { rest: 'text' } });
export const DIRNAME = gnu('dirname', [flags('-z', '--zero')], { operands: { rest: 'text' } });
export const REALPATH = gnu('realpath', [
  flags('-e', '--canonicalize-existing', '-m', '--canonicalize-missing', '-L', '--logical', '-P', '--physical', '-q', '--quiet', '-s', '--strip', '--no-symlinks', '-z', '--zero'),
  reads('--relative-to', '--relative-base'),
]);
// echo and printf print their words; they read no files and take no options that matter.
export const ECHO: Rules = { id: 'echo', syntax: 'none', flags: 'denylist', options: [], operands: { rest: 'text' } };
export const PRINTF: Rules = { id: 'printf', syntax: 'none', flags: 'denylist', options: [], operands: { rest: 'text' } };
export const PWD: Rules = { id: 'pwd', syntax: 'gnu', flags: 'allowlist', options: [flags('-L', '--logical', '-P', '--physical')], operands: { rest: 'text' } };

export const DATE = gnu('date', [
  flags('--debug', '--resolution', '-R', '--rfc-email', '-u', '--utc', '--universal'),
  optional('-I', '--iso-8601'),
  text('-d', '--date', '--rfc-3339'),
  reads('-f', '--file', '-r', '--reference'),
  ask('sets the system clock', ['-s', '--set'], { arg: 'required' }),
], { operands: { rest: 'text' } });

// Allowed by the shipped command policy (not by `default` unasked): text filters.
const FILTER = (id: string): Rules => ({ id, syntax: 'gnu', flags: 'denylist', options: [] });
export const UNIQ = gnu('uniq', [flags('-c', '--count', '-d', '--repeated', '-D', '-i', '--ignore-case', '-u', '--unique', '-z', '--zero-terminated'), optional('--all-repeated', '--group'), text('-f', '--skip-fields', '-s', '--skip-chars', '-w', '--check-chars')], {
  // uniq [INPUT [OUTPUT]]: a second operand is a file it writes
  operands: { first: ['read', 'write'], rest: 'read' },
});
export const CUT = FILTER('cut');
export const TR: Rules = { id: 'tr', syntax: 'gnu', flags: 'denylist', options: [], operands: { rest: 'text' } };

export const READERS: readonly Rules[] = [LS, CAT, HEAD, TAIL, WC, GREP, DIFF, STAT, FILE, DU, WHICH, BASENAME, DIRNAME, REALPATH, ECHO, PRINTF, PWD, DATE, UNIQ, CUT, TR];
