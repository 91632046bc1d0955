// cxl's names on top of the Agent Client Protocol, spelled once: the `_meta` keys its agent and
// its client exchange, and the permission option ids they answer with. The agent, the client, the
// UI and the shell's client terminals all speak them, so a rename in one place cannot leave the
// other end listening for the old spelling. Plain strings and their value types: no ACP SDK here
// (core stays free of it), and nothing for a cold start to load. docs/acp.md describes each one.

// ── `_meta` keys ─────────────────────────────────────────────────────────────────────────────

/**
 * The OS sandbox: on initialize's `clientCapabilities._meta` and the session/new and
 * session/load answers a {@link SandboxMeta}; on terminal/create the call's {@link SandboxProfileMeta}.
 */
export const META_SANDBOX = 'cxl/sandbox';
/**
 * initialize's `clientCapabilities._meta`: `true` when the client itself offers to trust a folder
 * whose own configuration is held back (the cxl UI's trust prompt), so the agent does not say so too.
 */
export const META_TRUST_PROMPT = 'cxl/trustPrompt';
/**
 * `_meta` of a replayed `tool_call`: `true` when the person was asked about it (its diff was on
 * screen then), so a replay shows it collapsed as the live screen did, and a change made unasked in full.
 */
export const META_ASKED = 'cxl/asked';
/** session/list's entries: `true` for a session an unattended run or mission unit wrote (`cxl run`, `/mission`), not a person's */
export const META_UNATTENDED = 'cxl/unattended';
/** terminal/create: whether the command may use the network ({@link NetworkMeta}) */
export const META_NETWORK = 'cxl/network';
/**
 * terminal/create: `true`, end the command once its output passes `outputByteLimit` (as
 * `| head -c` would), not only cut what is kept; terminal/wait_for_exit's answer: the cap, in
 * bytes, of a command that was ended so ({@link OutputLimitMeta}).
 */
export const META_OUTPUT_LIMIT = 'cxl/outputLimit';
/** session/new and session/load answers: whether the session can be resumed later ({@link PersistenceMeta}) */
export const META_PERSISTENCE = 'cxl/persistence';
/** compaction_update: the context's size before and after, in tokens */
export const META_TOKENS_BEFORE = 'cxl/tokensBefore';
export const META_TOKENS_AFTER = 'cxl/tokensAfter';
/** compaction_update: what was compacted, as a person reads it (the replay's text for a client without compaction) */
export const META_DESCRIPTION = 'cxl/description';
/** session/request_permission's tool call: the envelope's decision that asks ({@link DecisionMeta}) */
export const META_DECISION = 'cxl';
/** agent_message_chunk: a row about a mission unit the session fired, its plan, a report, its end ({@link MissionMeta}) */
export const META_MISSION = 'cxl/mission';
/**
 * session/request_permission's tool call: each step of a command as it will run, its argv quoted
 * as one line with hidden characters escaped ({@link StepsMeta}); a client shows these whole.
 */
export const META_STEPS = 'cxl/steps';
/**
 * A `diff` content block: the line of the file its `oldText` and `newText` start at (they are a
 * window around the change), so a client numbers the lines as the file does ({@link StartLineMeta}).
 */
export const META_START_LINE = 'cxl/startLine';
/** `_meta` of a session_info_update the replay keeps where a turn was cancelled (`'cancelled'`). */
export const META_TURN_ENDED = 'cxl/turnEnded';
/** `_meta` of a session_info_update when no model answers as a session opens. */
export const META_MODEL = 'cxl/model';
/** `_meta` of an available command: where a custom command comes from ({@link CommandSourceMeta}) */
export const META_COMMAND_SOURCE = 'cxl/source';
/**
 * `_meta` of a prompt's text block that is not the person's words but the output of commands
 * they ran in their own shell (`!line`): the model reads it, a replay does not show it as typed.
 */
export const META_SHELL_CONTEXT = 'cxl/shellContext';
/**
 * `_meta` of a replayed `user_message_chunk` that is a line the person ran in their own shell, as
 * the client showed it ({@link ShellRunMeta}); on initialize's `agentCapabilities._meta`, `true`:
 * the agent keeps such lines with the session ({@link METHOD_SHELL_RUN}).
 */
export const META_SHELL_RUN = 'cxl/shellRun';

// ── cxl's own methods (ACP extension methods begin with `_`) ──────────────────────────────────

/** The prompts of a session that can be gone back to ({sessionId} → {@link CheckpointsMeta}). */
export const METHOD_CHECKPOINTS = '_cxl/checkpoints';
/** What going back to before a prompt would do ({sessionId, n, restore} → {@link RewindMeta}). */
export const METHOD_REWIND_PREVIEW = '_cxl/rewind_preview';
/** Going back to before a prompt ({sessionId, n, restore, overwrite} → {@link RewindMeta} with what was done). */
export const METHOD_REWIND = '_cxl/rewind';
/**
 * A line the person ran in their own shell (`!line`), finished, kept with the session: replayed
 * by session/load, and its output (`context`) read by the model with the next prompt
 * ({sessionId, run: {@link ShellRunMeta}, context?} → {}).
 */
export const METHOD_SHELL_RUN = '_cxl/shell_run';

// ── permission option ids ─────────────────────────────────────────────────────────────────────

/** The agent's options on session/request_permission. */
export const OPTION_ALLOW_ONCE = 'allow_once';
/** run it, and do not ask again in this session for the same scope */
export const OPTION_ALLOW_SESSION = 'allow_session';
export const OPTION_REJECT = 'reject';
/** reject, and end the turn: the user says why in the next prompt */
export const OPTION_REJECT_EXPLAIN = 'reject_explain';
/** The client's own options when the agent reads a file only a person may open (.env, keys). */
export const OPTION_READ_ALLOW = 'allow';
export const OPTION_READ_REFUSE = 'reject';

