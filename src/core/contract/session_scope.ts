// What "allow for this session" allows, in words every toolset's plan can use: a file on one
// axis, a program with its subcommand and the argument rules it was asked about
// (`find … -delete`), or one named tool. Each is as narrow as the ask it answers; there is no
// blanket allow. The session's list of them is the gate's (core/gate/session_allows.ts).
import { displayArgv } from '../argv_display.ts';

export type SessionAllow =
  | { kind: 'file'; axis: 'files.read' | 'files.write'; path: string }
  /**
   * `notes`: the argument rules the human saw (`find -delete`); a later step asking for another is
   * not covered. `exact`: an interpreter's or runner's whole argv: only that line is covered.
   */
  | { kind: 'command'; program: string; subcommand?: string; notes?: string[]; exact?: string[] }
  | { kind: 'tool'; tool: string };

export function describeAllow(a: SessionAllow): string {
  switch (a.kind) {
    case 'file':
      return `${a.axis === 'files.read' ? 'read' : 'write'} ${a.path}`;
    case 'command': {
      if (a.exact) return `run exactly \`${displayArgv(a.exact)}\`, no other ${a.program} line`;
      const base = a.subcommand ? `run ${a.program} ${a.subcommand} …` : `run ${a.program} …`;
      return a.notes?.length ? `${base} (with ${a.notes.join('; ')})` : base;
    }
    case 'tool':
      return `call ${a.tool}`;
  }
}

// A subcommand is a plain word after a program that has subcommands (`git commit`, `npm test`);
// for other programs the next word is an operand (`rm x1`), and the scope is the program.
const SUBCOMMAND = /^[A-Za-z][A-Za-z0-9_:-]*$/;
const HAS_SUBCOMMANDS = new Set([
  'git', 'npm', 'pnpm', 'yarn', 'bun', 'npx', 'deno', 'cargo', 'go', 'make', 'docker', 'podman', 'kubectl', 'gh',
  'pip', 'pip3', 'uv', 'poetry', 'apt', 'brew', 'systemctl', 'terraform', 'helm', 'dotnet', 'mvn', 'gradle',
]);

// An interpreter or a runner does whatever its script, file or target says: `python3 a.py` and
// `python3 b.py` are two different programs, and `make test` runs what the Makefile says today.
// Allowing one for the session allows that exact line, never the program.
const INTERPRETERS = new Set([
  'python', 'python2', 'python3', 'pypy', 'pypy3', 'node', 'nodejs', 'deno', 'bun', 'bunx', 'npx', 'pnpx', 'tsx', 'ts-node',
  'ruby', 'perl', 'php', 'lua', 'luajit', 'Rscript', 'julia', 'java', 'jshell', 'osascript', 'pwsh', 'powershell',
  'sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'fish', 'csh', 'tcsh', 'busybox', 'env', 'xargs',
  'make', 'gmake', 'just', 'rake', 'uv', 'uvx', 'pipx', 'poetry', 'pdm', 'hatch', 'nox', 'tox', 'invoke',
]);

/** Whether a program runs what its arguments name (a script, a package, a target) rather than a fixed tool. */
export function isInterpreter(program: string): boolean {
  const base = program.slice(program.lastIndexOf('/') + 1);
  return INTERPRETERS.has(base) || /^python\d+(?:\.\d+)*$/.test(base) || /^(?:ruby|perl|php|lua|node)\d+(?:\.\d+)*$/.test(base);
}

/**
 * The program + subcommand scope of one argv: `git commit -m x` → git commit; `rm x` → rm; an
 * interpreter or runner (`python3 a.py`, `make test`) → exactly that argv. Null when a program
 * with subcommands shows none up front (`git -C x push`): allowing the program there would
 * allow all of it.
 */
export function commandScope(argv: readonly string[], notes: readonly string[] = []): SessionAllow | null {
  const sub = argv[1];
  const base = argv[0].slice(argv[0].lastIndexOf('/') + 1);
  const n = [...new Set(notes)].sort();
  const withNotes = n.length ? { notes: n } : {};
  if (isInterpreter(argv[0])) return { kind: 'command', program: argv[0], exact: [...argv], ...withNotes };
  if (!HAS_SUBCOMMANDS.has(base)) return { kind: 'command', program: argv[0], ...withNotes };
  return sub !== undefined && SUBCOMMAND.test(sub) ? { kind: 'command', program: argv[0], subcommand: sub, ...withNotes } : null;
}

/** What a plan offers for the session: the whole call, and when only its paths asked, those paths alone. */
export interface SessionScope {
  /** what "allow for this session" allows; empty: the option is not offered (a line whose programs cannot all be seen) */
  whole: readonly SessionAllow[];
  /** offered instead when the envelope asked only because of the paths (decision.pathOnly) */
  paths?: readonly SessionAllow[];
}
