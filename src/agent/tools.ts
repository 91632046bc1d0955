// What the agent needs from the tool side of a session: the specs to offer the model, and a call
// that goes through the gate pipeline with an approver the agent supplies. Built per session by
// session_tools.ts from the local_fs, local_shell and MCP toolsets.
import type { ToolSpec } from '../core/tool.ts';

/** One question to a human: what the call would do, with the diff or the shell steps. */
export interface ApprovalRequest {
  spec: ToolSpec;
  args: Record<string, unknown>;
  /** the unified diff shown to a human, when the call writes a file */
  diff?: { path: string; oldText: string | null; newText: string; unified?: string };
  /** the checked shell steps, when the call runs commands */
  steps?: string[];
  /** the envelope rule that asked, and why */
  rule?: string;
  reason?: string;
  /** keys of the session-scoped allow ("this file", or "this program + subcommand" per step); all must be allowed */
  scopes: string[];
  /** how the scope reads to a human, e.g. `src/app.ts` or `git log` */
  scopeLabel: string;
}

export type ApprovalAnswer = 'allow_once' | 'allow_session' | 'reject' | 'reject_explain' | 'cancelled';

export type Approver = (req: ApprovalRequest) => Promise<ApprovalAnswer>;

export interface CallHooks {
  signal: AbortSignal;
  /** absent when nobody can answer (`cxl run`): an ask then counts as a deny (approval_required) */
  approve?: Approver;
  /** a client terminal was created for a step of this call */
  onTerminal?: (terminalId: string) => Promise<void>;
}

export interface SessionTools {
  specs(): ToolSpec[];
  /** Runs one call through tools_policies, the envelope and the approver. Throws ToolError. */
  call(spec: ToolSpec, args: Record<string, unknown>, hooks: CallHooks): Promise<unknown>;
  /** switch the envelope (ACP mode) for the calls that follow */
  setMode(mode: string): void;
  /** the read ledger, serialised for the session store */
  saveLedger(): unknown;
  /** messages worth showing the user (a server that failed to start, a config warning) */
  notices(): string[];
  close(): Promise<void>;
}
