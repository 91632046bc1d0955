// Turns a terminal request into the program to spawn: the command itself, or the sandbox
// program wrapping it with the view built for this command now. Also reads bubblewrap's own
// failures back out of a finished command (a mount that could not be made, a program not found).
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import type { TerminalRequest } from '../terminal.ts';
import { dataDir } from '../../platform/data_dir.ts';
import { isWithin } from '../../paths.ts';
import { shellWord } from '../../shell_word.ts';
import { bwrapArgs } from './bwrap.ts';
import { inGroup, pidsGroup } from './cgroup.ts';
import { LAUNCH_SHELL, noteWorkspaces } from './launch_programs.ts';
import { prlimitArgs, ulimitLines, UNASKED_LIMITS, type Limits } from './limits.ts';
import type { Probe } from './probe.ts';
import { seatbeltArgs } from './seatbelt.ts';
import type { TerminalSandbox } from './settings.ts';
import { buildView, type SandboxView } from './view.ts';

export interface Launch {
  command: string;
  args: string[];
  view: SandboxView;
  kind: 'bubblewrap' | 'seatbelt';
  /** the child fd bwrap reports its init's pid on (a fourth stdio pipe) */
  infoFd?: number;
  /** the seccomp program bwrap reads on SECCOMP_FD: the spawner pipes that slot and writes it (feedSeccomp) */
  seccomp?: Uint8Array;
  /** the programs cxl starts for this launch, outside the sandbox or in front of the command (bwrap, sh, prlimit) */
  programs?: string[];
  /** the bounds of an unasked command, when applied (limits.ts) */
  limits?: Limits;
  /** run once the command is gone (removes its pids cgroup) */
  cleanup?: () => void;
  /**
   * The command as one line for the sandbox's shell to read on CONTROL_FD (`TRAMPOLINE`), when
   * the sandbox runs that shell: it can then be started before its command is known (ahead.ts).
   */
  line?: string;
  /** what a sandbox started ahead must have been started with to run this command: everything but the line */
  key?: string;
}

/** stdio slot of the pipe bwrap writes `{"child-pid": N}` to. */
export const INFO_FD = 3;
/** stdio slot bwrap reads the seccomp filter from: a pipe, filled from memory for each start. */
export const SECCOMP_FD = 4;
/** how TRAMPOLINE says the command could not be run (its exit code, then why) */
const EXEC_FAILED = 'cxl-sandbox-exec: ';
/** stdio slot of the pipe the sandbox's shell reads its command from. */
export const CONTROL_FD = 5;
/**
 * Longer lines go straight to bwrap: dash reads a line one byte at a time (a 20 KB line costs
 * ~10 ms), and ARG_MAX allows megabytes.
 */
const LINE_MAX = 64 * 1024;

/**
 * What the sandbox runs when its command comes as a line: one line of single-quoted words on
 * CONTROL_FD (commandLine()), checked as bwrap's execvp would fail (dash's `exec` ends the shell
 * with words of its own, which would read as the command's), then exec'd: the same process,
 * the same environment, nothing of the shell left. EOF (cxl gone, or the sandbox discarded)
 * ends it.
 */
export const TRAMPOLINE = [
  "NL='\n'",
  `IFS= read -r cxl_line <&${CONTROL_FD} || exit 1`,
  `exec ${CONTROL_FD}<&-`,
  'eval "set -- $cxl_line"',
  'case $1 in',
  `  */*) [ -e "$1" ] || { echo "${EXEC_FAILED}127 not found" >&2; exit 127; }; [ -x "$1" ] && [ ! -d "$1" ] || { echo "${EXEC_FAILED}126 Permission denied" >&2; exit 126; } ;;`,
  `  *) command -v "$1" >/dev/null 2>&1 || { echo "${EXEC_FAILED}127 not found" >&2; exit 127; } ;;`,
  'esac',
  'exec "$@"',
].join('\n');

/**
 * `command args` as TRAMPOLINE reads them: each word as shellWord quotes it, a newline (only ever
 * inside single quotes) as `$NL`, so the whole is one line.
 */
export function commandLine(command: string, args: readonly string[]): string {
  return `${[command, ...args].map((w) => shellWord(w).replace(/\n/g, `'"$NL"'`)).join(' ')}\n`;
}

/** bwrap's own processes (the outer one, the namespace's init), counted by the pids cgroup too. */
const GROUP_SLACK = 4;

/** The home directories whose credential names are hidden: the child's $HOME and this user's. */
export function homesOf(env: Record<string, string | undefined>): string[] {
  const out = new Set<string>();
  if (env.HOME) out.add(env.HOME);
  try {
    out.add(os.homedir());
  } catch {
    /* no home */
  }
  return [...out];
}

/**
 * The per-user runtime dirs hidden from commands: the child's and this process's $XDG_RUNTIME_DIR,
 * and /run/user/UID. (The child's environment no longer names it: the allowlist drops it. A caller
 * whose own environment names another passes it in TerminalSandbox.hidden.)
 */
export function runtimeDirsOf(env: Record<string, string | undefined>): string[] {
  const out = new Set<string>();
  for (const d of [env.XDG_RUNTIME_DIR, process.env.XDG_RUNTIME_DIR]) if (d && path.isAbsolute(d)) out.add(d);
  if (typeof process.getuid === 'function') out.add(`/run/user/${process.getuid()}`);
  return [...out];
}

/**
 * `byLine`: the sandbox runs TRAMPOLINE and the command comes as `line` on CONTROL_FD, which the
 * spawner must pipe and write (local_terminal.ts does, to start sandboxes ahead); otherwise the
 * command is bwrap's own.
 */
