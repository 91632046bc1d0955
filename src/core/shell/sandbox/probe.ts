// Finds the OS sandbox this machine offers and proves it starts, once per process and program:
// bubblewrap (`bwrap` on PATH, from an entry no command can write: launch_programs.ts) on Linux,
// `sandbox-exec` on macOS. A sandbox that cannot start (user namespaces restricted, /proc not
// mountable in a container, a broken install) is reported with the reason it gave, never assumed. Starting is not enough: inside, the probe checks what
// the sandbox relies on (kernel settings under /proc/sys read-only, the unix-socket filter in
// force, no capability left), since a kernel or runtime may ignore a mount or an option without
// an error (gVisor leaves /proc/sys writable; bubblewrap run as root skipped covering it). A
// sandbox that does not hold is reported unavailable, with what failed.
import path from 'node:path';
import process from 'node:process';
import { childProcess, spawnSyncSettled } from '../../platform/runtime.ts';
import { bwrapArgs } from './bwrap.ts';
import { describeSkipped, LAUNCH_SHELL, launchProgram, launchShell, noteWorkspaces, notFoundReason, workspaceGeneration } from './launch_programs.ts';
import { seccompProgram } from './seccomp.ts';
import type { SandboxState } from './settings.ts';
import type { SandboxView } from './view.ts';

export interface ProbeOptions {
  /** PATH to find the program on (default: this process's) */
  pathEnv?: string;
  /** default: process.platform */
  platform?: string;
  /** probe with the network turned off as well (`--unshare-net`) */
  network?: boolean;
  /** directories commands will write: the programs the sandbox starts are taken from outside them (launch_programs.ts) */
  roots?: readonly string[];
}

export interface Probe extends SandboxState {
  /** the program that wraps commands (its real path, found outside every workspace), when it works */
  program?: string;
  /** bubblewrap: the unix-socket filter every command is started with (seccomp.ts), written to a pipe for each start */
  seccomp?: Uint8Array;
  /** util-linux prlimit, which bounds unasked commands inside the sandbox (limits.ts); absent: not installed */
  prlimit?: string;
}

/**
 * The stdio slot the probe hands bwrap the filter on: stdin, a pipe filled from memory like the
 * launcher's SECCOMP_FD. The blocking probe (spawnSync) can write only its child's stdin, and the
 * probe's shell reads nothing (bwrap closes the descriptor once it has read the filter).
 */
const PROBE_SECCOMP_FD = 0;

/**
 * Run inside the sandbox by the probe; exit 3 with `cxl-probe: …` on stderr when something the
 * sandbox relies on does not hold. `printf '' >>` opens for writing and writes nothing: a
 * writable /proc/sys is found without changing a setting (printf, not `:`, whose failed
 * redirection would end dash).
 */
export const HOLDS_SCRIPT = [
  "if printf '' 2>/dev/null >> /proc/sys/kernel/hostname; then echo 'cxl-probe: /proc/sys is writable inside (kernel settings such as the hostname could be changed)' >&2; exit 3; fi",
  'seccomp=; caps=',
  'while read -r k v; do case $k in Seccomp:) seccomp=$v;; CapEff:) caps=$v;; esac; done < /proc/self/status',
  "[ \"$seccomp\" = 2 ] || { echo \"cxl-probe: the unix-socket filter is not in force inside (Seccomp: $seccomp)\" >&2; exit 3; }",
  "[ \"$caps\" = 0000000000000000 ] || { echo \"cxl-probe: capabilities are left inside ($caps)\" >&2; exit 3; }",
].join('\n');

/** The view of the probe: nothing mounted but what every command gets. */
function probeView(network: boolean): SandboxView {
  return { profile: 'read-only', network, roots: [], readOnly: [], hideDirs: [], hideFiles: [], privateTmp: true, maskedHomes: [], homeKeep: [], notes: [] };
}

const cache = new Map<string, Probe>();

function firstLine(s: string): string {
  return s.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
}

