// make: runs the recipes of the repository's Makefile. --eval adds make code from the line, and
// a `VAR=value` operand overrides any variable the recipes run (SHELL, CC, …): both are code from
// the line and refused under a command policy. A flag that names another makefile, directory or
// include path asks.
import { ask, flags, optional, refuse, text } from './build.ts';
import type { RuleContext, Rules } from './types.ts';

function checkMake(c: RuleContext): void {
  for (const o of c.parsed.operands) {
    if (/^[^=]+=/.test(o.value)) {
      c.find('refuse', o.value.slice(0, o.value.indexOf('=') + 1), 'overrides a Makefile variable from the line, and recipes run what variables say (SHELL, CC, …)', o.index);
    }
  }
}

export const MAKE: Rules = {
  id: 'make',
  syntax: 'gnu',
  flags: 'allowlist',
  options: [
    refuse('evaluates make code given on the line', ['-E', '--eval'], { arg: 'required' }),
    ask('reads another makefile, whose recipes then run', ['-f', '--file', '--makefile'], { arg: 'required', kind: 'read' }),
    ask('reads makefiles from another directory', ['-I', '--include-dir'], { arg: 'required', kind: 'dir' }),
    { names: ['-C', '--directory'], arg: 'required', kind: 'dir', level: 'ask', why: 'runs the Makefile of another directory' },
    ask('touches the targets instead of building them', ['-t', '--touch']),
    ask('takes variables from the environment over the Makefile', ['-e', '--environment-overrides']),
    flags('-B', '--always-make', '-i', '--ignore-errors', '-k', '--keep-going', '-L', '--check-symlink-times', '-n', '--just-print', '--dry-run', '--recon', '-p', '--print-data-base'),
    flags('-q', '--question', '-r', '--no-builtin-rules', '-R', '--no-builtin-variables', '-s', '--silent', '--quiet', '-S', '--no-keep-going', '--stop', '--trace', '-v', '--version'),
    flags('-w', '--print-directory', '--no-print-directory', '--warn-undefined-variables', '-h', '--help'),
    optional('-j', '--jobs', '-l', '--load-average', '--max-load', '-O', '--output-sync', '-d', '--debug', '--shuffle'),
    text('-o', '--old-file', '--assume-old', '-W', '--what-if', '--new-file', '--assume-new'),
  ],
  operands: { rest: 'text' },
  check: checkMake,
  doc: [['make VAR=value', 'refuse', 'overrides a Makefile variable from the line, and recipes run what variables say (SHELL, CC, …)']],
};
