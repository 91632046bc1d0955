// Runs what the checker vouched for: each step as an argv on its own terminal, no shell in
// between, with `cd` and the && || ; semantics interpreted here. Without a policy a line goes to
// the platform shell as one terminal. Timeout and cancellation kill the running terminal's
// process group and end the whole line.
import { ToolError } from '../errors.ts';
import { displayArgv } from '../argv_display.ts';
import type { Allowed, CheckedStep } from './checker.ts';
import { isInside, ResolveError, resolveDirectory } from './confine.ts';
import { GIT_READ_ONLY_ENV, hardenGitArgv, hardenGitEnv } from './git_harden.ts';
import { capText } from './output_limit.ts';
import type { LeftBehind } from './sandbox/left_behind.ts';
import type { SandboxReport, TerminalSandbox } from './sandbox/settings.ts';
import type { TerminalExit, TerminalHost, TerminalRequest } from './terminal.ts';

export interface RunOptions {
  host: TerminalHost;
  env: Record<string, string>;
  /** whole-line budget; <= 0 = none */
  timeoutMs: number;
  signal?: AbortSignal;
  /** cap on the returned stdout and stderr (head and tail kept) */
  outputLimit: number;
  /** git steps run with repository-driven execution off (the line was allowed as read-only) */
  gitReadOnly?: boolean;
  /** every terminal of the line runs in the OS sandbox with this view */
  sandbox?: TerminalSandbox;
  /** variables of `env` a client's terminal must set too (what the person's shell.env added) */
  forceEnv?: readonly string[];
  /** said with a timeout: why the budget is what it is */
  timeoutNote?: string;
  /** told of each terminal a client's host opens, so the client can show it live (a local terminal's id means nothing there) */
  onTerminal?: (terminalId: string) => Promise<void>;
}

export interface StepResult {
  /** the step as a display string (shell-quoted argv) */
  command: string;
  /** the directory it ran in (for a cd: the directory it moved to) */
  cwd: string;
  /** null when the step was skipped by && / || or killed by a signal */
  exit_code: number | null;
  skipped?: true;
  signal?: string;
}

/** A non-zero exit is a normal result with success false. */
export interface ShellResult {
  exit_code: number | null;
  stdout: string;
  stderr: string;
  success: boolean;
  duration_seconds: number;
  command: string;
  /** present when the line had several steps */
  steps?: StepResult[];
  /** present when output was cut */
  truncated?: true;
  signal?: string;
  /** the sandbox the line ran in (or why none) */
  sandbox?: SandboxReport;
  /** what the command created under protected names, and what became of it (sandbox/left_behind.ts) */
  left_behind?: LeftBehind[];
}

export { displayArgv };

/** The forceEnv of a request: the run's own and the step's. */
function forced(opts: RunOptions, step: readonly string[]): { forceEnv?: readonly string[] } {
  const all = [...(opts.forceEnv ?? []), ...step];
  return all.length ? { forceEnv: all } : {};
}

function seconds(ms: number): number {
  return Math.round(ms) / 1000;
}

interface Collected {
  stdout: string[];
  stderr: string[];
  steps: StepResult[];
  truncated: boolean;
}

async function runTerminal(
  req: TerminalRequest,
  opts: RunOptions,
  deadline: number,
  collected: Collected,
  label: string,
  started: number,
): Promise<{ exitCode: number | null; signal: string | null }> {
  // A sandbox that failed to start ran nothing: the view was stale (a protected file vanished
  // between the scan and the mount), so one retry builds a fresh one.
  const first = await runOnce(req, opts, deadline, collected, label, started, true);
  return first === 'retry' ? ((await runOnce(req, opts, deadline, collected, label, started, false)) as TerminalExit) : first;
}

