// cargo: `cargo test` builds and runs the repository's own code, which its plain flags keep to;
// --config can name a runner or linker to run (target.<t>.runner), `cargo install` fetches and
// builds a crate, and a subcommand cargo does not have runs `cargo-<name>` from PATH or an
// alias from configuration. After `--`, words go to the test binary.
import { ask, flags, refuse, text } from './build.ts';
import type { Opt, RuleContext, Rules } from './types.ts';

const GLOBAL: Opt[] = [
  refuse('sets configuration, which can name a runner or linker to run', ['--config'], { arg: 'required' }),
  ask('turns on unstable features', ['-Z'], { arg: 'required' }),
  flags('-q', '--quiet', '-v', '--verbose', '--locked', '--frozen', '--offline', '-h', '--help', '-V', '--version'),
  text('--color'),
  { names: ['-C'], arg: 'required', kind: 'dir', safe: true },
];

const BUILD: Opt[] = [
  ...GLOBAL,
  flags('--workspace', '--all', '--lib', '--bins', '--examples', '--tests', '--benches', '--all-targets', '--doc', '--no-run', '--no-fail-fast', '--all-features'),
  flags('--no-default-features', '--release', '-r', '--keep-going', '--ignore-rust-version', '--unit-graph', '--future-incompat-report'),
  text('-p', '--package', '--exclude', '--bin', '--example', '--test', '--bench', '-F', '--features', '--profile', '--message-format', '-j', '--jobs'),
  // a triple, or a target spec file (which names the linker): a path the path rules see
  { names: ['--target'], arg: 'required', kind: 'read', safe: true },
  ask('writes the build into another directory', ['--target-dir', '--artifact-dir'], { arg: 'required', kind: 'dir' }),
  ask('builds another manifest', ['--manifest-path', '--lockfile-path'], { arg: 'required', kind: 'read' }),
  ask('writes a timing report', ['--timings'], { arg: 'optional' }),
];

// the test binary's own flags (after `--`)
const HARNESS = new Set(['--nocapture', '--no-capture', '--exact', '--ignored', '--include-ignored', '-q', '--quiet', '--list', '--show-output', '--test', '--bench']);
const HARNESS_VALUE = new Set(['--test-threads', '--skip', '--color', '--format']);

function checkHarness(c: RuleContext): void {
  for (let k = 0; k < c.parsed.operands.length; k++) {
    const o = c.parsed.operands[k];
    if (!o.afterDashes || !o.value.startsWith('-')) continue;
    const name = o.value.split('=')[0];
    if (HARNESS.has(name)) continue;
    if (HARNESS_VALUE.has(name)) {
      if (!o.value.includes('=')) k++;
      continue;
    }
    c.find('ask', o.value, `\`${o.value}\` is not a test-harness flag known to be harmless`, o.index);
  }
}

const build = (id: string, check?: (c: RuleContext) => void): Rules => ({
  id,
  syntax: 'gnu',
  flags: 'allowlist',
  options: BUILD,
  operands: { rest: 'text' },
  ...(check ? { check, doc: [[`${id} -- -FLAG`, 'ask', `after \`--\`, a flag of the test harness that is not one of ${[...HARNESS, ...HARNESS_VALUE].join(' ')}`] as const] } : {}),
});
const refused = (why: string, id: string): Rules => ({ id, syntax: 'gnu', flags: 'denylist', options: GLOBAL, always: { level: 'refuse', why }, operands: { rest: 'text' } });
const other = (id: string): Rules => ({ id, syntax: 'gnu', flags: 'denylist', options: GLOBAL, operands: { rest: 'text' } });

export const CARGO: Rules = {
  id: 'cargo',
  syntax: 'gnu',
  flags: 'allowlist',
  options: GLOBAL,
  docShared: GLOBAL,
  // `cargo +nightly test`: rustup's toolchain pick comes before everything
  normalize: (argv, start) => (argv[start]?.startsWith('+') ? { argv: [...argv.slice(0, start), ...argv.slice(start + 1)], map: [...argv.keys()].filter((k) => k !== start) } : undefined),
  subcommands: {
    test: build('cargo test', checkHarness),
    t: build('cargo test', checkHarness),
    bench: build('cargo bench', checkHarness),
    build: build('cargo build'),
    b: build('cargo build'),
    check: build('cargo check'),
    c: build('cargo check'),
    run: build('cargo run'),
    r: build('cargo run'),
    clippy: build('cargo clippy'),
    doc: build('cargo doc'),
    install: refused('downloads a crate, builds it and installs its programs', 'cargo install'),
    publish: refused('uploads the crate to the registry', 'cargo publish'),
    login: refused('stores a registry token', 'cargo login'),
    logout: refused('removes a registry token', 'cargo logout'),
    owner: refused('changes the crate\'s owners on the registry', 'cargo owner'),
    yank: refused('changes what the registry serves', 'cargo yank'),
    fmt: other('cargo fmt'),
    tree: other('cargo tree'),
    metadata: other('cargo metadata'),
    clean: other('cargo clean'),
    update: other('cargo update'),
    fetch: other('cargo fetch'),
    add: other('cargo add'),
    remove: other('cargo remove'),
    new: other('cargo new'),
    init: other('cargo init'),
    search: other('cargo search'),
    vendor: other('cargo vendor'),
    package: other('cargo package'),
    'generate-lockfile': other('cargo generate-lockfile'),
    'locate-project': other('cargo locate-project'),
    'read-manifest': other('cargo read-manifest'),
    pkgid: other('cargo pkgid'),
    version: other('cargo version'),
    help: other('cargo help'),
    uninstall: other('cargo uninstall'),
    rustc: other('cargo rustc'),
    rustdoc: other('cargo rustdoc'),
    fix: other('cargo fix'),
    report: other('cargo report'),
    info: other('cargo info'),
  },
  otherSubcommand: { level: 'refuse', why: '`cargo {sub}` is not a cargo command: it runs `cargo-{sub}` from PATH or an alias from configuration' },
};
