// The toolset contract: what every toolset (local_fs, local_shell, an attached MCP server, remote
// tools, the next one) answers about a call before anything runs, so the gate
// (core/gate/gate.ts) is one pipeline with no case per toolset. The plan carries what the
// envelope decides on, what "allow for this session" would cover, what an approval shows (built
// only when one is asked), and how the call runs once decided; the view is how a person sees
// the call before it is checked; the output is how its result reads.
import type { CallFacts, CompiledEnvelope, Decision, RuleId, SandboxMode, SandboxState } from '../envelope/index.ts';
import type { ToolKind, ToolSpec } from '../tool.ts';
import type { SessionAllow, SessionScope } from './session_scope.ts';

/**
 * A toolset built with its dependencies (root, policy, ledger, file IO or terminal) and called
 * by tool name. The gate pipeline wraps `call`; callers never reach a tool around it. A toolset
 * that brings only a JSON schema per tool may leave out `view`, `plan` and `output`: it gets the
 * schema's (core/contract/schema_plan.ts).
 */
export interface Toolset {
  readonly name: string;
  list(): ToolSpec[];
  /** How a call looks to a person before anything is checked: never throws (a call with bad arguments is shown too). */
  view?(tool: string, args: Record<string, unknown>): CallView;
  /**
   * What the call will do, before anyone is asked or anything runs. Throws what refuses it
   * outright: bad_args, a path outside the root or in the quarantine, a command policy's refusal.
   */
  plan?(tool: string, args: Record<string, unknown>, ctx: PlanContext): CallPlan | Promise<CallPlan>;
  /** Runs one call as it is (the plan's `run` is the gate's way in). Failures throw ToolError with a stable code. */
  call(tool: string, args: Record<string, unknown>, opts?: { signal?: AbortSignal }): Promise<unknown>;
  /** The result as the model and a person read it. */
  output?(tool: string, result: unknown): ToolOutput;
  /** For a toolset whose calls run inside an OS sandbox: which one, under these settings. */
  sandboxState?(mode: SandboxMode, network: boolean): SandboxState;
}

/** How a call is shown before it runs (ACP tool_call: title, kind, locations). */
export interface CallView {
  /** `local_fs.read_file: src/a.ts`, `local_shell: git status` */
  title: string;
  kind: ToolKind;
  /** absolute paths the call touches, with the line where it is known */
  locations: CallLocation[];
}

export interface CallLocation {
  path: string;
  line?: number;
}

/** What a plan may know of where it is asked. */
export interface PlanContext {
  envelope: CompiledEnvelope;
  /** the workspace root words and paths of other toolsets resolve from, when the gate names one */
  root?: string;
  /** someone can answer an ask (a human, or --yes): what needs a human is the envelope's question, not a refusal */
  askable: boolean;
}

/** A call that runs inside an OS sandbox: the envelope's settings and what the host reports. */
export interface SandboxFacts {
  mode: SandboxMode;
  network: boolean;
  state: SandboxState;
}

/**
 * What a call may change on disk, for the session's checkpoints (the gate wraps every plan by
 * it, in one place): `none`, the `files` it writes through the file tools' IO (each write hands
 * over the content it replaces), or any file of the `workspace` (compared before and after).
 */
export type Effects = 'none' | 'files' | 'workspace';

/**
 * Where a session's checkpoints hear of what a call changes (agent/checkpoints/recorder.ts). The
 * gate runs a plan with `workspace` effects inside `around`, and hands `write` to a plan with
 * `files` effects through its run context; a plan with none meets neither.
 */
export interface EffectRecorder {
  /** A write of the file `abs` (`old`: the content it replaces, null: a new file), recorded while `write` goes out. */
  write(abs: string, old: { sha256: string; bytes?: Uint8Array } | null, write: () => Promise<void>): Promise<void>;
  /** A call that may change any file of the workspace (or of the session's additional directories), compared around `run`. */
  around<T>(run: () => Promise<T>): Promise<T>;
}

