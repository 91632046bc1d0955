// What a local_shell call will do, as the toolset contract asks it (core/contract/toolset.ts):
// the line checked by the command policy before anyone is asked (refusals first), its steps and
// the paths its words name for the envelope (facts.ts), the read-approve files that ask in every
// envelope, the sandbox it would run in, what "allow for this session" covers (each program with
// the argument rules it was asked about), the steps an approval shows, and the run with the
// sandbox profile and read-only mode the decision gives. `cxl check` decides on the same facts.
import { realpathSync } from 'node:fs';
import { commandScope, describeAllow, type SessionAllow, type SessionScope } from '../contract/session_scope.ts';
import type { CallPlan, CallView, PlanContext, RunContext, RunQuestion, SandboxFacts, ToolOutput } from '../contract/toolset.ts';
import type { CallFacts, ShellFacts } from '../envelope/index.ts';
import type { IdentityIndex } from '../protect/identity.ts';
import { defaultPathMatcher } from '../protect/matcher.ts';
import type { Allowed, ShellPolicy, Verdict } from './checker.ts';
import { addShellPaths, approvePaths, factsOfVerdict, factsWithoutPolicy, type ShellCall } from './facts.ts';
import { displayArgv, type ShellResult } from './runner.ts';
import type { LeftBehind } from './sandbox/left_behind.ts';
import { envelopeSandbox, type SandboxCall, type SandboxMode, type SandboxState } from './sandbox/settings.ts';
import { failedOnReadOnly, retryWritable, writableRetryQuestion } from './read_only_retry.ts';
import { LOCAL_SHELL, policyRefusal } from './shell_policy.ts';

export { LOCAL_SHELL };

/** Per-call options: the gate passes the envelope's sandbox settings and the call's profile, and how it decided. */
export interface ShellCallOptions {
  signal?: AbortSignal;
  sandbox?: SandboxCall;
  /**
   * The envelope allowed the line as read-only (shell.prefix_allowlist) with no human asked: it
   * runs without a shell, and git runs with repository-driven execution off (git_harden.ts).
   */
  readOnly?: boolean;
  /** A human (or --yes) approved the call: what needed a human (a read-approve path) may run. */
  approved?: boolean;
  /** environment variables passed beyond the built-in allowlist (the envelope's shell.env) */
  env?: readonly string[];
  /**
   * Asked when a sandboxed command created something under an always-ask name: true keeps it.
   * Absent: nobody can be asked, and it is removed (sandbox/left_behind.ts).
   */
  keep?: (item: LeftBehind) => Promise<boolean>;
  /** what the plan made of the arguments and the line: the run checks the arguments no more, and the line again only where something can have changed */
  prepared?: PreparedLine;
  /** told of each terminal a client opens for the line (RunReports.terminal) */
  onTerminal?: (terminalId: string) => Promise<void>;
}

/** A call's arguments as the schema and their meaning check them (command, argv, cwd, timeout, shell). */
export interface ShellArgs {
  command: string;
  argv?: string[];
  cwd?: string;
  timeoutMs: number;
  shell?: boolean;
}

/** What a plan made of a call: its checked arguments, and the command policy's verdict with whether a human could be asked then. */
export interface PreparedLine {
  args: ShellArgs;
  /** null: no command policy */
  verdict: Verdict | null;
  askable: boolean;
}

/** What a plan needs of the toolset. */
export interface ShellParts {
  readonly root: string;
  readonly policy: ShellPolicy | undefined;
  readonly identity: IdentityIndex;
  /** the session's additional directories (canonical): a path there is as the workspace's to the envelope */
  readonly extra?: readonly string[];
  /** The arguments checked once, and the policy's verdict on them. */
  prepare(args: Record<string, unknown>, askable: boolean): PreparedLine;
  describe(args: ShellArgs): { command: string; argv?: string[]; start: string };
  sandboxState(mode: SandboxMode, network: boolean): SandboxState;
  call(tool: string, args: Record<string, unknown>, opts: ShellCallOptions): Promise<unknown>;
}

