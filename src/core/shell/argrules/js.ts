// The JavaScript toolchains: npm (scripts run the repository's own code; install, exec and npx
// fetch code from a registry and run it), node (`--test` is a test run; -e, --import, --require
// run code from the line) and deno (test and check; eval, install and remote `run` fetch or run
// code). Test runs keep their plain flags; a flag that takes a file, a module or a command asks.
import { ask, flags, optional, reads, refuse, text } from './build.ts';
import type { RuleContext, Rules } from './types.ts';

const FETCHES = 'fetches packages from the registry, and their install scripts run';
const RUNS_PKG = 'runs a package, fetching it from the registry when it is not installed';
const REGISTRY = 'changes what the registry holds';

// npm reads any `--key=value` as configuration; these keys name programs or code it runs.
const NPM_PROGRAM_KEYS = ['script-shell', 'node-options', 'userconfig', 'globalconfig', 'git', 'shell', 'editor', 'browser', 'viewer', 'init-module', 'node-gyp', 'call', 'onload-script'];

function checkNpmConfig(c: RuleContext): void {
  for (let i = c.start; i < c.argv.length; i++) {
    const w = c.argv[i];
    if (w === '--') break;
    if (!w.startsWith('--')) continue;
    // npm accepts `_` for `-`, any case, `--no-` negations and unambiguous abbreviations
    const key = w.slice(2).split('=')[0].toLowerCase().replace(/_/g, '-').replace(/^no-/, '');
    const hit = NPM_PROGRAM_KEYS.find((k) => k === key || (key.length >= 3 && k.startsWith(key)));
    if (hit) c.find('refuse', `--${hit}`, `sets the npm configuration \`${hit}\`, which names a program or code npm runs`, i);
  }
}

const npmFlags = [
  flags('-s', '--silent', '-q', '--quiet', '--if-present', '--ignore-scripts', '--workspaces', '-ws', '--include-workspace-root', '--foreground-scripts', '--color', '--no-color', '-d', '--verbose'),
  text('-w', '--workspace', '--loglevel'),
  ask('runs the package in another directory', ['-C', '--prefix'], { arg: 'required', kind: 'dir' }),
  refuse('runs a command given on the line', ['-c', '--call'], { arg: 'required' }),
];

/** After `--`, words go to the script's own program: plain words (test paths, names) only. */
function checkScriptArgs(c: RuleContext): void {
  for (const o of c.parsed.operands) {
    if (o.afterDashes && o.value.startsWith('-')) c.find('ask', o.value, `\`${o.value}\` goes to the script's own program, whose flags are not known here`, o.index);
  }
}

const script = (id: string): Rules => ({ id, syntax: 'gnu', flags: 'allowlist', options: npmFlags, operands: { rest: 'read' }, check: checkScriptArgs });
const npmRun: Rules = { ...script('npm run'), operands: { first: ['text'], rest: 'read' } };
// one table for a subcommand and its aliases, named after the first: `npm i` is `npm install`
const refused = (why: string, id: string): Rules => ({ id, syntax: 'gnu', flags: 'denylist', options: [], always: { level: 'refuse', why }, operands: { rest: 'text' } });

const NPM_SUBS: Record<string, Rules> = {};
const subs = (names: string, r: Rules) => {
  for (const n of names.split(' ')) NPM_SUBS[n] = r;
};
subs('test tst t', script('npm test'));
subs('start stop restart', script('npm start'));
subs('run run-script rum urn', npmRun);
subs('install i in ins inst insta instal isnt isnta isntal isntall add', refused(FETCHES, 'npm install'));
subs('ci clean-install ic install-clean isntall-clean install-test it install-ci-test cit', refused(FETCHES, 'npm ci'));
subs('update up upgrade udpate', refused(FETCHES, 'npm update'));
subs('rebuild rb', refused(FETCHES, 'npm rebuild'));
subs('link ln', refused(FETCHES, 'npm link'));
subs('dedupe ddp', refused(FETCHES, 'npm dedupe'));
subs('exec x', refused(RUNS_PKG, 'npm exec'));
subs('init create innit', refused('fetches a create-<name> package and runs it', 'npm init'));
subs('explore', refused('runs a shell in a package directory', 'npm explore'));
subs('edit', refused('runs an editor in a package directory', 'npm edit'));
for (const n of 'publish unpublish deprecate owner access dist-tag token team star unstar adduser add-user login logout'.split(' ')) subs(n, refused(REGISTRY, `npm ${n}`));

