// The argument rules of every program cxl knows, by name: each family's tables (one file a
// family) and the names they answer to. `analyze(argv)` reads one program's argv with its table;
// a program no table knows gets only the path rules (every word that could be a path).
import { CARGO } from './cargo.ts';
import { analyzeUnknown, analyzeWith, type Analysis } from './engine.ts';
import { FIND } from './find.ts';
import { GIT } from './git.ts';
import { GO, GOFMT } from './go.ts';
import { AWK, EDITOR, LESS, MAN, PERL, RUBY, SHELL } from './interpreters.ts';
import { DENO, NODE, NPM, NPX } from './js.ts';
import { MAKE } from './make.ts';
import { PIP, PYTEST, PYTHON } from './python.ts';
import * as R from './readers.ts';
import { SED } from './sed.ts';
import { TAR, UNZIP } from './tar.ts';
import { RG, SORT } from './text.ts';
import type { Rules } from './types.ts';
import { BUSYBOX, COMMAND, DOAS, ENV, NICE, NOHUP, STDBUF, SUDO, TIME, TIMEOUT, XARGS } from './wrappers.ts';

export type { Analysis } from './engine.ts';
export type { Finding, Level, PathRef, Rules } from './types.ts';

const BY_NAME = new Map<string, Rules>();
const name = (rules: Rules, ...names: string[]) => {
  for (const n of names) BY_NAME.set(n, rules);
};
name(R.LS, 'ls', 'dir', 'vdir');
name(R.CAT, 'cat');
name(R.HEAD, 'head');
name(R.TAIL, 'tail');
name(R.WC, 'wc');
name(R.GREP, 'grep', 'egrep', 'fgrep');
name({ ...R.GREP, id: 'rgrep', recursive: true }, 'rgrep');
name(R.DIFF, 'diff');
name(R.STAT, 'stat');
name(R.FILE, 'file');
name(R.DU, 'du');
name(R.WHICH, 'which');
name(R.BASENAME, 'basename');
name(R.DIRNAME, 'dirname');
name(R.REALPATH, 'realpath');
name(R.ECHO, 'echo');
name(R.PRINTF, 'printf');
name(R.PWD, 'pwd');
name(R.DATE, 'date');
name(R.UNIQ, 'uniq');
name(R.CUT, 'cut');
name(R.TR, 'tr');
name(FIND, 'find', 'gfind');
name(SED, 'sed', 'gsed');
name(SORT, 'sort');
name(RG, 'rg');
name(TAR, 'tar', 'gtar', 'bsdtar');
name(UNZIP, 'unzip');
name(AWK, 'awk', 'gawk', 'mawk', 'nawk');
name(PERL, 'perl');
name(RUBY, 'ruby');
name(SHELL, 'sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'rbash', 'ash', 'fish', 'csh', 'tcsh');
name(LESS, 'less', 'more', 'most', 'pg');
name(MAN, 'man');
name(EDITOR, 'vi', 'vim', 'nvim', 'view', 'ex', 'emacs', 'nano');
name(GIT, 'git');
name(NPM, 'npm');
name(NPX, 'npx');
name(NODE, 'node', 'nodejs');
name(DENO, 'deno');
name(GO, 'go');
name(GOFMT, 'gofmt');
name(CARGO, 'cargo');
name(PIP, 'pip', 'pip3');
name(PYTEST, 'pytest', 'py.test');
name(PYTHON, 'python', 'python3');
name(MAKE, 'make', 'gmake');
name(ENV, 'env');
name(NICE, 'nice');
name(NOHUP, 'nohup');
name(TIMEOUT, 'timeout');
name(STDBUF, 'stdbuf');
name(XARGS, 'xargs');
name(SUDO, 'sudo');
name(DOAS, 'doas');
name(TIME, 'time');
name(COMMAND, 'command');
name(BUSYBOX, 'busybox');

/** The table for a program name (a base name or a path; any case; `python3.12`, `pip3.11` included). */
export function rulesFor(program: string): Rules | undefined {
  let n = program.slice(program.lastIndexOf('/') + 1).toLowerCase();
  if (/^python[0-9.]*$/.test(n)) n = 'python';
  else if (/^pip[0-9.]*$/.test(n)) n = 'pip';
  else if (/^perl[0-9.]*$/.test(n)) n = 'perl';
  else if (/^ruby[0-9.]*$/.test(n)) n = 'ruby';
  return BY_NAME.get(n);
}

/** Reads `argv` (argv[0] the program as written) with its table; `also`: another name for it (its real file). */
export function analyze(argv: readonly string[], also?: string): Analysis {
  const program = argv[0].slice(argv[0].lastIndexOf('/') + 1);
  const rules = rulesFor(argv[0]);
  const out = rules ? analyzeWith(rules, argv, program) : analyzeUnknown(argv);
  // a link named after one program that is another (`rbash` → bash): both tables count
  const other = also !== undefined ? rulesFor(also) : undefined;
  if (other && other !== rules) {
    const more = analyzeWith(other, argv, also!.slice(also!.lastIndexOf('/') + 1));
    out.findings.push(...more.findings);
    out.paths.push(...more.paths);
    out.inner ??= more.inner;
    out.table ??= more.table;
  }
  return out;
}

/** Every table with the names it answers to, in registry order (for the docs). */
export function tablesByName(): { rules: Rules; names: string[] }[] {
  const out = new Map<Rules, string[]>();
  for (const [n, r] of BY_NAME) {
    if (!out.has(r)) out.set(r, []);
    out.get(r)!.push(n);
  }
  return [...out].map(([rules, names]) => ({ rules, names }));
}