function explain(program: string, stderr: string, status: number | null, error?: Error): string {
  if (error) return `${program} did not run: ${error.message}`;
  const held = /^cxl-probe: (.*)$/m.exec(stderr);
  if (held) return `${path.basename(program)} starts, but the sandbox does not hold here: ${held[1]}`;
  const line = firstLine(stderr).replace(/^bwrap: /, '');
  let why = `${path.basename(program)} cannot start a sandbox here${line ? `: ${line}` : ` (exit ${status})`}`;
  if (/uid map|user namespace|Operation not permitted|Permission denied|No permissions/i.test(line)) {
    why += ' (unprivileged user namespaces may be restricted, e.g. by AppArmor on Ubuntu 23.10+: see kernel.apparmor_restrict_unprivileged_userns)';
  } else if (/proc/i.test(line)) {
    why += ' (this container does not allow mounting a private /proc)';
  }
  return why;
}

type RunResult = { ok: boolean; reason?: string };

function outcome(program: string, stderr: string, status: number | null, error?: Error): RunResult {
  if (error) return { ok: false, reason: explain(program, '', null, error) };
  if (status !== 0) return { ok: false, reason: explain(program, stderr, status) };
  return { ok: true };
}

/** Runs the probe; `filter`, when given, on its stdin (PROBE_SECCOMP_FD). */
function run(program: string, args: string[], filter?: Uint8Array): RunResult {
  const r = spawnSyncSettled(program, args, { stdio: [filter ? 'pipe' : 'ignore', 'ignore', 'pipe'], ...(filter ? { input: filter } : {}), timeout: 10_000, encoding: 'utf8' });
  return outcome(program, r.stderr ?? '', r.status, r.error);
}

/** run() without blocking this thread while the sandbox starts. */
function runAsync(program: string, args: string[], filter?: Uint8Array): Promise<RunResult> {
  return new Promise((resolve) => {
    let stderr = '';
    let child;
    try {
      child = childProcess().spawn(program, args, { stdio: [filter ? 'pipe' : 'ignore', 'ignore', 'pipe'], timeout: 10_000 });
    } catch (e) {
      resolve(outcome(program, '', null, e as Error));
      return;
    }
    if (filter) {
      child.stdin?.on('error', () => {}); // a bwrap that failed before reading it: its exit says why
      child.stdin?.end(filter);
    }
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', (e) => resolve(outcome(program, '', null, e)));
    // a signal: the 10 s timeout (or someone) stopped it
    child.once('close', (status, signal) => resolve(outcome(program, stderr, status, signal ? new Error(`stopped by ${signal}`) : undefined)));
  });
}

/** What a probe's answer is remembered under: the network setting, the PATH searched and the workspaces it avoids. */
const probeKey = (pathEnv: string | undefined, network: boolean) => `${network ? 'net' : 'nonet'}\0${workspaceGeneration()}\0${pathEnv ?? ''}`;

// PATH → answer, so a command pays a map lookup, not a PATH search, after the first probe
const byPath = new Map<string, Probe>();

function probeBwrap(pathEnv: string | undefined, network: boolean): Probe {
  const k = probeKey(pathEnv, network);
  let p = byPath.get(k);
  if (!p) {
    const plan = bwrapPlan(pathEnv, network, network ? undefined : probeBwrap(pathEnv, true));
    p = 'probe' in plan ? plan.probe : plan.finish(run(plan.program, plan.args, plan.filter));
    byPath.set(k, p);
  }
  return p;
}

// probes under way, so one started early (the UI's, beside its agent) is the one later callers wait for
const running = new Map<string, Promise<Probe>>();

function probeBwrapAsync(pathEnv: string | undefined, network: boolean): Promise<Probe> {
  const k = probeKey(pathEnv, network);
  const known = byPath.get(k);
  if (known) return Promise.resolve(known);
  let p = running.get(k);
  if (!p) {
    p = (async () => {
      const plan = bwrapPlan(pathEnv, network, network ? undefined : await probeBwrapAsync(pathEnv, true));
      const probe = 'probe' in plan ? plan.probe : plan.finish(await runAsync(plan.program, plan.args, plan.filter));
      byPath.set(k, probe);
      running.delete(k);
      return probe;
    })();
    running.set(k, p);
  }
  return p;
}

