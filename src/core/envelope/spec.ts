// What an envelope is as written (docs/config.md, "Envelopes"): grants, axes, rules, the tool-to-axis map, and
// the facts and decisions the engine passes around. Types and constants only: resolve.ts layers
// `extends`, compile.ts builds the fast form, decide.ts decides one call.
import type { ProtectedFact } from '../protect/table.ts';

export type { ProtectedFact };

/** `shell.sandbox`: `auto` sandboxes when it can, `required` refuses without one, `off` never sandboxes. */
export type SandboxMode = 'auto' | 'required' | 'off';
export const SANDBOX_MODES: readonly SandboxMode[] = ['auto', 'required', 'off'];

/**
 * Which sandbox a host runs commands in (the `cxl/sandbox` `_meta` of session/new, docs/acp.md):
 * what `shell.sandbox = "auto"` meets when a call is decided.
 */
export interface SandboxState {
  state: 'bubblewrap' | 'seatbelt' | 'off' | 'unavailable';
  /** why: the probe's failure, the setting that turned it off, or where it runs */
  reason?: string;
}

export type Grant = 'allow' | 'approve' | 'deny';
export const GRANTS: readonly Grant[] = ['allow', 'approve', 'deny'];

/** A grant with how long an ask waits (ms); an unanswered ask resolves as deny. */
export interface GrantSpec {
  grant: Grant;
  timeoutMs?: number;
}

export interface PathAxisSpec {
  /** written as a bare grant (`files.read = "allow"`): replaces the parent's whole axis */
  bare?: boolean;
  grant?: GrantSpec;
  /** how long an ask raised on this axis waits (ms) */
  timeoutMs?: number;
  deny_paths?: string[];
  approve_paths?: string[];
}

export interface ShellAxisSpec {
  /** written as a bare grant (`shell = "deny"`): replaces the parent's whole axis */
  bare?: boolean;
  grant?: GrantSpec;
  /** how long an ask raised on this axis waits (ms) */
  timeoutMs?: number;
  blacklist?: string[];
  prefix_allowlist?: string[];
  ask_always?: string[];
  substitution?: GrantSpec;
  /** the OS sandbox for commands: auto (default), required, off */
  sandbox?: SandboxMode;
  /** commands may use the network (default true); false runs them with --unshare-net */
  network?: boolean;
  /** environment variables (names, or `PREFIX_*`) passed to commands beyond the built-in allowlist */
  env?: string[];
}

/** An always_deny / always_allow rule: a tool pattern (or several) with an optional path glob. */
export interface EnvelopeRule {
  tool: string | string[];
  path?: string;
  /** program names (shell): the rule matches when a step runs one of them */
  program?: string;
  /** why, shown in the decision sentence */
  reason?: string;
  /** built-in floor rules only: asked in every envelope instead of denied (the always-ask tier) */
  ask?: boolean;
}

/**
 * `[envelopes.X.missions]`: whether a session may fire mission units (`/mission`, the
 * mission_start tool) and whether its model may answer a unit's question (mission_answer).
 */
export interface MissionsAxisSpec {
  /** never written so (the axis has no grant of its own); here so it layers like the others */
  bare?: boolean;
  fire?: GrantSpec;
  answer?: GrantSpec;
}

/** One envelope as written at one level (before `extends` is resolved). */
export interface EnvelopeSpec {
  extends?: string;
  description?: string;
  default_action?: GrantSpec;
  files?: { read?: PathAxisSpec; write?: PathAxisSpec };
  shell?: ShellAxisSpec;
  missions?: MissionsAxisSpec;
  tools?: Record<string, GrantSpec>;
  always_deny?: EnvelopeRule[];
  always_allow?: EnvelopeRule[];
}

export const ENVELOPE_NAME = /^[a-z0-9][a-z0-9_-]*$/;

/** local_fs tools on each file axis (docs/config.md, "Envelopes"): between them, every local_fs tool. */
export const READ_TOOLS: readonly string[] = ['read_file', 'read_file_range', 'list_dir', 'grep', 'find_files', 'stat_file', 'count_stats'];
export const WRITE_TOOLS: readonly string[] = ['write_file', 'edit_file', 'sed'];
const READ_SET = new Set(READ_TOOLS);
const WRITE_SET = new Set(WRITE_TOOLS);

/**
 * `missions.own`: a unit's own mission tools and a supervisor's list of the units it fired; they
 * reach only those records, so every envelope allows them unless a tools pattern or always_deny
 * says otherwise. `missions.fire` starts a unit, `missions.answer` answers one (docs/missions.md).
 */
export type Axis = 'files.read' | 'files.write' | 'shell' | 'missions.fire' | 'missions.answer' | 'missions.own' | null;

/** The built-in toolsets' axes, for facts that name none (written by hand: tests, benchmarks). */
export function axisOf(toolset: string, tool: string): Axis {
  if (toolset === 'local_fs') return READ_SET.has(tool) ? 'files.read' : WRITE_SET.has(tool) ? 'files.write' : null;
  if (toolset === 'local_shell') return 'shell';
  return null;
}