export function sandboxLaunch(probe: Probe, req: TerminalRequest, sandbox: TerminalSandbox, opts: { byLine?: boolean } = {}): Launch {
  if (!probe.program || (probe.state !== 'bubblewrap' && probe.state !== 'seatbelt')) {
    throw new Error(`no working sandbox to launch in: ${probe.reason ?? probe.state}`);
  }
  // whatever chose the probe's programs, these roots are where this command may write
  noteWorkspaces(sandbox.roots);
  const hidden = [...(sandbox.hidden ?? []), dataDir(req.env), dataDir(process.env)];
  const view = buildView({ ...sandbox, roots: [...sandbox.roots], homes: homesOf(req.env), runtimeDirs: runtimeDirsOf(req.env), hidden });
  if (probe.state === 'bubblewrap') {
    if (!probe.seccomp) throw new Error('no seccomp filter to launch with: the probe found none');
    // nobody approved a read-only command: it runs bounded. uid 0 (whom the kernel never holds to
    // RLIMIT_NPROC) counts its processes in a pids cgroup, entered by a `sh` that sets the other
    // limits too; anyone else gets prlimit inside the sandbox.
    const limits = sandbox.profile === 'read-only' ? (sandbox.limits ?? UNASKED_LIMITS) : undefined;
    const group = limits && process.getuid?.() === 0 ? pidsGroup(limits.processes + GROUP_SLACK) : undefined;
    const line = opts.byLine === true ? commandLine(req.command, req.args) : '';
    const ahead = line !== '' && new TextEncoder().encode(line).length <= LINE_MAX;
    const target = ahead ? [LAUNCH_SHELL, '-c', TRAMPOLINE] : [req.command, ...req.args];
    const inner = limits && !group && probe.prlimit ? [...prlimitArgs(probe.prlimit, limits), ...target] : target;
    const args = bwrapArgs(view, req.cwd, inner[0], inner.slice(1), { infoFd: INFO_FD, seccompFd: SECCOMP_FD });
    const programs = [probe.program, LAUNCH_SHELL, ...(probe.prlimit ? [probe.prlimit] : [])];
    // a probe made before these roots were noted may have chosen a program inside them: never run it
    const planted = programs.find((p) => view.roots.some((r) => isWithin(r, p)));
    if (planted) throw new Error(`${planted} lies inside ${view.roots.join(', ')}, where a command may write: cxl does not start it (probe the sandbox again with these roots)`);
    const launch: Launch = { command: probe.program, args, view, kind: 'bubblewrap', infoFd: INFO_FD, seccomp: probe.seccomp, programs, ...(limits ? { limits } : {}) };
    if (ahead) {
      launch.line = line;
      // the pids group's own path is not part of it: each launch makes its own group. The filter
      // is the process's one program, held in memory: nothing a command does changes it.
      const env = Object.entries(req.env).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      launch.key = JSON.stringify([programs, args, env, limits ?? null, group ? 'group' : 'no group']);
    }
    if (!group || !limits) return launch;
    return { ...launch, ...inGroup(group, probe.program, args, ulimitLines(limits)), cleanup: group.remove };
  }
  const tmp = [req.env.TMPDIR, process.env.TMPDIR, '/private/tmp'].filter((t): t is string => !!t);
  return { command: probe.program, args: seatbeltArgs(view, req.command, req.args, { tempDirs: [...new Set(tmp)] }), view, kind: 'seatbelt' };
}

/**
 * Writes the launch's filter into the pipe the spawner put on SECCOMP_FD (bwrap reads it to EOF
 * before starting anything). A bwrap that died before reading it breaks the pipe: its exit says why.
 */
export function feedSeccomp(launch: Pick<Launch, 'seccomp'>, stdio: readonly unknown[]): void {
  if (!launch.seccomp) return;
  const pipe = stdio[SECCOMP_FD] as NodeJS.WritableStream | null | undefined;
  if (!pipe) throw new Error('the sandbox was spawned without a pipe for its seccomp filter');
  pipe.on('error', () => {});
  pipe.end(launch.seccomp);
}

export interface SandboxFailure {
  /** exit code to report instead (127 not found, 126 cannot run), or null when nothing ran */
  exitCode: number | null;
  message: string;
}

/**
 * bwrap's own message when the command never ran: `execvp` failures become the usual 127/126
 * with the usual words; any other `bwrap: …` line with exit 1 is the sandbox failing to start.
 */
export function bwrapFailure(exitCode: number | null, stderr: string, command: string): SandboxFailure | undefined {
  // the sandbox's shell in front of the command (TRAMPOLINE)
  const tramp = /^cxl-sandbox-exec: (12[67]) (.*)/.exec(stderr);
  if (tramp && exitCode === Number(tramp[1])) return { exitCode, message: `cannot run ${command}: ${tramp[2]}` };
  // prlimit in front of the command: its exec failure, in the usual words
  const pre = /^prlimit: failed to execute .*?: (.*)$/m.exec(stderr);
  if (pre && (exitCode === 127 || exitCode === 126)) return { exitCode, message: `cannot run ${command}: ${exitCode === 127 ? 'not found' : pre[1]}` };
  if (exitCode === 1 && stderr.startsWith('cxl-sandbox: ')) return { exitCode: null, message: stderr.split('\n')[0].slice('cxl-sandbox: '.length) };
  if (exitCode !== 1 || !stderr.startsWith('bwrap: ')) return undefined;
  const line = stderr.split('\n')[0];
  const exec = /^bwrap: execvp .*: (.*)$/.exec(line);
  if (exec) {
    const notFound = /No such file/.test(exec[1]);
    return { exitCode: notFound ? 127 : 126, message: `cannot run ${command}: ${notFound ? 'not found' : exec[1]}` };
  }
  return { exitCode: null, message: line.slice('bwrap: '.length) };
}