export const NPM: Rules = {
  id: 'npm',
  syntax: 'gnu',
  flags: 'allowlist',
  options: npmFlags,
  subcommands: NPM_SUBS,
  otherSubcommand: { level: 'ask', why: '`npm {sub}` is not known to be read-only' },
  check: checkNpmConfig,
  doc: [
    ['npm --KEY (configuration)', 'refuse', `any spelling (\`_\` for \`-\`, any case, --no-, abbreviations) of ${NPM_PROGRAM_KEYS.join(', ')}: names a program or code npm runs`],
    ['npm test|run -- -FLAG', 'ask', "after `--`, flags go to the script's own program, whose flags are not known here"],
  ],
};

// npx <pkg>: the package is the "subcommand" `_allowed_commands = npx tsc` names.
export const NPX: Rules = {
  id: 'npx',
  syntax: 'gnu-stop',
  flags: 'denylist',
  options: [text('-p', '--package', '-c', '--call')],
  doc: [['npx PACKAGE', 'refuse', `${RUNS_PKG} (\`_allowed_commands = npx PACKAGE\` accepts that package)`]],
  check: (c) => {
    const pkg = c.parsed.operands[0];
    c.find('refuse', undefined, RUNS_PKG, pkg?.index ?? c.start - 1, pkg?.value ?? 'npx');
  },
};

const TEST_REPORTERS = new Set(['spec', 'tap', 'dot', 'junit', 'lcov']);
const RUNS_CODE = 'loads code named on the line';

export const NODE: Rules = {
  id: 'node',
  syntax: 'gnu-stop',
  flags: 'allowlist',
  options: [
    refuse('runs program text given on the line', ['-e', '--eval', '-p', '--print'], { arg: 'required' }),
    refuse(RUNS_CODE, ['-r', '--require', '--import', '--loader', '--experimental-loader', '--openssl-config'], { arg: 'required' }),
    refuse('opens a debugger port that runs any code sent to it', ['--inspect', '--inspect-brk', '--inspect-wait', '--inspect-port', '--debug-port'], { arg: 'optional' }),
    flags('--test', '--test-only', '--test-force-exit', '--no-warnings', '--enable-source-maps', '--experimental-strip-types', '--experimental-transform-types', '--no-experimental-strip-types'),
    flags('--experimental-test-coverage', '--experimental-vm-modules', '--trace-warnings', '--trace-uncaught', '--no-deprecation', '--throw-deprecation', '-c', '--check', '-v', '--version', '-h', '--help'),
    text('--test-name-pattern', '--test-skip-pattern', '--test-concurrency', '--test-timeout', '--test-shard', '--stack-trace-limit', '--max-old-space-size', '--conditions', '-C'),
    { names: ['--test-reporter'], arg: 'required', safe: true },
    ask('writes the test report to a file', ['--test-reporter-destination'], { arg: 'required', kind: 'write' }),
    ask('keeps running and reruns on change', ['--watch', '--watch-path', '--watch-preserve-output'], { arg: 'optional' }),
    reads('--env-file', '--env-file-if-exists'),
    ask('runs a package.json script', ['--run'], { arg: 'required' }),
  ],
  operands: { first: ['read'], rest: 'text' },
  doc: [['node --test-reporter', 'refuse', `a reporter that is not built in (${[...TEST_REPORTERS].join(', ')}) is a module node imports as code`]],
  check: (c) => {
    // a reporter that is not built in is a module node imports
    for (const o of c.parsed.opts) {
      if (o.name === '--test-reporter' && o.value !== undefined && !TEST_REPORTERS.has(o.value)) c.find('refuse', '--test-reporter', `the reporter \`${o.value}\` is not built in: node imports it as code`, o.index);
    }
    // `node --test a.test.js b.test.js`: every operand is a test file
    if (c.has('--test')) for (const o of c.parsed.operands.slice(1)) c.path({ word: o.value, index: o.index, kind: 'read' });
  },
};

