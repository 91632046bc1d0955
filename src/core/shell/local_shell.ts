// The `local_shell` toolset: one tool that runs a command line (or an argv) under
// tools_policies.local_shell. With a policy the line is checked and run as argv steps with no
// shell; without one it goes to the platform shell. What a call will do before it runs is its
// plan (plan.ts).
import { realpathSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { checkArgs } from '../contract/args.ts';
import type { CallPlan, CallView, PlanContext, Toolset, ToolOutput } from '../contract/toolset.ts';
import { parseDuration } from '../duration.ts';
import { ToolError } from '../errors.ts';
import { defaultIdentityIndex, type IdentityIndex } from '../protect/identity.ts';
import type { ToolSpec } from '../tool.ts';
import { checkArgv, checkLine, type Allowed, type ShellPolicy, type Verdict } from './checker.ts';
import { hiddenCharacter } from './lexer.ts';
import { DEFAULT_CLIENT_OUTPUT_LIMIT } from './client_terminal.ts';
import { policyRefusal } from './shell_policy.ts';
import { childEnv, dropReason, isAllowedName } from './env.ts';
import { LocalTerminalHost } from './local_terminal.ts';
import { DEFAULT_OUTPUT_LIMIT } from './output_limit.ts';
import { LOCAL_SHELL, planShellCall, shellOutput, shellView, type PreparedLine, type ShellArgs, type ShellCallOptions } from './plan.ts';
import { DEFAULT_SANDBOX_CALL, INSTALL_HINT, isWorking, type SandboxCall, type SandboxMode, type SandboxReport, type SandboxState, type TerminalSandbox } from './sandbox/settings.ts';
import { parseShellPolicy } from './shell_policy.ts';
import { runtimeDirsOf } from './sandbox/launcher.ts';
import { noteWorkspaces } from './sandbox/launch_programs.ts';
import { describeLeftBehind, protectedNow, settle, type LeftBehind, type Snapshot } from './sandbox/left_behind.ts';
import { describeLimits, UNASKED_LIMITS, type Limits } from './sandbox/limits.ts';
import { dataDir } from '../platform/data_dir.ts';
import { displayArgv, runArgv, runShellLine, runSteps, type RunOptions, type ShellResult } from './runner.ts';
import type { TerminalHost } from './terminal.ts';

export { LOCAL_SHELL, type ShellCallOptions };

export const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;
const MAX_TIMEOUT_MS = 24 * 60 * 60 * 1000;

export interface LocalShellOptions {
  /** the session root: where lines start without a `cwd` or `_allowed_dir`, and what a relative `_allowed_dir` is taken from */
  root: string;
  /** tools_policies.local_shell as strings; undefined or no keys = no policy */
  policy?: Record<string, unknown>;
  /** where programs run; default: child processes on this machine */
  host?: TerminalHost;
  /** base environment (default process.env): commands get its allowlisted variables (env.ts), or all of it with keepSecrets */
  env?: Record<string, string | undefined>;
  keepSecrets?: boolean;
  /** variables (names or `PREFIX_*`) passed beyond the allowlist, in every call (an envelope's shell.env adds per call) */
  envAllow?: readonly string[];
  /** per-stream output cap; default 2 MiB locally, 1 MiB asked of a client */
  outputLimit?: number;
  /** PATH for program lookup under a policy (default: process.env.PATH) */
  pathEnv?: string;
  /** the platform shell used without a policy */
  shell?: string;
  /** sandbox settings for calls that bring none (the gate brings the envelope's); default auto, network on */
  sandbox?: { mode?: SandboxMode; network?: boolean };
  /** identities of protected files, for a word naming a hard link to one (default: the shared index over $HOME) */
  identity?: IdentityIndex;
  /** the bounds of commands that run unasked, over the defaults (sandbox/limits.ts) */
  unaskedLimits?: Partial<Limits>;
  /**
   * the session's additional directories, checked and canonical (local_fs/extra_roots.ts): `cd`
   * may go there under the policy, and the sandbox treats them as it treats the workspace
   * (writable under workspace-write, read-only otherwise, their protected files hidden)
   */
  extra?: readonly string[];
}

export const LOCAL_SHELL_SPEC: ToolSpec = {
  toolset: LOCAL_SHELL,
  name: LOCAL_SHELL,
  kind: 'execute',
  description:
    'Run a command on this machine and get {exit_code, stdout, stderr, success, duration_seconds, command, steps?}. ' +
    'Under a command policy the line may hold only plain words, quotes and && || ; between commands, plus `cd DIR`; ' +
    'pipes, redirections, globs, $, backticks and backslashes are refused (run one program per call instead).',
  longDescription:
    'Runs `command` (a command line) in `cwd` (default: the workspace root). With tools_policies.local_shell set, the line is ' +
    'read with sh grammar and every program of every step must be allowed (_allowed_commands) and not denied ' +
    '(_denied_commands); `cd DIR` moves the later steps and may not leave _allowed_dir. Quoted patterns are literal ' +
    "arguments: find . -name '*.go' works, ls *.go is refused. Each step then runs as its own program without a shell. " +
    'Alternatively pass `command` as the program and `args` as its argument list: it is never read as a line. ' +
    '`timeout` is a duration (30s, 5m) or seconds, default 10m; on timeout everything the command started is killed. ' +
    'A non-zero exit is a normal result with success false. Prefer local_fs tools for reading and editing files.',
  inputSchema: {
    type: 'object',
    properties: {
      command: { type: 'string', description: 'the command line, or the program when `args` is given' },
      args: { type: 'array', items: { type: 'string' }, description: 'argument list: makes `command` a program run with exactly these arguments' },
      cwd: { type: 'string', description: 'working directory, relative to the workspace root (default: the root)' },
      timeout: { type: ['string', 'number'], description: 'a duration such as 30s or 5m, or seconds; default 10m' },
      shell: { type: 'boolean', description: 'hand the line to the platform shell; refused while a command policy is active' },
    },
    required: ['command'],
    additionalProperties: false,
  },
};

/** local_shell's `timeout` in milliseconds: a duration (core/duration.ts), the default when absent, capped at a day. */
export function parseTimeout(value: unknown): number {
  if (value === undefined || value === null || value === '') return DEFAULT_TIMEOUT_MS;
  const ms = typeof value === 'number' || typeof value === 'string' ? parseDuration(value) : undefined;
  if (ms === undefined) {
    throw new ToolError('bad_args', `timeout ${JSON.stringify(value)} is not a positive duration; use e.g. "30s", "5m" or a number of seconds.`);
  }
  return Math.min(ms, MAX_TIMEOUT_MS);
}

/**
 * The argv form is never lexed, so its words meet the lexer's rule for quoted text here: no
 * control or invisible character but newline and tab (which an approval shows escaped). A word
 * that displays as something other than it is would put one command before the person and run
 * another.
 */
function refuseHidden(program: string, args: readonly string[]): void {
  for (const [i, word] of [program, ...args].entries()) {
    const hit = hiddenCharacter(word);
    if (!hit) continue;
    const which = i === 0 ? '`command` (the program)' : `\`args[${i - 1}]\``;
    throw new ToolError('bad_args', `${which} holds ${hit.description} at offset ${hit.offset}: it is invisible or changes how the command displays, so the person approving it would not see what runs. Remove it.`);
  }
}

function refusal(v: Exclude<Verdict, { verdict: 'allow' }>): ToolError {
  return policyRefusal(v);
}

/** A call's arguments, checked against the schema and read. */

export class LocalShell implements Toolset {
  readonly name = LOCAL_SHELL;
  readonly policy: ShellPolicy | undefined;
  /** the session root (lines start here without a cwd or _allowed_dir) */
  readonly root: string;
  readonly host: TerminalHost;
  /** identities of protected files (a hard link to one is it) */
  readonly identity: IdentityIndex;

  constructor(private readonly opts: LocalShellOptions) {
    this.root = path.resolve(opts.root);
    const parsed = parseShellPolicy(opts.policy, this.root);
    this.policy = parsed && opts.extra?.length ? { ...parsed, extraDirs: [...opts.extra] } : parsed;
    this.host = opts.host ?? new LocalTerminalHost();
    // what its commands may write: the programs the sandbox starts are chosen outside it
    noteWorkspaces(this.writableRoots);
    this.identity = opts.identity ?? defaultIdentityIndex;
  }

  list(): ToolSpec[] {
    return [LOCAL_SHELL_SPEC];
  }

  view(_tool: string, args: Record<string, unknown>): CallView {
    return shellView(args);
  }

  plan(tool: string, args: Record<string, unknown>, ctx: PlanContext): CallPlan {
    if (tool !== LOCAL_SHELL) throw new ToolError('unknown_tool', `local_shell has one tool, local_shell; got ${tool}.`);
    return planShellCall(this, args, ctx);
  }

  output(_tool: string, result: unknown): ToolOutput {
    return shellOutput(result);
  }

  /** The sandbox settings a call without its own gets (the toolset's, defaults filled in). */
  get defaultSandbox(): SandboxCall {
    return { ...DEFAULT_SANDBOX_CALL, ...(this.opts.sandbox?.mode ? { mode: this.opts.sandbox.mode } : {}), ...(this.opts.sandbox?.network !== undefined ? { network: this.opts.sandbox.network } : {}) };
  }

  /** The sandbox commands would run in under `mode` (probed once per process). */
  sandboxState(mode: SandboxMode = this.defaultSandbox.mode, network = this.defaultSandbox.network): SandboxState {
    if (mode === 'off') return { state: 'off', reason: 'shell.sandbox = "off"' };
    return this.host.sandboxState?.(network) ?? { state: 'unavailable', reason: `the ${this.host.kind} terminal host cannot sandbox commands` };
  }

  /** The bounds of a command that runs unasked. */
  get unaskedLimits(): Limits {
    return { ...UNASKED_LIMITS, ...this.opts.unaskedLimits };
  }

  /** The session root as resolved (links followed), for where a recursive reader's links lead. */
  #realRoot(): string {
    try {
      return realpathSync.native(this.root);
    } catch {
      return this.root;
    }
  }

  /** The session's additional directories (canonical). */
  get extra(): readonly string[] {
    return this.opts.extra ?? [];
  }

  /** The directories a workspace-write call may write: the session root, the policy's allowed dir and the session's additional directories. */
  get writableRoots(): string[] {
    const a = this.policy?.allowedDir;
    const roots = a && a !== this.root ? [this.root, a] : [this.root];
    for (const d of this.opts.extra ?? []) if (!roots.includes(d)) roots.push(d);
    return roots;
  }

  /** What the terminals of one call get, and what its result reports; refuses under `required`. */
  #sandbox(call: SandboxCall): { req?: TerminalSandbox; report: SandboxReport } {
    if (call.mode === 'off') return { report: { state: 'off' } };
    const state = this.sandboxState(call.mode, call.network);
    if (!isWorking(state)) {
      if (call.mode === 'required') {
        throw new ToolError('sandbox_unavailable', `No OS sandbox can run this command here (${state.reason ?? state.state}), and the envelope's shell.sandbox is "required". ${INSTALL_HINT}, or choose an envelope with shell.sandbox = "auto".`, { reason: state.reason });
      }
      return { report: { state: 'unavailable', ...(state.reason ? { reason: state.reason } : {}) } };
    }
    const base = this.opts.env ?? process.env;
    const hidden = [...runtimeDirsOf(base), dataDir(base)];
    const req: TerminalSandbox = { profile: call.profile, network: call.network, roots: this.writableRoots, hidden, ...(call.visible?.length ? { visible: call.visible } : {}), ...(call.profile === 'read-only' ? { limits: this.unaskedLimits } : {}) };
    return { req, report: { state: state.state, profile: call.profile, network: call.network } };
  }

  /**
   * The verdict for a call's arguments without running anything (what `cxl check` and approvals
   * show). `askable`: a human can be asked about what needs one (the envelope then asks).
   */
  check(args: Record<string, unknown>, o: { askable?: boolean } = {}): Verdict | null {
    return this.#verdict(this.parseArgs(args), o.askable === true);
  }

  /** The arguments checked once and the policy's verdict on them, for the plan to hand to the run. */
  prepare(args: Record<string, unknown>, askable: boolean): PreparedLine {
    const parsed = this.parseArgs(args);
    return { args: parsed, verdict: this.#verdict(parsed, askable), askable };
  }

  #verdict({ command, argv, cwd }: ShellArgs, askable: boolean): Verdict | null {
    if (!this.policy) return null;
    const opts = { cwd, pathEnv: this.opts.pathEnv, askable, root: this.#realRoot() };
    return argv ? checkArgv(command, argv, this.policy, opts) : checkLine(command, this.policy, opts);
  }

  /** A call's line or argv and the real directory it starts in (for the envelope without a policy). */
  describe({ command, argv, cwd }: ShellArgs): { command: string; argv?: string[]; start: string } {
    const dir = cwd ?? this.policy?.allowedDir ?? this.root;
    let start = dir;
    try {
      start = realpathSync.native(dir);
    } catch {
      // a missing cwd fails when the call runs; the words are still read from where it names
    }
    return { command, ...(argv ? { argv } : {}), start };
  }

  /** The arguments as the schema types them (core/contract/args.ts), then what they mean: every bad one is bad_args before anything is asked. */
  private parseArgs(args: Record<string, unknown>): ShellArgs {
    const a = checkArgs(LOCAL_SHELL, LOCAL_SHELL_SPEC.inputSchema, args);
    const command = a.command as string;
    if (command.trim() === '') throw new ToolError('bad_args', '`command` is required: the command line to run (or the program, with `args`).');
    const argv = a.args as string[] | undefined;
    if (argv) refuseHidden(command, argv);
    let cwd = typeof a.cwd === 'string' && a.cwd !== '' ? path.resolve(this.root, a.cwd) : undefined;
    // Lines start at the session root unless _allowed_dir says where (never the process's cwd).
    if (cwd === undefined && !this.policy?.allowedDir) cwd = this.root;
    return { command, ...(argv ? { argv } : {}), ...(cwd !== undefined ? { cwd } : {}), timeoutMs: parseTimeout(a.timeout), shell: a.shell as boolean | undefined };
  }

  /**
   * A read-only run of git must find the repository that was checked: the root's own .git (an
   * earlier step or another process may have changed what git would find since).
   */
  private ownRepository(v: Allowed): void {
    const own = path.join(realpathSync.native(this.policy?.allowedDir ?? this.root), '.git');
    for (const s of v.steps) {
      if (s.kind !== 'run' || !s.args.git) continue;
      const other = s.args.git.repos.find((r) => r !== own);
      if (other !== undefined) {
        throw new ToolError('policy_refused', `\`${s.argv.join(' ')}\` would now use ${other ?? 'no repository'}, not the workspace's own .git, so it cannot run as read-only. Ask again.`);
      }
    }
  }

  async call(tool: string, args: Record<string, unknown>, callOpts: ShellCallOptions = {}): Promise<ShellResult> {
    if (tool !== LOCAL_SHELL) throw new ToolError('unknown_tool', `local_shell has one tool, local_shell; got ${tool}.`);
    const prepared = callOpts.prepared;
    const { command, argv, cwd, timeoutMs: asked, shell } = prepared?.args ?? this.parseArgs(args);
    // nobody approved it: bounded in time whatever it asked (limits.ts)
    const timeoutMs = callOpts.readOnly ? Math.min(asked, this.unaskedLimits.timeoutMs) : asked;
    const sandbox = this.#sandbox(callOpts.sandbox ?? this.defaultSandbox);
    // a sandbox that may write: what it creates under a protected name is settled after it (left_behind.ts)
    const before = sandbox.req?.profile === 'workspace-write' ? protectedNow(sandbox.req.roots) : undefined;
    let result: ShellResult;
    try {
      result = await this.#run(command, argv, cwd, timeoutMs, shell, callOpts.signal, sandbox.req, { readOnly: callOpts.readOnly === true, approved: callOpts.approved === true, env: callOpts.env ?? [], ...(prepared ? { prepared } : {}), ...(callOpts.onTerminal ? { onTerminal: callOpts.onTerminal } : {}) });
    } catch (err) {
      const left = await this.#settle(before, sandbox.req, callOpts);
      if (left.length && err instanceof ToolError) throw new ToolError(err.code, `${err.message}\n${describeLeftBehind(left)}`, { ...err.details, left_behind: left });
      throw err;
    }
    const left = await this.#settle(before, sandbox.req, callOpts);
    if (!left.length) return { ...result, sandbox: sandbox.report };
    const note = describeLeftBehind(left);
    return { ...result, stderr: result.stderr ? `${result.stderr.replace(/\n?$/, '\n')}${note}\n` : `${note}\n`, sandbox: sandbox.report, left_behind: left };
  }

  /** Removes (or asks about) what the command created under protected names; nothing when it could not write. */
  async #settle(before: Snapshot | undefined, req: TerminalSandbox | undefined, callOpts: ShellCallOptions): Promise<LeftBehind[]> {
    if (!before || !req) return [];
    return settle(before, req.roots, callOpts.keep ?? (async () => false), path.join(dataDir(this.opts.env ?? process.env), 'left-behind'));
  }

  async #run(
    command: string,
    argv: string[] | undefined,
    cwd: string | undefined,
    timeoutMs: number,
    shell: boolean | undefined,
    signal: AbortSignal | undefined,
    sandbox: TerminalSandbox | undefined,
    o: { readOnly: boolean; approved: boolean; env: readonly string[]; prepared?: PreparedLine; onTerminal?: (terminalId: string) => Promise<void> },
  ): Promise<ShellResult> {
    const allow = [...(this.opts.envAllow ?? []), ...o.env];
    const env = childEnv(this.opts.env ?? process.env, { keepSecrets: this.opts.keepSecrets, allow });
    const run: RunOptions = {
      host: this.host,
      env,
      // a client's terminal runs in the client's environment: what the person added goes along
      ...(allow.length ? { forceEnv: Object.keys(env).filter((k) => !isAllowedName(k) && dropReason(k, env[k], { allow }) === undefined) } : {}),
      timeoutMs,
      signal,
      outputLimit: this.opts.outputLimit ?? (this.host.kind === 'client' ? DEFAULT_CLIENT_OUTPUT_LIMIT : DEFAULT_OUTPUT_LIMIT),
      ...(sandbox ? { sandbox } : {}),
      ...(o.onTerminal ? { onTerminal: o.onTerminal } : {}),
      ...(o.readOnly ? { gitReadOnly: true, timeoutNote: `a command that runs unasked is limited (${describeLimits(this.unaskedLimits)}); one a human approves may run longer` } : {}),
    };
    const checkOpts = { cwd, pathEnv: this.opts.pathEnv, askable: o.approved, root: this.#realRoot() };
    if (this.policy) {
      if (shell) throw new ToolError('policy_refused', '`shell: true` is refused while a command policy is active: the line is checked and run without a shell. Drop `shell`.');
      // the plan's verdict stands when it was reached as this run is asked (a human could answer
      // then as one did now); a read-only run checks again, for the repository git would find now
      const p = o.prepared;
      const v = p?.verdict && p.askable === o.approved && !o.readOnly ? p.verdict : argv ? checkArgv(command, argv, this.policy, checkOpts) : checkLine(command, this.policy, checkOpts);
      if (v.verdict === 'refuse') throw refusal(v);
      if (o.readOnly) this.ownRepository(v);
      return argv ? runSteps(v, displayArgv([command, ...argv]), run) : runSteps(v, command, run);
    }
    const dir = cwd ?? this.root;
    if (o.readOnly || shell === false) {
      // No policy but no shell either (or a line allowed as read-only, which never goes to a
      // shell): split with the same grammar and run the steps ourselves.
      const lineOpts = { ...(checkOpts.cwd ? checkOpts : { ...checkOpts, cwd: dir }), argRules: 'report' as const };
      const v = argv ? checkArgv(command, argv, {}, lineOpts) : checkLine(command, {}, lineOpts);
      if (v.verdict === 'refuse') throw refusal(v);
      if (o.readOnly) this.ownRepository(v);
      return runSteps(v, argv ? displayArgv([command, ...argv]) : command, run);
    }
    if (argv) return runArgv(command, argv, dir, run);
    return runShellLine(command, dir, run, this.opts.shell);
  }
}

export function createLocalShell(opts: LocalShellOptions): LocalShell {
  return new LocalShell(opts);
}