/** The root words resolve from: the command policy's dir, the workspace the gate names, or the shell's own root (real). */
function wordsRoot(sh: ShellParts, workspace: string | undefined): string {
  const root = sh.policy?.allowedDir ?? workspace ?? sh.root;
  try {
    return realpathSync.native(root);
  } catch {
    return root;
  }
}

/** The facts of a call as the gate builds them: bad arguments and refusals of the command policy throw. */
export function shellCallOf(sh: ShellParts, args: Record<string, unknown>, root: string, askable: boolean): ShellCall & { prepared: PreparedLine } {
  const prepared = sh.prepare(args, askable); // bad arguments throw bad_args here
  const v = prepared.verdict;
  const command = prepared.args.command;
  if (v) {
    if (v.verdict === 'refuse') throw policyRefusal(v);
    return { ...factsOfVerdict(command, v, root), prepared };
  }
  const { argv, start } = sh.describe(prepared.args);
  return { ...factsWithoutPolicy(command, argv, start, root, sh.extra), prepared };
}

/** What the envelope decides a line on: its facts, the read-approve files it names, and the sandbox it would run in. */
export interface LineFacts {
  facts: CallFacts;
  readApprove: string[];
  sandbox?: SandboxFacts;
}

export function lineFacts(call: ShellCall, root: string, identity?: IdentityIndex, sandbox?: SandboxFacts): LineFacts {
  const facts: CallFacts = { toolset: LOCAL_SHELL, tool: LOCAL_SHELL, axis: 'shell', shell: call.facts };
  addShellPaths(facts, call.paths, root, identity, call.extra);
  return { facts, readApprove: approvePaths(call.paths, root), ...(sandbox ? { sandbox } : {}) };
}

/** A line the command policy allowed, as `cxl check` puts it to the envelope: the facts the gate builds. */
export function checkedLine(command: string, verdict: Allowed, root: string, sandbox?: SandboxFacts): LineFacts {
  return lineFacts(factsOfVerdict(command, verdict, root), root, undefined, sandbox);
}

/**
 * What "allow for this session" covers: exactly what asked. A line that asked only because of a
 * path (`cat .env`) gets that path; otherwise each step's program (and subcommand) with the
 * argument rules it was asked with, so a later use of the program with another flag or path
 * that needs a human still asks. A line whose programs cannot all be seen gets no session option.
 */
function scopeOf(sh: ShellFacts, approve: readonly string[]): SessionScope {
  if (sh.opaque !== undefined) return { whole: [] };
  const files: SessionAllow[] = approve.map((path) => ({ kind: 'file', axis: 'files.read', path }));
  const whole: SessionAllow[] = [...files];
  for (const s of sh.steps.filter((x) => x.argv.length && x.argv[0] !== 'cd')) {
    const sc = commandScope(s.inner ?? s.argv, s.notes?.map((n) => n.rule));
    if (sc === null) return { whole: [], paths: files };
    if (!whole.some((o) => describeAllow(o) === describeAllow(sc))) whole.push(sc);
  }
  return { whole, paths: files };
}

/** How a call's command reads: the line as given, or the argv form quoted (hidden characters escaped). */
function commandText(args: Record<string, unknown>): string {
  const cmd = typeof args.command === 'string' ? args.command : '';
  return Array.isArray(args.args) ? displayArgv([cmd, ...args.args.map(String)]) : cmd;
}

/** `local_shell: <line>` (the argv form quoted), cut at 200 characters: a title; an approval shows the steps whole. */
export function shellView(args: Record<string, unknown>): CallView {
  return { title: `${LOCAL_SHELL}: ${commandText(args).slice(0, 200)}`, kind: 'execute', locations: [] };
}