/** The axis a call is on: the one its toolset's plan named, else the built-in map's. */
export function axisOfCall(call: Pick<CallFacts, 'toolset' | 'tool' | 'axis'>): Axis {
  return call.axis !== undefined ? call.axis : axisOf(call.toolset, call.tool);
}

// ── facts and decisions ────────────────────────────────────────────────────────────────────

export interface ShellStep {
  /** the argv as the checker read it; argv[0] is the program as written */
  argv: string[];
  /** the program a wrapper runs, with its arguments (`timeout 5 git log` → `git log`): what prefixes match */
  inner?: string[];
  /** why the argument rules say the step is not read-only: prefix_allowlist does not allow it */
  notes?: readonly ArgNote[];
}

/** An argument rule that keeps a step from being read-only (the shell's step_args.ts finds them). */
export interface ArgNote {
  /** the rule in words: `find -delete`, `path outside the root: /etc/passwd` */
  rule: string;
  why: string;
  /** a subcommand a prefix entry may name to accept it (`npm install`) */
  sub?: string;
}

export interface ShellFacts {
  command: string;
  /** every step of the line (cd steps included) */
  steps: ShellStep[];
  /**
   * Set when the line holds something whose effect cannot be read statically (command or
   * process substitution, `$VAR`, backticks, anything the checker could not split into steps).
   * The words of such a line are still scanned for blacklisted and ask_always programs.
   */
  opaque?: string;
}

export interface CallFacts {
  toolset: string;
  tool: string;
  /**
   * The axis the call is on, as its toolset's plan says (core/contract/toolset.ts): a toolset
   * needs no entry in a map here to be read, written or run like the built-in ones. Absent:
   * the built-in map (axisOf).
   */
  axis?: Axis;
  /** paths as the model asked for them (root-relative or absolute) */
  paths?: readonly string[];
  /** the same after symlink resolution (root-relative) */
  resolved?: readonly string[];
  /** absolute forms (lexical and real), tested by deny and approve lists only: an allow list
   * written relative to the root must not need them to match */
  absolute?: readonly string[];
  shell?: ShellFacts;
  /**
   * For a toolset no axis names (remote tools): whether the call reads or writes. After the
   * tools patterns and always_allow, the files.read or files.write grant decides it, so a
   * `GET` is a read and a `POST` asks where writes ask. Local tools' axes ignore it.
   */
  access?: 'read' | 'write';
  /** what made it one, for the decision's sentence: `a POST` */
  accessReason?: string;
  /**
   * What the filesystem says about the call's paths beyond their names (found by the caller:
   * a git dir by shape, the hooks dir git config names): a `write_wall` fact denies a write or
   * shell line like the floor; an `always_ask` fact asks like the always-ask rules.
   */
  protected?: readonly ProtectedFact[];
}

/** Which rule decided, in the order docs/config.md "Rule order" lists. */
export type RuleId =
  | 'always_deny'
  | 'always_ask'
  | 'files.write.deny_paths'
  | 'files.read.deny_paths'
  | 'files.read.approve_paths'
  | 'files.write.approve_paths'
  | 'tools'
  | 'always_allow'
  | 'missions.own'
  | 'missions.fire'
  | 'missions.answer'
  | 'files.read'
  | 'files.write'
  | 'shell.blacklist'
  | 'shell.substitution'
  | 'shell.prefix_allowlist'
  | 'shell.ask_always'
  | 'shell'
  | 'default_action';

/**
 * Every rule in first-match order. `always_ask` is not in it: it is an overlay that turns the
 * decision of these rules into an ask unless they deny.
 */
export const RULE_ORDER: readonly RuleId[] = [
  'always_deny',
  'files.write.deny_paths',
  'files.read.deny_paths',
  'files.read.approve_paths',
  'files.write.approve_paths',
  'tools',
  'always_allow',
  'missions.own',
  'missions.fire',
  'missions.answer',
  'files.read',
  'files.write',
  'shell.blacklist',
  'shell.substitution',
  'shell.prefix_allowlist',
  'shell.ask_always',
  'shell',
  'default_action',
];

export interface Decision {
  action: Grant;
  rule: RuleId;
  /** the envelope in use */
  envelope: string;
  /** the envelope that defined the matched rule, when it was inherited */
  from?: string;
  /** what matched: a glob, a program, a tools pattern, a prefix */
  matched?: string;
  /** how long an ask waits (approve only) */
  timeoutMs?: number;
  /** one human sentence: "approve: shell program `rm` is in ask_always of envelope default" */
  sentence: string;
  /** a step matched prefix_allowlist but an argument rule kept it from being read-only */
  argRule?: { rule: string; why: string; step: string };
  /** an approve that only the paths asked for (approve_paths): every other rule would allow */
  pathOnly?: true;
  /** a mission unit's ceiling decided (the envelope of the session that fired it, named here): its own envelope would have let the call through further */
  ceiling?: string;
}