async function runOnce(
  req: TerminalRequest,
  opts: RunOptions,
  deadline: number,
  collected: Collected,
  label: string,
  started: number,
  mayRetry: boolean,
): Promise<TerminalExit | 'retry'> {
  if (opts.signal?.aborted) throw new ToolError('cancelled', `\`${label}\` was cancelled before it started.`);
  if (deadline > 0 && Date.now() >= deadline) throw new ToolError('timeout', `\`${label}\` did not start: the line's timeout ran out before it. Raise \`timeout\`.`);
  const term = await opts.host.create(opts.sandbox ? { ...req, sandbox: opts.sandbox } : req);
  let stop: 'timeout' | 'cancelled' | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  try {
    if (opts.host.kind === 'client') await opts.onTerminal?.(term.id);
    const stopped = new Promise<void>((resolve) => {
      if (deadline > 0) {
        timer = setTimeout(() => {
          stop = 'timeout';
          resolve();
        }, Math.max(0, deadline - Date.now()));
      }
      if (opts.signal) {
        onAbort = () => {
          stop = 'cancelled';
          resolve();
        };
        if (opts.signal.aborted) onAbort();
        else opts.signal.addEventListener('abort', onAbort, { once: true });
      }
    });
    const exit = await Promise.race([term.waitForExit(), stopped.then(() => null)]);
    if (exit === null || stop) {
      await term.kill();
    }
    if (exit?.sandboxError !== undefined && !stop && mayRetry) return 'retry';
    const out = await term.output();
    collected.stdout.push(out.stdout);
    collected.stderr.push(out.stderr);
    if (out.truncated) collected.truncated = true;
    if (stop) {
      const partial = { stdout: collected.stdout.join(''), stderr: collected.stderr.join(''), steps: collected.steps, command: label };
      const after = seconds(Date.now() - started);
      throw stop === 'timeout'
        ? new ToolError('timeout', `\`${label}\` was killed after ${after}s (timeout); nothing it started is left running. ${opts.timeoutNote ? `${opts.timeoutNote}. ` : ''}Raise \`timeout\` or split the work. Partial output is in details.`, partial)
        : new ToolError('cancelled', `\`${label}\` was cancelled after ${after}s; nothing it started is left running. Partial output is in details.`, partial);
    }
    const done = exit ?? (await term.waitForExit());
    if (done.sandboxError !== undefined) {
      throw new ToolError('sandbox_unavailable', `The sandbox could not start \`${label}\` (${done.sandboxError}); it did not run. Retry it; if this persists, report it with the message.`, { stdout: collected.stdout.join(''), stderr: collected.stderr.join(''), steps: collected.steps, command: label });
    }
    if (done.outputLimit !== undefined) {
      collected.truncated = true;
      collected.stderr.push(`${endedNote(label, done.outputLimit)}\n`);
    }
    return done;
  } finally {
    if (timer) clearTimeout(timer);
    if (onAbort) opts.signal?.removeEventListener('abort', onAbort);
    await term.release().catch(() => {});
  }
}

/** What a step ended at the output cap says (runOnce). */
export function endedNote(label: string, limit: number): string {
  return `cxl: \`${label}\` was ended once its output passed ${limit} bytes (the cap): the output is cut, and nothing it started is left running. Narrow what it prints (a filter, a quieter flag, a log file read in parts).`;
}

function finish(command: string, started: number, collected: Collected, lastExit: number | null, lastSignal: string | null, multi: boolean, limit: number): ShellResult {
  let stdout = collected.stdout.join('');
  let stderr = collected.stderr.join('');
  let truncated = collected.truncated;
  if (multi) {
    const o = capText(stdout, limit);
    const e = capText(stderr, limit);
    stdout = o.text;
    stderr = e.text;
    truncated ||= o.truncated || e.truncated;
  }
  return {
    exit_code: lastExit,
    stdout,
    stderr,
    success: lastExit === 0,
    duration_seconds: seconds(Date.now() - started),
    command,
    ...(multi ? { steps: collected.steps } : {}),
    ...(truncated ? { truncated: true as const } : {}),
    ...(lastSignal ? { signal: lastSignal } : {}),
  };
}

/**
 * Runs the steps of an allowed verdict. `line` is the original command line (for the result).
 * Each `cd` is re-resolved when it runs and must still land inside the allowed dir (a step before
 * it may have replaced a directory with a symlink); if it does not, the line stops there.
 */