export function planShellCall(sh: ShellParts, args: Record<string, unknown>, ctx: PlanContext): CallPlan {
  const root = wordsRoot(sh, ctx.root);
  const call = shellCallOf(sh, args, root, ctx.askable);
  const { mode, network } = envelopeSandbox(ctx.envelope.resolved.shell);
  const line = lineFacts(call, root, sh.identity, { mode, network, state: sh.sandboxState(mode, network) });
  const scope = scopeOf(call.facts, line.readApprove);
  return {
    ...line,
    // a command may change any file: the workspace is compared around it
    effects: 'workspace',
    scope,
    locations: line.readApprove,
    approval: async () => ({ title: `${LOCAL_SHELL}: ${commandText(args)}`, steps: call.shown }),
    run: async (rc) => {
      const env = ctx.envelope.resolved.shell.env?.value ?? [];
      const first = await runLine(sh, args, call.prepared, line.facts, { mode, network }, env, rc);
      if (!rc.readOnly || !failedOnReadOnly(first)) return first;
      // a line the allowlist ran read-only that failed writing: asked again, never a silent EROFS
      const ask = () => rc.ask(writableRetryQuestion(commandText(args), args, scope.whole));
      return retryWritable(first as object, ask, () => runLine(sh, args, call.prepared, line.facts, { mode, network }, env, { ...rc, readOnly: false, approvedBy: 'human' }) as Promise<object>);
    },
  };
}

/**
 * The sandbox profile the decision gives (read-only when the prefix allowlist let it through
 * unasked, else workspace-write), with the read-approve files an approval named left visible.
 */
function runLine(sh: ShellParts, args: Record<string, unknown>, prepared: PreparedLine, facts: CallFacts, settings: { mode: SandboxMode; network: boolean }, env: readonly string[], rc: RunContext): Promise<unknown> {
  const named = rc.approvedBy === 'human' || rc.approvedBy === 'human-session' || rc.approvedBy === 'yes';
  const visible = named ? [...new Set((facts.absolute ?? []).filter((a) => defaultPathMatcher.classify(a) === 'read_approve'))] : [];
  const sandbox: SandboxCall = { ...settings, profile: rc.readOnly ? 'read-only' : 'workspace-write', ...(visible.length ? { visible } : {}) };
  const keep = (item: LeftBehind) => rc.ask(keepQuestion(args, item));
  return sh.call(LOCAL_SHELL, args, { signal: rc.signal, sandbox, readOnly: rc.readOnly, approved: rc.approvedBy !== undefined, keep, prepared, ...(env.length ? { env } : {}), ...(rc.reports?.terminal ? { onTerminal: rc.reports.terminal } : {}) });
}

/** The second question about a file an approved command created under an always-ask name: asked even though the command was approved. */
function keepQuestion(args: Record<string, unknown>, item: LeftBehind): RunQuestion {
  return {
    tool: LOCAL_SHELL,
    title: `keep ${item.path}, which \`${commandText(args)}\` created?`,
    kind: 'edit',
    args: { path: item.path },
    locations: [item.path],
    scope: [],
    rule: 'always_ask',
    sentence: `approve: the command created \`${item.path}\`: ${item.reason} (always ask: a file a command creates there stays only after a second yes)`,
    refusal: `${item.path} was created under an always-ask name and nobody can approve keeping it`,
    again: true,
  };
}

/** A command's result as a person reads it (the replay of a call whose terminal is gone), and as JSON for the model. */
export function shellOutput(result: unknown): ToolOutput {
  const r = result as Partial<ShellResult> | null;
  const forModel = JSON.stringify(result) ?? '';
  if (!r || typeof r !== 'object' || typeof r.stdout !== 'string' || typeof r.stderr !== 'string' || !('exit_code' in r)) return { result, forModel, display: {} };
  const out = [r.stdout, r.stderr].filter((x) => x !== '').map((x) => x.replace(/\n$/, '')).join('\n');
  const end = typeof r.signal === 'string' ? `killed by ${r.signal}` : `exit ${String(r.exit_code)}`;
  return { result, forModel, display: { transcript: [out, r.truncated ? '(output cut)' : '', `(${end})`].filter(Boolean).join('\n') } };
}
