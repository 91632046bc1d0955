// Programs that run a program text given on the line (awk's program, perl -e, sh -c) and
// programs that run commands on their own (pagers, editors). Code from the line is refused
// under a command policy: nothing can check what it does. A script file is the repository's own
// code, like a Makefile: allowed by a policy that allows the interpreter, never read-only.
import { ask, flags, reads, refuse, text } from './build.ts';
import type { Parsed, RuleContext, Rules } from './types.ts';

const INLINE = 'runs program text given on the line, which cannot be checked';

/**
 * Where an awk program can run a command, write or read a file: system(), getline, pipes `|`,
 * output redirection `>`/`>>`, close/fflush, gawk's @load/@include. Strings are skipped; a `>`
 * that may be a comparison counts too (write `5 < $1` for `$1 > 5`).
 */
export function awkProgramHit(prog: string): string | null {
  const code = prog.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const m = /\b(system|getline|close|fflush)\b|@|\||>(?!=)/.exec(code);
  if (!m) return null;
  if (m[1]) return `\`${m[1]}\` ${m[1] === 'system' ? 'runs a shell command' : m[1] === 'getline' ? 'reads a file or a command\'s output' : 'acts on a file or command stream'}`;
  if (m[0] === '@') return '`@load`/`@include` loads code';
  if (m[0] === '|') return '`|` runs a command (or may: use grep -E for alternation)';
  return '`>` may write the output to a file (write a comparison as `5 < $1`)';
}

const awkProgramFromFile = (p: Parsed) => p.opts.some((o) => o.opt && ['-f', '--file', '--exec', '-E'].includes(o.name));

function checkAwk(c: RuleContext): void {
  if (c.has('--sandbox')) return;
  const progs: { text: string; index: number }[] = [];
  for (const o of c.parsed.opts) if ((o.name === '--source' || o.name === '-e') && o.value !== undefined) progs.push({ text: o.value, index: o.index });
  if (!awkProgramFromFile(c.parsed) && c.parsed.operands.length) progs.push({ text: c.parsed.operands[0].value, index: c.parsed.operands[0].index });
  for (const p of progs) {
    const hit = awkProgramHit(p.text);
    if (hit) c.find('refuse', 'program', `${hit}; add --sandbox (gawk), or read the file with another tool`, p.index);
  }
}

// operands: the program (unless -f), then files; `var=value` operands are assignments
const awkOperands = (p: Parsed) => (awkProgramFromFile(p) ? { rest: 'read' as const } : { first: ['text' as const], rest: 'read' as const });

export const AWK: Rules = {
  id: 'awk',
  syntax: 'gnu',
  flags: 'allowlist',
  options: [
    text('-F', '--field-separator', '-v', '--assign'),
    flags('--sandbox', '-c', '--traditional', '-P', '--posix', '--re-interval', '-b', '--characters-as-bytes', '-N', '--use-lc-numeric', '--help', '--version'),
    text('--source', '-e'),
    ask('runs an awk program from a file', ['-f', '--file', '-E', '--exec'], { arg: 'required', kind: 'read' }),
    ask('loads awk source from a file', ['-i', '--include'], { arg: 'required', kind: 'read' }),
    refuse('loads a shared library into awk', ['-l', '--load'], { arg: 'required' }),
    ask("sets an implementation option (mawk's -W exec runs a file)", ['-W'], { arg: 'required' }),
  ],
  operands: awkOperands,
  check: checkAwk,
  doc: [['awk program', 'refuse', 'the program (first operand, -e, --source) holds system, getline, close, fflush, a pipe `|`, `>` or `>>` (output to a file, or a comparison: write `5 < $1`), or @load/@include; not with --sandbox']],
};

export const PERL: Rules = {
  id: 'perl',
  syntax: 'gnu-stop',
  flags: 'allowlist',
  options: [
    refuse(INLINE, ['-e', '-E'], { arg: 'required' }),
    refuse('loads a module, and `-M` can carry code (-M"x;system …")', ['-M', '-m'], { arg: 'required' }),
    refuse('edits the files in place', ['-i'], { arg: 'optional' }),
    refuse('runs the debugger or a Devel:: module', ['-d'], { arg: 'optional' }),
    reads('-I'),
    text('-F', '-0', '-C', '-l', '-x'),
    flags('-a', '-c', '-n', '-p', '-s', '-S', '-t', '-T', '-u', '-U', '-v', '-V', '-w', '-W', '-X'),
  ],
  operands: { first: ['read'], rest: 'text' },
};

export const RUBY: Rules = {
  id: 'ruby',
  syntax: 'gnu-stop',
  flags: 'allowlist',
  options: [refuse(INLINE, ['-e'], { arg: 'required' }), refuse('loads a library before the script', ['-r', '--require'], { arg: 'required' }), refuse('edits the files in place', ['-i'], { arg: 'optional' }), flags('-w', '-v', '-c', '-n', '-p', '-a', '-l')],
  operands: { first: ['read'], rest: 'text' },
};

// sh -c, bash -lc, zsh -ic: the command string is the first operand. A script file is the
// repository's code; everything after it is the script's arguments.
export const SHELL: Rules = {
  id: 'sh',
  syntax: 'gnu-stop',
  flags: 'allowlist',
  options: [
    refuse(INLINE, ['-c']),
    refuse('runs a start-up file named on the line', ['--rcfile', '--init-file'], { arg: 'required', kind: 'read' }),
    text('-o', '-O'),
    flags('-e', '-u', '-x', '-v', '-n', '-f', '-a', '-b', '-h', '-m', '-p', '-s', '-l', '-r', '-i', '-E', '-T', '-B', '-C', '-H', '-P', '--posix', '--norc', '--noprofile', '--login', '--restricted', '--noediting', '--verbose'),
  ],
  operands: { first: ['read'], rest: 'text' },
};

const PAGER = 'a pager runs commands of its own (!cmd, |, LESSOPEN); use cat, head or sed -n';
export const LESS: Rules = { id: 'less', syntax: 'gnu', flags: 'denylist', options: [], always: { level: 'refuse', why: PAGER } };
export const MAN: Rules = { id: 'man', syntax: 'gnu', flags: 'denylist', options: [], always: { level: 'refuse', why: 'man runs a pager and formatters, and -P/--html name programs to run' }, operands: { rest: 'text' } };
export const EDITOR: Rules = { id: 'editor', syntax: 'gnu', flags: 'denylist', options: [], always: { level: 'refuse', why: 'an editor runs commands (:!cmd, -c); use the file tools' } };
