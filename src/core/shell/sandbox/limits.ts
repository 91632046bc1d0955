// The bounds of a command nobody approved (the read-only profile: what the prefix allowlist runs
// unasked, such as a cloned repository's test suite): how many processes and threads it may
// have, how much memory each may take, how much CPU time each may burn, and how long the whole
// may run. A fork bomb or a runaway allocation in a test run would otherwise take the machine
// down with the command; an approved command keeps the machine's own limits and its timeout.
//
// Process count: RLIMIT_NPROC, set inside the sandbox, where bubblewrap's user namespace makes
// the kernel count the command's tasks only (Linux 5.14+); the kernel never applies it to uid 0,
// so a pids cgroup (cgroup.ts) bounds the command too when this process may make one. Memory:
// RLIMIT_DATA rather than RLIMIT_AS, which JIT runtimes' reservations exceed (Node cannot even
// make a WebAssembly memory under an 8 GiB RLIMIT_AS). Both through util-linux `prlimit`, run
// inside the sandbox in front of the command.
import { readFileSync } from 'node:fs';
import os from 'node:os';

export interface Limits {
  /** tasks (processes and threads) */
  processes: number;
  /** bytes of data segment and private writable mappings, per process */
  dataBytes: number;
  /** CPU seconds, per process (SIGXCPU, then SIGKILL) */
  cpuSeconds: number;
  /** wall clock for the whole line, at most: a longer `timeout` is cut to this */
  timeoutMs: number;
}

const GIB = 1024 ** 3;

/** The bounds of an unasked command. */
export const UNASKED_LIMITS: Readonly<Limits> = Object.freeze({
  processes: 1024,
  dataBytes: Math.min(4 * GIB, Math.floor(os.totalmem() / 2)),
  cpuSeconds: 120,
  timeoutMs: 5 * 60 * 1000,
});

/** This process's hard limits by /proc/self/limits row name (`Max processes`); absent: unlimited or unknown. */
function hardLimits(text?: string): Map<string, number> {
  const out = new Map<string, number>();
  let t = text;
  try {
    t ??= readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return out;
  }
  for (const line of t.split('\n')) {
    const m = /^(Max [a-z ]+?)\s{2,}(\S+)\s+(\d+)\b/.exec(line);
    if (m) out.set(m[1], Number(m[3]));
  }
  return out;
}

/**
 * The limits as set for a command: each no higher than this process's hard limit (an unprivileged
 * process may lower a hard limit, never raise it). `limitsText`: /proc/self/limits as read (tests).
 */
function capped(l: Limits, limitsText?: string): Pick<Limits, 'processes' | 'dataBytes' | 'cpuSeconds'> {
  const hard = hardLimits(limitsText);
  const cap = (row: string, v: number) => Math.min(v, hard.get(row) ?? v);
  return { processes: cap('Max processes', l.processes), dataBytes: cap('Max data size', l.dataBytes), cpuSeconds: cap('Max cpu time', l.cpuSeconds) };
}

/** `prlimit` in front of a command: the capped limits as soft and hard limit, then `--`. */
export function prlimitArgs(prlimit: string, l: Limits, limitsText?: string): string[] {
  const c = capped(l, limitsText);
  return [prlimit, `--nproc=${c.processes}`, `--data=${c.dataBytes}`, `--cpu=${c.cpuSeconds}`, '--'];
}

/**
 * The same limits for a POSIX `sh` in front of the sandbox (uid 0 only, where the pids cgroup
 * bounds the process count): memory and CPU by `ulimit`, which sets soft and hard alike. It saves
 * the exec of prlimit inside (a few ms of every unasked command); the two limits then hold for
 * bubblewrap as well, which needs neither much memory nor CPU.
 */
export function ulimitLines(l: Limits, limitsText?: string): string {
  const c = capped(l, limitsText);
  return `ulimit -d ${Math.floor(c.dataBytes / 1024)} && ulimit -t ${c.cpuSeconds}`;
}

/** How the limits read in a message. */
export function describeLimits(l: Limits): string {
  const mem = l.dataBytes >= GIB ? `${+(l.dataBytes / GIB).toFixed(1)} GiB` : `${Math.round(l.dataBytes / 1024 ** 2)} MiB`;
  const wall = l.timeoutMs >= 60_000 ? `${+(l.timeoutMs / 60_000).toFixed(1)} min` : `${+(l.timeoutMs / 1000).toFixed(1)} s`;
  return `${l.processes} processes and threads, ${mem} of memory and ${l.cpuSeconds} s of CPU per process, ${wall} in all`;
}
