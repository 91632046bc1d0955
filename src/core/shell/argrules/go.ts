// go: `go test` and `go vet` build and run the repository's own code, which their plain flags
// keep to; -exec, -toolexec and -vettool name programs to run, `go run pkg@version` and `go
// install pkg@version` fetch a module and run or install it, `go env -w` changes every later go
// command, `go generate` runs the commands written in the sources. Go's flags are one a word
// (`-run=X`, `-run X`, one or two dashes).
import { ask, flags, reads, refuse, text } from './build.ts';
import type { Opt, RuleContext, Rules } from './types.ts';

const RUNS = 'names a program the go command runs';
const WRITES = 'writes a file named on the line';

// build flags shared by build, run, test, vet, install, list
const BUILD: Opt[] = [
  refuse(RUNS, ['-toolexec', '-exec'], { arg: 'required' }),
  flags('-a', '-n', '-x', '-v', '-race', '-msan', '-asan', '-cover', '-trimpath', '-work', '-linkshared', '-modcacherw', '-buildvcs'),
  text('-p', '-tags', '-mod', '-covermode', '-coverpkg', '-buildmode', '-compiler', '-installsuffix', '-asmflags', '-gcflags', '-gccgoflags'),
  reads('-modfile', '-overlay', '-pgo'),
  { names: ['-C'], arg: 'required', kind: 'dir', safe: true },
  ask(WRITES, ['-o', '-pkgdir'], { arg: 'required', kind: 'write' }),
  // -ldflags=-extld=prog runs prog; other linker flags are harmless
  { names: ['-ldflags'], arg: 'required', safe: true },
];

const TEST: Opt[] = [
  ...BUILD,
  flags('-short', '-benchmem', '-failfast', '-json', '-fullpath', '-c'),
  text('-run', '-skip', '-count', '-timeout', '-bench', '-benchtime', '-cpu', '-parallel', '-list', '-shuffle', '-vet', '-fuzztime', '-fuzzminimizetime'),
  ask(WRITES, ['-coverprofile', '-cpuprofile', '-memprofile', '-blockprofile', '-mutexprofile', '-trace', '-outputdir'], { arg: 'required', kind: 'write' }),
  ask('writes new inputs into the testdata corpus', ['-fuzz'], { arg: 'required' }),
  ask('passes the rest to the test binary, whose flags are not known here', ['-args']),
];

function checkLdflags(c: RuleContext): void {
  for (const o of c.parsed.opts) {
    if (o.name === '-ldflags' && o.value !== undefined && /ext(?:ld|ar)/.test(o.value)) c.find('refuse', '-ldflags', 'names an external linker or archiver to run', o.index);
  }
}

/** `go run x@v1.2.3`, `go install x@latest`: a module version fetched from the network. */
function remoteModule(verb: string, why: string) {
  return (c: RuleContext) => {
    checkLdflags(c);
    for (const o of c.parsed.operands) if (/@/.test(o.value) && !o.value.startsWith('.') && !o.value.startsWith('/')) c.find('refuse', o.value, why, o.index, verb);
  };
}

const cmd = (id: string, options: Opt[], check?: (c: RuleContext) => void, first?: 'text'): Rules => ({ id, syntax: 'single', flags: 'allowlist', options, operands: first ? { first: [first], rest: 'read' } : { rest: 'read' }, check: check ?? checkLdflags });
const refused = (id: string, why: string): Rules => ({ id, syntax: 'single', flags: 'denylist', options: [], always: { level: 'refuse', why }, operands: { rest: 'text' } });

export const GO: Rules = {
  id: 'go',
  syntax: 'single',
  flags: 'allowlist',
  options: [flags('-h', '-help', '--help')],
  docShared: BUILD,
  doc: [['go … -ldflags', 'refuse', 'linker flags naming an external linker or archiver (-extld, -extar, -extldflags) to run']],
  subcommands: {
    test: cmd('go test', TEST),
    vet: cmd('go vet', [...BUILD, refuse(RUNS, ['-vettool'], { arg: 'required' }), flags('-json'), text('-c')]),
    build: cmd('go build', BUILD),
    run: { ...cmd('go run', BUILD, remoteModule('run', 'downloads a module at that version and runs it')), operands: { first: ['read'], rest: 'text' }, doc: [['go run MODULE@VERSION', 'refuse', 'downloads a module at that version and runs it']] },
    install: { ...cmd('go install', BUILD, remoteModule('install', 'downloads a module at that version and installs its program')), doc: [['go install MODULE@VERSION', 'refuse', 'downloads a module at that version and installs its program']] },
    list: cmd('go list', [...BUILD, flags('-json', '-m', '-u', '-versions', '-retracted', '-deps', '-test', '-e', '-find', '-export', '-compiled'), text('-f', '-reuse')]),
    env: { id: 'go env', syntax: 'single', flags: 'allowlist', options: [flags('-json', '-changed'), refuse('changes the go environment every later go command runs with (GOFLAGS=-toolexec=…)', ['-w', '-u'])], operands: { rest: 'text' } },
    version: { id: 'go version', syntax: 'single', flags: 'allowlist', options: [flags('-m', '-v')], operands: { rest: 'read' } },
    fmt: cmd('go fmt', [flags('-n', '-x'), ask('rewrites the files', ['-mod'])]),
    get: refused('go get', 'downloads modules and changes go.mod'),
    generate: refused('go generate', 'runs the commands written in //go:generate comments'),
    tool: refused('go tool', 'runs a tool, which may be a module fetched from the network'),
    mod: { id: 'go mod', syntax: 'single', flags: 'denylist', options: [], operands: { rest: 'text' } },
    work: { id: 'go work', syntax: 'single', flags: 'denylist', options: [], operands: { rest: 'text' } },
    doc: { id: 'go doc', syntax: 'single', flags: 'denylist', options: [], operands: { rest: 'text' } },
  },
  otherSubcommand: { level: 'ask', why: '`go {sub}` is not known to be read-only' },
};

// gofmt -w rewrites files; -l, -d and -s only print.
export const GOFMT: Rules = { id: 'gofmt', syntax: 'gnu', flags: 'allowlist', options: [flags('-l', '-d', '-s', '-e'), text('-r'), ask('rewrites the files', ['-w'])] };