export type AgentOptionId = typeof OPTION_ALLOW_ONCE | typeof OPTION_ALLOW_SESSION | typeof OPTION_REJECT | typeof OPTION_REJECT_EXPLAIN;

// ── what the keys carry ───────────────────────────────────────────────────────────────────────

export const SANDBOX_STATES = ['bubblewrap', 'seatbelt', 'off', 'unavailable'] as const;
export type SandboxStateName = (typeof SANDBOX_STATES)[number];

/** {@link META_SANDBOX} on initialize and on the session answers: the sandbox commands run in, and why. */
export interface SandboxMeta {
  state: SandboxStateName;
  reason?: string;
}

/** {@link META_SANDBOX} on terminal/create: the narrowest sandbox the call needs. */
export type SandboxProfileMeta = 'read-only' | 'workspace-write';

/** {@link META_NETWORK} on terminal/create. */
export type NetworkMeta = boolean;

/** {@link META_OUTPUT_LIMIT}: asked on terminal/create (`true`), said on wait_for_exit's answer (the cap it passed). */
export type OutputLimitMeta = true | number;

/** {@link META_PERSISTENCE}: a session that cannot be written works, but only in this process. */
export type PersistenceMeta = { resumable: true } | { resumable: false; reason: string };

/** {@link META_DECISION}: the envelope's rule, its sentence, the envelope, and what "for this session" would allow. */
export interface DecisionMeta {
  rule: string;
  reason: string;
  envelope?: string;
  scope?: string;
  /** when the ask rejects itself (ISO 8601), for an envelope that sets a timeout; absent: it waits */
  expiresAt?: string;
}

/** A plan entry as {@link MissionMeta} carries it. */
export interface MissionPlanEntryMeta {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
  priority?: 'high' | 'medium' | 'low';
}

/**
 * {@link META_MISSION}: what happened to a unit this session fired: it started, filed a plan
 * revision or a report, is waiting on a question, or finished. The message's text says the same
 * for a client that does not read it.
 */
export type MissionMeta = { missionId: string; intent: string } & MissionEventMeta;

/** What {@link MissionMeta} says happened. */
export type MissionEventMeta =
  | { event: 'fired'; agent: string; envelope: string }
  | { event: 'plan'; revision: number; entries: MissionPlanEntryMeta[] }
  | { event: 'report'; kind: 'progress' | 'finding' | 'blocker' | 'result'; summary: string; refs?: string[] }
  | { event: 'question'; askId: string; summary: string }
  | { event: 'finished'; status: string; reason?: string };

/** {@link META_STEPS}: one display line per step. */
export type StepsMeta = string[];

/** {@link META_START_LINE}: 1-based. */
export type StartLineMeta = number;

/** Whether a value is one of the sandbox states a `cxl/sandbox` may report. */
export function isSandboxState(v: unknown): v is SandboxStateName {
  return typeof v === 'string' && (SANDBOX_STATES as readonly string[]).includes(v);
}

/** {@link META_COMMAND_SOURCE}: a custom command from the project (.contenox/commands) or the person's own (~/.contenox/commands). */
export type CommandSourceMeta = 'project' | 'user';

/** What {@link METHOD_CHECKPOINTS} answers: each prompt, oldest first. */
export interface CheckpointsMeta {
  prompts: Array<{
    n: number;
    at: string;
    text: string;
    /** the conversation can still go back to before it (no compaction since) */
    conversation: boolean;
    files: Array<{ path: string; change: 'created' | 'modified' | 'deleted'; lost?: string }>;
    notes?: string[];
  }>;
}

/** What a rewind restores. */
export type RestoreMeta = 'files' | 'conversation' | 'both';

/** What {@link METHOD_REWIND_PREVIEW} and {@link METHOD_REWIND} answer. */
export interface RewindMeta {
  n: number;
  restore: RestoreMeta;
  /** `cannot`: why it may not be restored (a restore is a write: docs/tui.md, "Going back"); `alwaysAsk`: its path asks in every envelope, restored on the yes to this preview */
  files: Array<{ path: string; action: 'restore' | 'delete' | 'recreate'; diff: string; added?: number; removed?: number; changedSince?: string; cannot?: string; alwaysAsk?: string }>;
  conversation?: { prompts: number; cannot?: string };
  /** after a rewind: what was put back, and what was kept and why */
  restored?: string[];
  skipped?: Array<{ path: string; why: string }>;
}

/** What META_MODEL carries. */
export type ModelMeta =
  /** nothing answers (or answers nothing usable): `problem` says why; a notice says how to fix it */
  | { reachable: false; problem: string }
  /** the server answers; `pick`: it lists these models and one is still to be chosen (`problem` says why) */
  | { reachable: true; pick?: string[]; problem?: string };

/** A finished `!line` as the client showed it ({@link META_SHELL_RUN}, {@link METHOD_SHELL_RUN}); `output` is its tail. */
export interface ShellRunMeta {
  command: string;
  output: string;
  truncated: boolean;
  exitCode?: number | null;
  signal?: string | null;
  /** where it ran: the sandbox's state, or why none */
  sandbox: { state: string; reason?: string };
  /** its output went to the agent with the next prompt */
  handed: boolean;
  /** the sandbox could not start it */
  failed?: string;
}

/**
 * `agentCapabilities._meta` of a standing host (`cxl serve`): `{ workspace, shape }`. A client
 * says once what the host does not serve (file reads and edits, commands), not per call.
 */
export const META_HOST = 'cxl/host';
export interface HostMeta {
  workspace: string;
  shape: string;
}
