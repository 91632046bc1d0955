// What a unit's run says as it happens, one event at a time, and how it ended: the text output
// prints them as lines, `--output-format stream-json` as one JSON object per line, `json` prints
// only the summary. docs/missions.schema.json is their schema (tests validate every line against it).
import type { Ask, Verdict } from '../missions/ask_store.ts';
import type { MissionStatus, Plan, Report } from '../missions/records.ts';
import type { RunUsage } from '../loop/model_call.ts';

/** A call that was refused: by the envelope, by a person, or because nobody answered its ask in time. */
export interface RefusedCall {
  tool: string;
  title: string;
  code: 'envelope_denied' | 'rejected' | 'approval_required';
  message: string;
}

/** An ask as the events show it: enough to answer it from another terminal. */
export interface AskView {
  ask_id: string;
  kind: Ask['kind'];
  summary: string;
  tool?: string;
  diff?: string | null;
  steps?: string[];
  expires_at: string | null;
  /** the command that answers it */
  respond: string;
}

export interface UsageView {
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  compactions: number;
  context?: { used: number; size: number; estimated: boolean };
}

/** How a run ended: `--output-format json` prints this object, stream-json ends with it. */
export interface RunSummary {
  status: MissionStatus;
  /** true unless the mission landed */
  is_error: boolean;
  exit_code: number;
  /** the newest result report (summary and detail), else the unit's last message */
  result: string;
  reason?: string;
  mission_id: string;
  session_id: string;
  agent: string;
  envelope: string;
  reports: Report[];
  refused: RefusedCall[];
  usage: UsageView;
  duration_ms: number;
}

export type RunEvent =
  | { type: 'init'; mission_id: string; session_id: string; agent: string; envelope: string; cwd: string; model: string | null; tools: string[]; resumed: boolean }
  | { type: 'message'; text: string }
  | { type: 'tool_call'; id: string; name: string; title: string; arguments: Record<string, unknown> }
  | { type: 'tool_result'; id: string; name: string; title: string; ok: boolean; output?: string; code?: string; error?: string }
  | { type: 'ask'; ask: AskView }
  | { type: 'verdict'; ask_id: string; verdict: Verdict['verdict']; by: Verdict['by']; answer?: string }
  | { type: 'plan'; plan: Plan }
  | { type: 'report'; report: Report }
  | { type: 'notice'; text: string }
  | ({ type: 'result' } & RunSummary);

export function askView(a: Ask): AskView {
  return {
    ask_id: a.id,
    kind: a.kind,
    summary: a.summary,
    ...(a.toolset ? { tool: `${a.toolset}.${a.tool}` } : {}),
    ...(a.diff ? { diff: a.diff.diff } : {}),
    ...(a.steps ? { steps: a.steps } : {}),
    expires_at: a.expiresAt,
    respond: a.kind === 'question' ? `cxl approvals respond ${a.id} --answer "…"` : `cxl approvals respond ${a.id} --approve | --deny`,
  };
}

export function usageView(u: RunUsage): UsageView {
  return {
    requests: u.requests,
    prompt_tokens: u.promptTokens,
    completion_tokens: u.completionTokens,
    compactions: u.compactions,
    ...(u.last ? { context: { used: u.last.used, size: u.last.size, estimated: !u.last.real } } : {}),
  };
}

/** How a run ends for the shell (docs/missions.md, "Exit codes"). */
export const EXIT = { landed: 0, failed: 1, usage: 2, refused: 3, timeout: 124, sigint: 130, sigterm: 143 } as const;

/**
 * 0 only when landed; 3 when it did not land and calls it made were refused or went unanswered;
 * 1 otherwise. A stop from outside (timeout, a signal) is the caller's to say.
 */
export function exitCodeOf(status: MissionStatus, refused: readonly RefusedCall[]): number {
  if (status === 'landed') return EXIT.landed;
  return refused.length ? EXIT.refused : EXIT.failed;
}