export async function runSteps(verdict: Allowed, line: string, opts: RunOptions): Promise<ShellResult> {
  const started = Date.now();
  const deadline = opts.timeoutMs > 0 ? started + opts.timeoutMs : 0;
  const collected: Collected = { stdout: [], stderr: [], steps: [], truncated: false };
  let cwd = verdict.startDir;
  let status: number | null = 0;
  let lastSignal: string | null = null;
  const multi = verdict.steps.length > 1;
  for (const step of verdict.steps) {
    const runIt = step.op === null || step.op === ';' || (step.op === '&&' ? status === 0 : status !== 0);
    const shown = displayArgv(step.argv);
    if (!runIt) {
      // A skipped step leaves the status as it was, as in sh.
      collected.steps.push({ command: shown, cwd, exit_code: null, skipped: true });
      continue;
    }
    if (step.kind === 'cd') {
      const moved = runCd(step, cwd, verdict.allowedDir, verdict.extraDirs ?? []);
      if (typeof moved !== 'string') {
        collected.stderr.push(`${moved.message}\n`);
        collected.steps.push({ command: shown, cwd, exit_code: 1 });
        return finish(line, started, collected, 1, null, multi, opts.outputLimit);
      }
      cwd = moved;
      status = 0;
      collected.steps.push({ command: shown, cwd, exit_code: 0 });
      continue;
    }
    const git = opts.gitReadOnly ? step.args.git : undefined;
    const argv = git ? hardenGitArgv(step.argv, git) : step.argv;
    const env = git?.repos[0] ? hardenGitEnv(opts.env, git.repos[0]) : opts.env;
    const exit = await runTerminal(
      { command: step.resolved, args: argv.slice(1), cwd, env, outputByteLimit: opts.outputLimit, endAtOutputLimit: true, ...forced(opts, git ? GIT_READ_ONLY_ENV : []) },
      opts,
      deadline,
      collected,
      shown,
      started,
    );
    status = exit.exitCode;
    lastSignal = exit.signal;
    collected.steps.push({ command: shown, cwd, exit_code: exit.exitCode, ...(exit.signal ? { signal: exit.signal } : {}) });
  }
  return finish(line, started, collected, status, lastSignal, multi, opts.outputLimit);
}

function runCd(step: CheckedStep, cwd: string, allowedDir: string | undefined, extraDirs: readonly string[]): string | Error {
  const target = step.argv[1];
  let real: string;
  try {
    real = resolveDirectory(cwd, target);
  } catch (err) {
    return new Error(`cd: ${target}: ${err instanceof ResolveError ? err.message : String(err)}; the line stopped here.`);
  }
  if (allowedDir && !isInside(allowedDir, real) && !extraDirs.some((d) => isInside(d, real))) {
    return new Error(`cd: ${target} now leads to ${real}, outside the allowed dir ${allowedDir}${extraDirs.length ? ` and the session's additional directories` : ''}; the line stopped here.`);
  }
  return real;
}

/** One program with its arguments, no shell (the argv form, or a line already split). */
export async function runArgv(program: string, args: string[], cwd: string, opts: RunOptions, label = displayArgv([program, ...args])): Promise<ShellResult> {
  const started = Date.now();
  const collected: Collected = { stdout: [], stderr: [], steps: [], truncated: false };
  const deadline = opts.timeoutMs > 0 ? started + opts.timeoutMs : 0;
  const exit = await runTerminal({ command: program, args, cwd, env: opts.env, outputByteLimit: opts.outputLimit, endAtOutputLimit: true, ...forced(opts, []) }, opts, deadline, collected, label, started);
  return finish(label, started, collected, exit.exitCode, exit.signal, false, opts.outputLimit);
}

/** Without any policy: the line as one `/bin/sh -c` terminal. */
export function runShellLine(line: string, cwd: string, opts: RunOptions, shell = '/bin/sh'): Promise<ShellResult> {
  return runArgv(shell, ['-c', line], cwd, opts, line);
}
