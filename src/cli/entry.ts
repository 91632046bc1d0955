// The command line: `--version`, `--help`, the subcommand's name, and the exit code. Shared by
// the ES-module entry (src/cli.ts, every subcommand loaded lazily) and the bundle of the scripted
// subcommands that bin/cxl.js runs with a code cache (src/cli/scripted_<name>.ts, one bundle each).
import process from 'node:process';
import pkg from '../../package.json' with { type: 'json' };
import { ToolError } from '../core/errors.ts';
import { diskErrorMessage } from '../core/platform/json_record.ts';
import { UsageError } from './args.ts';
import { flagLines } from './ui_flags.ts';

export type Main = (argv: string[]) => Promise<number>;

const HELP = `cxl ${pkg.version}: a coding agent with confined local file and shell tools, over ACP

Usage:
  cxl [flags]                 the terminal UI (spawns the built-in agent, or --agent "<command>")
  cxl [flags] "<prompt>"      the terminal UI, with this prompt sent first
  cxl -p "<prompt>" [flags]   one answer on stdout, no UI (as claude -p): exit 0 when the model
                              answered; read_only unless --envelope or default_envelope says
                              otherwise; an ask is refused at once (cxl -p --help)
  cxl acp [flags]             run as an ACP agent on stdio (for Zed and any ACP client)
  cxl serve [PATH] [flags]    a standing host: ACP over HTTP and WebSocket at /acp, bearer token,
                              no client-backed tools (cxl serve --help)
  cxl run "<task>" [flags]    an unattended mission with a verdict and exit code (0 only when it
                              lands); read_only unless --envelope or default_mission_envelope
                              says otherwise; asks wait for cxl approvals (cxl run --help)
  cxl mission <command>       mission records: list, show, reports, stop; fire a named agent
  cxl approvals <command>     the asks unattended missions wait on: list, respond
  cxl tool <name> [json]      run one tool call through the policies, envelope and ledger
  cxl check "<line>"          explain the shell command policy's verdict on a command line
  cxl config [--check FILE]   print the effective configuration, or validate a file
  cxl trust [DIR]             show what a folder's own configuration changes, then trust it

Flags:
  -h, --help       show this help (or a subcommand's: cxl <command> --help)
  -v, --version    print the version

UI flags (cxl with no command):
${flagLines((f) => f.brief, 27)}

Docs: README.md and docs/ in the package.`;

/** Each subcommand's module, loaded on demand; its wiring lives in src/cli/<name>.ts and exports `main`. */
export type Subcommands = Record<string, () => Promise<{ main: Main }>>;

export async function main(argv: string[], subcommands: Subcommands): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-v') {
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const known = ['acp', 'serve', 'run', 'mission', 'approvals', 'tool', 'check', 'config', 'trust'];
  let name = 'ui';
  let args = argv;
  // -p among the UI's words, first or not (`cxl --model m -p "…"`, as claude takes it): one answer, no UI
  const print = argv.findIndex((a) => a === '-p' || a === '--print');
  if (print >= 0 && (first === undefined || first.startsWith('-') || !known.includes(first))) {
    name = 'print';
    args = argv.filter((_, i) => i !== print);
  } else if (first !== undefined && !first.startsWith('-')) {
    const near = known.find((k) => editDistance(k, first) <= 2);
    if (!known.includes(first) && near && !/\s/.test(first)) {
      throw new UsageError(`cxl: unknown command \`${first}\`; did you mean \`cxl ${near}\`? To start the UI with it as the first prompt, quote it with more words, or type it there.`);
    }
    if (known.includes(first)) {
      name = first;
      args = rest;
    }
  }
  const load = subcommands[name];
  if (!load) {
    if (name === 'ui' && first !== undefined) {
      throw new UsageError(`cxl: unknown flag \`${first}\`. Run \`cxl --help\` for the flags.`);
    }
    throw new UsageError(`cxl: \`${name === 'ui' ? 'cxl' : `cxl ${name}`}\` is not part of this build yet. Run \`cxl --help\`.`);
  }
  const mod = await load();
  return mod.main(args);
}

/** Levenshtein distance, for telling a mistyped command from a prompt. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/** Runs the command line and sets the exit code: 2 for bad usage (with the message), 1 for a crash. */
export function start(subcommands: Subcommands): void {
  main(process.argv.slice(2), subcommands).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      if (err instanceof UsageError) {
        process.stderr.write(`${err.message}\n`);
        process.exitCode = 2;
        return;
      }
      // a full disk, a permission, a damaged record: said in words; only a bug gets a stack trace
      const said = err instanceof ToolError ? err.message : diskErrorMessage(err, 'a file of cxl');
      process.stderr.write(`cxl: ${said ?? (err instanceof Error ? (err.stack ?? err.message) : String(err))}\n`);
      process.exitCode = 1;
    },
  );
}
