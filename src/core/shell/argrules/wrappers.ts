// Wrappers: programs that run their operand as a program (env, nice, nohup, timeout, stdbuf,
// xargs, sudo, doas, time, command, busybox). The wrapped program is what the rules check (step_args.ts
// unwraps them, however deeply nested); the wrapper's own options count too. A wrapper whose
// program cannot be found (env -S, sudo -s) is refused: there is nothing to check.
import { ask, flags, optional, refuse, text } from './build.ts';
import type { RuleContext, Rules } from './types.ts';

const NO_PROGRAM = 'the program it runs cannot be found on the line, so it cannot be checked';

const wrapper = (id: string, options: Rules['options'], more: Partial<Rules> = {}): Rules => ({ id, syntax: 'gnu-stop', flags: 'allowlist', options: [...options, flags('--help', '--version')], wraps: true, ...more });

/** A wrapper with no operand runs nothing (`nice` prints the niceness); one that needs a program refuses without one. */
const needsProgram = (c: RuleContext) => {
  if (!c.parsed.operands.length && !c.has('--help') && !c.has('--version')) c.find('refuse', undefined, NO_PROGRAM, c.start - 1);
};

export const ENV = wrapper('env', [
  flags('-i', '--ignore-environment', '-0', '--null', '-v', '--debug', '--list-signal-handling'),
  text('-u', '--unset'),
  optional('--block-signal', '--default-signal', '--ignore-signal'),
  refuse('runs the program in another directory (use cd)', ['-C', '--chdir'], { arg: 'required', kind: 'dir' }),
  refuse('splits a string into the program and its arguments: ' + NO_PROGRAM, ['-S', '--split-string'], { arg: 'required' }),
], {
  wraps: (p) => p.operands.find((o) => !/^[^=]+=/.test(o.value)),
  doc: [
    ['env NAME=value', 'refuse', 'sets an environment variable, which can make the program load or run other code (LD_PRELOAD, NODE_OPTIONS, GIT_*)'],
    ['wrappers', 'refuse', 'more than 8 wrappers nest (env, nice, timeout, … in any mix): run the program directly'],
  ],
  check: (c) => {
    // `env NAME=value prog`: variables can make any program load or run code (LD_PRELOAD,
    // NODE_OPTIONS, GIT_CONFIG_*, PAGER); the program starts after them.
    for (const o of c.parsed.operands) {
      if (!/^[^=]+=/.test(o.value)) break;
      c.find('refuse', o.value.slice(0, o.value.indexOf('=') + 1), 'sets an environment variable, which can make the program load or run other code (LD_PRELOAD, NODE_OPTIONS, GIT_*)', o.index);
    }
  },
});

export const NICE = wrapper('nice', [text('-n', '--adjustment')], { numericOption: true });
const noProgram = (id: string) => [[id, 'refuse', `without a program to run: ${NO_PROGRAM}`] as const];
export const NOHUP = wrapper('nohup', [], { check: needsProgram, doc: noProgram('nohup') });
export const TIMEOUT = wrapper('timeout', [flags('--preserve-status', '--foreground', '-v', '--verbose'), text('-s', '--signal', '-k', '--kill-after')], {
  // timeout DURATION PROGRAM…: the program is the second operand
  wraps: (p) => p.operands[1],
  doc: noProgram('timeout'),
  check: (c) => {
    if (c.parsed.operands.length < 2) c.find('refuse', undefined, NO_PROGRAM, c.start - 1);
  },
});
export const STDBUF = wrapper('stdbuf', [text('-i', '--input', '-o', '--output', '-e', '--error')], { check: needsProgram, doc: noProgram('stdbuf') });
export const XARGS = wrapper('xargs', [
  flags('-0', '--null', '-r', '--no-run-if-empty', '-t', '--verbose', '-x', '--exit', '--show-limits'),
  text('-d', '--delimiter', '-n', '--max-args', '-L', '--max-lines', '-P', '--max-procs', '-s', '--max-chars', '--process-slot-var'),
  optional('-E', '--eof', '-e', '-I', '--replace', '-i', '-l'),
  refuse('reads the arguments from a file, so what the program gets cannot be checked', ['-a', '--arg-file'], { arg: 'required', kind: 'read' }),
  ask('asks on the terminal before each run', ['-p', '--interactive', '-o', '--open-tty']),
], {
  doc: [['xargs', 'ask', 'adds arguments read from its input to the program: never read-only']],
  check: (c) => {
    // the program gets more arguments from xargs's input: never read-only
    c.find('ask', undefined, 'adds arguments read from its input to the program', c.start - 1);
  },
});
const AS_ROOT = 'runs the program as another user (root by default)';
export const SUDO = wrapper('sudo', [
  flags('-E', '--preserve-env', '-H', '--set-home', '-n', '--non-interactive', '-S', '--stdin', '-k', '--reset-timestamp', '-P', '--preserve-groups', '-b', '--background'),
  text('-u', '--user', '-g', '--group', '-C', '--close-from', '-h', '--host', '-p', '--prompt', '-T', '--command-timeout', '-r', '--role', '-t', '--type', '-U', '--other-user'),
  { names: ['-D', '--chdir'], arg: 'required', kind: 'dir', level: 'refuse', why: 'runs the program in another directory (use cd)' },
  refuse(`starts a shell or an editor: ${NO_PROGRAM}`, ['-s', '--shell', '-i', '--login', '-e', '--edit', '-l', '--list', '-v', '--validate', '-K', '--remove-timestamp']),
], {
  always: { level: 'refuse', why: AS_ROOT },
});
export const DOAS = wrapper('doas', [flags('-n'), text('-u', '-a'), refuse(`starts a shell: ${NO_PROGRAM}`, ['-s', '-C', '-L'])], { always: { level: 'refuse', why: AS_ROOT } });
export const TIME = wrapper('time', [
  flags('-p', '--portability', '-v', '--verbose', '-q', '--quiet', '-a', '--append'),
  text('-f', '--format'),
  refuse('writes its report to a file', ['-o', '--output'], { arg: 'required', kind: 'write' }),
], { check: needsProgram, doc: noProgram('time') });
export const COMMAND = wrapper('command', [flags('-p'), ask('describes the program instead of running it', ['-v', '-V'])]);
// busybox NAME args…: the applet is the program
export const BUSYBOX = wrapper('busybox', [], { flags: 'denylist' });