/**
 * What probing bwrap takes: an answer already (not on PATH, remembered, the filter unsupported,
 * no sandbox to turn the network off in), or the run to make and how to read its result.
 * `base`: the answer with the network on, asked first when probing with it off (only worth
 * asking once the sandbox itself starts).
 */
function bwrapPlan(pathEnv: string | undefined, network: boolean, base: Probe | undefined): { probe: Probe } | { program: string; args: string[]; filter?: Uint8Array; finish: (r: RunResult) => Probe } {
  const found = launchProgram('bwrap', pathEnv);
  if (!found.program) return { probe: { state: 'unavailable', reason: notFoundReason('bwrap', 'bwrap (bubblewrap)', found) } };
  const program = found.program;
  if (!network && base && base.state !== 'bubblewrap') return { probe: base };
  const sh = launchShell();
  if (!sh.program) return { probe: { state: 'unavailable', reason: `${LAUNCH_SHELL} cannot be started for the sandbox: ${sh.skipped.length ? describeSkipped('sh', sh.skipped) : 'not there'}` } };
  const prlimit = launchProgram('prlimit', pathEnv).program;
  const key = `bwrap\0${program}\0${prlimit ?? ''}\0${network ? 'net' : 'nonet'}`;
  const hit = cache.get(key);
  if (hit) return { probe: hit };
  const filter = seccompProgram();
  if ('unsupported' in filter) return { probe: { state: 'unavailable', reason: filter.unsupported } };
  // The same mounts and options every command gets (bwrap.ts), running the checks of what they promise.
  const args = bwrapArgs(probeView(network), '/', LAUNCH_SHELL, ['-c', HOLDS_SCRIPT], { seccompFd: PROBE_SECCOMP_FD });
  return {
    program,
    args,
    filter: filter.program,
    finish: (r) => {
      const probe: Probe = r.ok
        ? { state: 'bubblewrap', program, reason: prlimit ? program : `${program}; prlimit (util-linux) is not on PATH, so unasked commands run without process, memory and CPU limits`, seccomp: filter.program, ...(prlimit ? { prlimit } : {}) }
        : { state: 'unavailable', reason: network ? r.reason : `the network cannot be turned off: ${r.reason}` };
      cache.set(key, probe);
      return probe;
    },
  };
}

function probeSeatbelt(): Probe {
  const program = '/usr/bin/sandbox-exec';
  const key = `seatbelt\0${program}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const r = run(program, ['-p', '(version 1)(allow default)', '/bin/sh', '-c', 'exit 0']);
  const probe: Probe = r.ok ? { state: 'seatbelt', program, reason: `${program} (untested on hardware by cxl's CI)` } : { state: 'unavailable', reason: r.reason };
  cache.set(key, probe);
  return probe;
}

/**
 * probeSandbox without blocking the thread while the sandbox starts, for a process with other
 * work meanwhile (the UI loads its screen during the probe); remembered the same way.
 */
export async function probeSandboxAsync(opts: ProbeOptions = {}): Promise<Probe> {
  if (opts.roots) noteWorkspaces(opts.roots);
  if ((opts.platform ?? process.platform) === 'linux') return probeBwrapAsync(opts.pathEnv ?? process.env.PATH, opts.network !== false);
  return probeSandbox(opts);
}

/** The sandbox this process can run commands in, probed on first use and remembered. */
export function probeSandbox(opts: ProbeOptions = {}): Probe {
  if (opts.roots) noteWorkspaces(opts.roots);
  const platform = opts.platform ?? process.platform;
  if (platform === 'linux') return probeBwrap(opts.pathEnv ?? process.env.PATH, opts.network !== false);
  if (platform === 'darwin') return probeSeatbelt();
  return { state: 'unavailable', reason: `no OS sandbox is supported on ${platform}` };
}
