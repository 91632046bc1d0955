// Python: the interpreter (-c runs code from the line; -m runs a module, read with that module's
// table when there is one), pip (install, download and wheel fetch packages and run their build
// code) and pytest (runs the repository's tests; --basetemp deletes the directory it names, and
// flags that take a file, a directory, a config or a plugin ask).
import { ask, flags, refuse, text } from './build.ts';
import type { RuleContext, Rules } from './types.ts';

const FETCHES = 'fetches packages from an index and runs their build code';

export const PIP: Rules = {
  id: 'pip',
  syntax: 'gnu',
  flags: 'denylist',
  options: [flags('-q', '--quiet', '-v', '--verbose', '--isolated', '--no-input', '--disable-pip-version-check', '--no-color', '-h', '--help', '-V', '--version')],
  subcommands: {
    install: { id: 'pip install', syntax: 'gnu', flags: 'denylist', options: [], always: { level: 'refuse', why: FETCHES }, operands: { rest: 'text' } },
    download: { id: 'pip download', syntax: 'gnu', flags: 'denylist', options: [], always: { level: 'refuse', why: FETCHES }, operands: { rest: 'text' } },
    wheel: { id: 'pip wheel', syntax: 'gnu', flags: 'denylist', options: [], always: { level: 'refuse', why: FETCHES }, operands: { rest: 'text' } },
    uninstall: { id: 'pip uninstall', syntax: 'gnu', flags: 'denylist', options: [], always: { level: 'refuse', why: 'removes installed packages' }, operands: { rest: 'text' } },
    config: {
      id: 'pip config',
      syntax: 'gnu',
      flags: 'denylist',
      options: [],
      operands: { rest: 'text' },
      doc: [['pip config set|unset|edit', 'refuse', "changes pip's configuration (index URLs, build options)"]],
      check: (c) => {
        const verb = c.parsed.operands[0];
        if (verb && ['set', 'unset', 'edit'].includes(verb.value)) c.find('refuse', verb.value, "changes pip's configuration (index URLs, build options)", verb.index, 'config');
      },
    },
  },
  otherSubcommand: { level: 'ask', why: '`pip {sub}` is not known to be read-only' },
};

const PYTEST_ASK = 'takes a file, a directory, a config or a plugin, which can change what runs or where it writes';

export const PYTEST: Rules = {
  id: 'pytest',
  syntax: 'gnu',
  flags: 'allowlist',
  options: [
    text('-k', '-m', '--maxfail', '--tb', '-r', '--capture', '--durations', '--durations-min', '--color', '--code-highlight', '--deselect', '--import-mode', '-n', '--numprocesses', '--ignore-glob', '--lfnf', '--last-failed-no-failures'),
    flags('-q', '--quiet', '-v', '--verbose', '-x', '--exitfirst', '-s', '-l', '--showlocals', '--lf', '--last-failed', '--ff', '--failed-first', '--nf', '--new-first', '--sw', '--stepwise'),
    flags('--sw-skip', '--stepwise-skip', '--co', '--collect-only', '--no-header', '--no-summary', '--strict-markers', '--strict-config', '--strict', '--disable-warnings', '--disable-pytest-warnings'),
    flags('--runxfail', '--continue-on-collection-errors', '--doctest-modules', '--setup-show', '--setup-only', '--setup-plan', '--fixtures', '--funcargs', '--markers', '--version', '-V', '-h', '--help', '--full-trace', '--pyargs', '--trace', '--pdb', '-ra', '--exitfirst'),
    { names: ['--ignore'], arg: 'required', kind: 'read', safe: true },
    refuse('deletes the directory it names before the run', ['--basetemp'], { arg: 'required', kind: 'write' }),
    ask(PYTEST_ASK, ['-c', '--config-file', '--rootdir', '--confcutdir', '-p', '--pdbcls', '-W', '--pythonwarnings', '--doctest-glob'], { arg: 'required', kind: 'read' }),
    refuse('overrides the configuration from the line, and `addopts` adds any option (--basetemp deletes)', ['-o', '--override-ini'], { arg: 'required' }),
    ask('writes a report or log to a file', ['--junitxml', '--junit-xml', '--log-file', '--result-log', '--resultlog', '--report-log', '--html'], { arg: 'required', kind: 'write' }),
    ask('writes debug output to a file', ['--debug'], { arg: 'optional', kind: 'write' }),
    ask('deletes the cache directory', ['--cache-clear']),
  ],
  operands: { rest: 'text' },
  check: (c: RuleContext) => {
    // test ids: `tests/test_a.py::TestX::test_y` names the file before `::`
    if (c.has('--pyargs')) return;
    for (const o of c.parsed.operands) {
      const file = o.value.split('::')[0];
      if (file !== '') c.path({ word: file, index: o.index, kind: 'read' });
    }
  },
};

const MODULES: Readonly<Record<string, Rules>> = { pytest: PYTEST, pip: PIP, pip3: PIP };

export const PYTHON: Rules = {
  id: 'python',
  syntax: 'gnu-stop',
  flags: 'allowlist',
  options: [
    { ...refuse('runs program text given on the line', ['-c'], { arg: 'required' }), ends: true },
    { names: ['-m'], arg: 'required', safe: true, ends: true },
    flags('-b', '-B', '-d', '-E', '-h', '--help', '-i', '-I', '-O', '-OO', '-P', '-q', '-s', '-S', '-u', '-v', '-V', '--version', '-x'),
    ask('imports the warning category it names', ['-W'], { arg: 'required' }),
    ask('sets an implementation option', ['-X', '--check-hash-based-pycs'], { arg: 'required' }),
  ],
  operands: (p) => (p.opts.some((o) => o.opt && (o.name === '-m' || o.name === '-c')) ? { rest: 'text' } : { first: ['read'], rest: 'text' }),
  doc: [['python -m MODULE', 'ask', 'runs a module other than pytest and pip (which are read with their own rules)']],
  check: (c) => {
    const m = c.has('-m');
    if (m?.value === undefined) return;
    const mod = Object.hasOwn(MODULES, m.value) ? MODULES[m.value] : undefined;
    const after = c.parsed.operands.length ? c.parsed.operands[0].index : c.argv.length;
    if (mod) c.delegate(mod, after);
    else c.find('ask', `-m ${m.value}`, `runs the module \`${m.value}\`, which is not known to be read-only`, m.index, m.value);
  },
};