const DENO_TEST_FLAGS = [
  flags('-q', '--quiet', '--no-check', '--fail-fast', '--parallel', '--doc', '--reload', '-r', '--lock', '--frozen', '--no-lock', '--cached-only', '--trace-leaks', '--shuffle', '--no-npm', '--no-remote'),
  flags('--permit-no-files', '--clean', '--all', '--unstable', '--no-config', '--node-modules-dir', '--quiet'),
  optional('--check', '--fail-fast'),
  text('--filter', '--reporter', '--seed', '--location', '--log-level'),
  ask('grants the tests permissions (file writes, network, programs)', ['-A', '--allow-all', '--allow-read', '--allow-write', '--allow-net', '--allow-env', '--allow-run', '--allow-sys', '--allow-ffi', '--allow-hrtime', '--allow-import'], { arg: 'optional' }),
  ask('reads a configuration or import map that can change what runs', ['-c', '--config', '--import-map', '--env-file', '--cert', '--lock-file'], { arg: 'optional', kind: 'read' }),
  ask('writes a report or coverage files', ['--coverage', '--junit-path'], { arg: 'optional', kind: 'write' }),
  ask('keeps running and reruns on change', ['--watch'], { arg: 'optional' }),
  refuse('opens a debugger port that runs any code sent to it', ['--inspect', '--inspect-brk', '--inspect-wait'], { arg: 'optional' }),
  ask('passes flags to V8', ['--v8-flags'], { arg: 'optional' }),
];

const denoRead = (id: string): Rules => ({ id, syntax: 'gnu', flags: 'allowlist', options: DENO_TEST_FLAGS, operands: { rest: 'read' } });
const denoRefused = (why: string, id = 'deno'): Rules => ({ id, syntax: 'gnu', flags: 'denylist', options: [], always: { level: 'refuse', why }, operands: { rest: 'text' } });
const REMOTE = /^(?:https?:|npm:|jsr:|data:)/;

export const DENO: Rules = {
  id: 'deno',
  syntax: 'gnu',
  flags: 'allowlist',
  options: [flags('-q', '--quiet', '--unstable', '-h', '--help', '-V', '--version'), text('-L', '--log-level')],
  subcommands: {
    test: denoRead('deno test'),
    check: denoRead('deno check'),
    eval: denoRefused('runs program text given on the line', 'deno eval'),
    repl: denoRefused('runs code it reads', 'deno repl'),
    install: denoRefused('fetches and installs a program', 'deno install'),
    uninstall: denoRefused('removes an installed program', 'deno uninstall'),
    upgrade: denoRefused('replaces deno with a downloaded build', 'deno upgrade'),
    x: denoRefused('fetches a package and runs it', 'deno x'),
    publish: denoRefused(REGISTRY, 'deno publish'),
    run: {
      id: 'deno run',
      syntax: 'gnu-stop',
      flags: 'denylist',
      options: DENO_TEST_FLAGS,
      operands: { first: ['read'], rest: 'text' },
      doc: [['deno run URL', 'refuse', 'a module named by https:, npm:, jsr: or data: is fetched from the network and run']],
      check: (c) => {
        const target = c.parsed.operands[0];
        if (target && REMOTE.test(target.value)) c.find('refuse', target.value, 'fetches a module from the network and runs it', target.index, 'run');
      },
    },
  },
  otherSubcommand: { level: 'ask', why: '`deno {sub}` is not known to be read-only' },
};