export interface CallPlan {
  /** what the envelope decides on: the axis, the paths, the programs, the protected facts */
  facts: CallFacts;
  /** what it may change on disk: how the session's checkpoints record it */
  effects: Effects;
  /** paths on the built-in read-approve list (.env, *.pem, *.key) the call names: they ask in every envelope */
  readApprove?: readonly string[];
  /** set when the call runs in an OS sandbox: without a working one the prefix allowlist asks */
  sandbox?: SandboxFacts;
  /** what "allow for this session" would cover; the session covers the call when it holds all of it */
  scope: SessionScope;
  /** root-relative paths an approval names */
  locations: readonly string[];
  /**
   * What an approval shows. Built only when a human is actually asked (a diff costs a read); may
   * refuse first what would fail anyway (a write the read-before-write contract refuses).
   */
  approval(ctx: ApprovalContext): Promise<ApprovalView>;
  /** Runs the call as decided; what it could only find out while running is asked through `ctx.ask`. */
  run(ctx: RunContext): Promise<unknown>;
  /** the call makes no new names for files (no hard links): the identity index of protected files stays valid */
  keepsNames?: boolean;
}

export interface ApprovalContext {
  decision: Decision;
  /** the always-ask tier decided: asked every time, never remembered for the session */
  alwaysAsk: boolean;
}

export interface ApprovalView {
  /** `local_fs.edit_file: a.txt`, `local_shell: git commit -m x`, `pets.addPet: POST http://…/pets` */
  title: string;
  /** for a file change: the diff of the exact change (diff null when unknowable) */
  diff?: ApprovalDiff;
  /** for a command line: each step as it will run */
  steps?: string[];
  /** for a request: what will be sent (method and URL, body, headers) */
  detail?: string[];
  /**
   * For a write into an always-ask path whose file can run (exec bits): its mode, octal
   * ("0755"). The approver must show it; only a human's yes to a request that carried it keeps it.
   */
  fileMode?: string;
}

export interface ApprovalDiff {
  /** root-relative path */
  path: string;
  /** true when the file does not exist yet */
  isNew: boolean;
  /** the unified diff, or null when the current text cannot be established safely */
  diff: string | null;
  /** why there is no diff */
  reason?: string;
  /** the diffed window of each side (for clients that render their own diff) and its first line */
  oldText?: string;
  newText?: string;
  startLine?: number;
  /** the windows end before the change does (it runs past the lines a window holds) */
  cut?: boolean;
}

/** How an approve decision was answered. */
export type ApprovedBy = 'human' | 'human-session' | 'session' | 'yes';

export interface RunContext {
  signal?: AbortSignal;
  /**
   * The call is a person's own direct command (a line they typed: `/mission`, `!cmd`), not the
   * model's: set by the caller that read the person's input, never from a call's arguments.
   */
  direct?: true;
  /** who let an approve through; absent when the envelope allowed the call */
  approvedBy?: ApprovedBy;
  decision: Decision;
  /** allowed unasked as read-only (the prefix allowlist): it must run so (no shell, no repository hooks) */
  readOnly: boolean;
  /** what the human saw and said yes to, when one was asked */
  shown?: ApprovalView;
  /** for a plan with `files` effects in a session that keeps checkpoints: every write goes through it */
  writes?: Pick<EffectRecorder, 'write'>;
  /** what this call tells its caller while it runs (per call: two calls at once never hear each other's) */
  reports?: RunReports;
  /** Asks what only the run could find out (a read-approve path behind a name); true: go on. Throws when nobody can answer. */
  ask(q: RunQuestion): Promise<boolean>;
}

/** What a running call reports to whoever made it. */
export interface RunReports {
  /** a terminal the client opened for the call, so the client can show it live */
  terminal?(terminalId: string): Promise<void>;
  /** a file the call read or wrote, as the read-before-write ledger recorded it */
  ledger?(realPath: string, how: 'read' | 'write'): void;
}

/** A question a call asks while it runs, answered like an ask of the envelope. */
export interface RunQuestion {
  tool: string;
  title: string;
  kind: ToolKind;
  args: Record<string, unknown>;
  locations: string[];
  /** what "allow for this session" would cover, and what already covers it */
  scope: SessionAllow[];
  /** the built-in rule that asks, and its sentence for the approver */
  rule: RuleId;
  sentence: string;
  /** the refusal's message when nobody can answer */
  refusal: string;
  /** asked even when the call itself was approved (what the approval could not show: a file an approved command created under an always-ask name) */
  again?: boolean;
}

/** A result as it is read: the text the model gets, and what a person is shown beside it. */
export interface ToolOutput {
  /** the result as the toolset returned it */
  result: unknown;
  forModel: string;
  display: {
    /** a file change to show as a diff (path root-relative; the texts may be a window that starts at `startLine`) */
    diff?: { path: string; oldText: string | null; newText: string; startLine?: number; cut?: boolean };
    /** a command's output as a person reads it, for a replay whose terminal is gone */
    transcript?: string;
  };
}
