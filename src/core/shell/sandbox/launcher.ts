// Turns a terminal request into the program to spawn: the command itself, or the sandbox
// program wrapping it with the view built for this command now. Also reads bubblewrap's own
// failures back out of a finished command (a mount that could not be made, a program not found).
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import type { TerminalRequest } from '../terminal.ts';
import { dataDir } from '../../platform/data_dir.ts';
import { bwrapArgs } from './bwrap.ts';
import { inGroup, pidsGroup } from './cgroup.ts';
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
  /** the seccomp program bwrap reads on SECCOMP_FD (opened afresh for each spawn) */
  seccompFile?: string;
  /** the bounds of an unasked command, when applied (limits.ts) */
  limits?: Limits;
  /** run once the command is gone (removes its pids cgroup) */
  cleanup?: () => void;
}

/** stdio slot of the pipe bwrap writes `{"child-pid": N}` to. */
export const INFO_FD = 3;
/** stdio slot bwrap reads the seccomp filter from. */
export const SECCOMP_FD = 4;
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

export function sandboxLaunch(probe: Probe, req: TerminalRequest, sandbox: TerminalSandbox): Launch {
  if (!probe.program || (probe.state !== 'bubblewrap' && probe.state !== 'seatbelt')) {
    throw new Error(`no working sandbox to launch in: ${probe.reason ?? probe.state}`);
  }
  const hidden = [...(sandbox.hidden ?? []), dataDir(req.env), dataDir(process.env)];
  const view = buildView({ ...sandbox, roots: [...sandbox.roots], homes: homesOf(req.env), runtimeDirs: runtimeDirsOf(req.env), hidden });
  if (probe.state === 'bubblewrap') {
    if (!probe.seccompFile) throw new Error('no seccomp filter to launch with: the probe found none');
    // nobody approved a read-only command: it runs bounded. uid 0 (whom the kernel never holds to
    // RLIMIT_NPROC) counts its processes in a pids cgroup, entered by a `sh` that sets the other
    // limits too; anyone else gets prlimit inside the sandbox.
    const limits = sandbox.profile === 'read-only' ? (sandbox.limits ?? UNASKED_LIMITS) : undefined;
    const group = limits && process.getuid?.() === 0 ? pidsGroup(limits.processes + GROUP_SLACK) : undefined;
    const inner = limits && !group && probe.prlimit ? [...prlimitArgs(probe.prlimit, limits), req.command, ...req.args] : [req.command, ...req.args];
    const args = bwrapArgs(view, req.cwd, inner[0], inner.slice(1), { infoFd: INFO_FD, seccompFd: SECCOMP_FD });
    const launch: Launch = { command: probe.program, args, view, kind: 'bubblewrap', infoFd: INFO_FD, seccompFile: probe.seccompFile, ...(limits ? { limits } : {}) };
    if (!group || !limits) return launch;
    return { ...launch, ...inGroup(group, probe.program, args, ulimitLines(limits)), cleanup: group.remove };
  }
  const tmp = [req.env.TMPDIR, process.env.TMPDIR, '/private/tmp'].filter((t): t is string => !!t);
  return { command: probe.program, args: seatbeltArgs(view, req.command, req.args, { tempDirs: [...new Set(tmp)] }), view, kind: 'seatbelt' };
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
