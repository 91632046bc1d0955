// The shape of a program's argument rules. Each family file (find.ts, git.ts, readers.ts, …)
// holds its programs' tables as data in this shape; engine.ts reads an argv with them. A table
// says, for every option it knows, whether it is harmless (`safe`), what its value is (a path it
// reads, a directory, a file it writes, text), and what it costs when it is not harmless:
//   refuse  — refused under a command policy (runs code, writes or deletes where the program's
//             name promises a reader); never read-only in an envelope
//   confirm — needs a human: refused under a command policy where nobody can answer, asked where
//             someone can (read-approve paths, a directory holding protected files)
//   ask     — allowed by a command policy, but not read-only: in an envelope the step falls to
//             the shell grant (asks in `default`)

export type Level = 'refuse' | 'confirm' | 'ask';

/**
 * What an option's value or an operand is:
 * `text` (not a path), `read` (a file or directory it reads or lists), `dir` (a directory it
 * works in), `write` (a file it writes), `rev` (git: a revision, maybe `REV:path`), `pathspec`
 * (git: a path pattern).
 */
export type Kind = 'text' | 'read' | 'dir' | 'write' | 'rev' | 'pathspec';

export interface Opt {
  /** every spelling: `-o`, `--output`; single-dash long names for `single` syntax (`-exec`) */
  names: readonly string[];
  /** takes a value: `required` (glued, after `=`, or the next word), `optional` (glued or after `=` only) */
  arg?: 'required' | 'optional';
  /** what the value is (default `text`) */
  kind?: Kind;
  /** harmless in a read-only step */
  safe?: boolean;
  /** what it costs when it is not harmless (an option that is neither safe nor has a level asks) */
  level?: Level;
  /** why, in words: "runs a program for each file found" */
  why?: string;
  /** makes the step read its directory operands recursively */
  recursive?: boolean;
  /** recursion follows symbolic links */
  follow?: boolean;
  /** recursion does not follow symbolic links, whatever came before (`diff --no-dereference`) */
  noFollow?: boolean;
  /** after it (and its value) every word belongs to what it names (`python -m mod args…`) */
  ends?: boolean;
}

/**
 * How a program reads its options:
 * - `gnu`: getopt_long with permutation: short options cluster (`-la`) and take glued values
 *   (`-n5`, `-f.env`); long options take `=value` or the next word and may be abbreviated to any
 *   unambiguous prefix (`--out=x` is `--output=x`); `--` ends options; options may follow operands.
 * - `gnu-stop`: the same, but the first operand ends the options (env, timeout, node, python).
 * - `single`: one option a word, one or two dashes (`-run=x`, `--run x`), no clusters (go's flags).
 * - `none`: no options at all: every word is an operand (echo, printf).
 */
export type Syntax = 'gnu' | 'gnu-stop' | 'single' | 'none';

export interface Rules {
  /** the name rule ids start with: `find`, `git log`, `npm test` */
  id: string;
  syntax: Syntax;
  /** `allowlist`: an option the table does not list is not harmless; `denylist`: only listed options count */
  flags: 'allowlist' | 'denylist';
  options: readonly Opt[];
  /** `head -5`, `nice -10`: a dash and digits is a harmless count */
  numericOption?: boolean;
  /** what operands are: the first ones in order, then `rest` (default `read`); may depend on the options */
  operands?: OperandShape | ((p: Parsed) => OperandShape);
  /** reads its directory operands recursively whatever the options (du, find) */
  recursive?: boolean;
  /** with no path operand it reads `.` (ls, du, find; grep when recursive) */
  defaultDir?: boolean;
  /** the first operand names a subcommand, read with its own table */
  subcommands?: Readonly<Record<string, Rules>>;
  /** what a subcommand the table does not list costs (default: ask) */
  otherSubcommand?: { level: Level; why: string };
  /** a wrapper: the first operand (after its own options), or the one this picks, is the program it runs */
  wraps?: true | ((p: Parsed) => Operand | undefined);
  /** whatever its arguments, the program itself costs this (pagers, shells given a script) */
  always?: { level: Level; why: string };
  /** what a table cannot say as data: a sed script, an awk program, git's REV:path */
  check?: (c: RuleContext) => void;
  /** rewrites the words before they are read (tar's old `tar xzf a.tar`); `map[i]` is where word i was written */
  normalize?: (argv: readonly string[], start: number) => { argv: string[]; map: number[] } | undefined;
  /** options every subcommand shares, documented once with the program (git's --output, --ext-diff) */
  docShared?: readonly Opt[];
  /** the rules its hooks apply, for the docs: [rule, cost, why] */
  doc?: readonly (readonly [string, Level, string])[];
  /** a program whose arguments are not options and operands (find's expression): reads them itself */
  read?: (c: ReadContext) => void;
}

/** What a `read` hook gets: the words, and where to say what it found. */
export interface ReadContext {
  readonly argv: readonly string[];
  readonly start: number;
  find(level: Level, flag: string | undefined, why: string, index: number): void;
  path(ref: PathRef): void;
}

export interface OperandShape {
  first?: readonly Kind[];
  rest?: Kind;
}

/** One option as read from an argv. */
export interface ParsedOpt {
  /** the table entry, or undefined for an option the table does not know */
  opt?: Opt;
  /** as written, without its value: `-o`, `--outp`, `-x` (one letter of a cluster) */
  written: string;
  /** the name it was read as: the written name, or the full name an abbreviation stands for (`--output`) */
  name: string;
  value?: string;
  /** argv index of the word holding the option */
  index: number;
}

export interface Operand {
  value: string;
  index: number;
  /** after `--` */
  afterDashes: boolean;
}

export interface Parsed {
  opts: ParsedOpt[];
  operands: Operand[];
}

/** What an argument rule found. */
export interface Finding {
  /** stable id, in words: `find -exec`, `git config`, `sort --output` */
  rule: string;
  /** the program (base name) whose table found it */
  program: string;
  /** the flag or word as written */
  flag?: string;
  level: Level;
  why: string;
  /** argv index of the word (of the whole step, wrappers included) */
  index: number;
  /** the subcommand it belongs to: `_allowed_commands` or a prefix entry naming it unlocks it */
  sub?: string;
}

/** A word that names a path, for the path rules. */
export interface PathRef {
  word: string;
  /** argv index of the word it came from (-1: the implicit `.`) */
  index: number;
  kind: 'read' | 'dir' | 'write';
  /** resolved from the step's directory (default) or from the top of the git work tree */
  base?: 'cwd' | 'repo';
  /** the program reads it recursively */
  recursive?: boolean;
  follow?: boolean;
}

/** What a hook can see and say. */
export interface RuleContext {
  readonly argv: readonly string[];
  readonly parsed: Parsed;
  /** argv index the table started reading at (after a subcommand, the word after it) */
  readonly start: number;
  /** the first option of the parse read as one of `names` (list every spelling: `-e`, `--expression`) */
  has(...names: string[]): ParsedOpt | undefined;
  find(level: Level, flag: string | undefined, why: string, index: number, sub?: string): void;
  path(ref: PathRef): void;
  /** reads the words from `start` on with another table (`python -m pytest …` → pytest's) */
  delegate(rules: Rules, start: number): void;
}
