// What the agent needs from the tool side of a session: the specs to offer the model, how a call
// looks before it runs, and a call through the gate pipeline (src/core/gate/gate.ts) with an
// approver the agent supplies per call, its result typed for the model and for a person. Built
// per session by setup.ts from the built-in toolsets (builtin.ts), MCP servers and remote tools.
import type { ApprovalAnswer, ApprovalRequest } from '../../core/gate/gate.ts';
import type { CallView, ToolOutput } from '../../core/contract/toolset.ts';
import type { CompiledEnvelope } from '../../core/envelope/index.ts';
import type { SandboxState } from '../../core/shell/sandbox/settings.ts';
import type { ToolSpec } from '../../core/tool.ts';

export type { ApprovalAnswer, ApprovalRequest, CallView, ToolOutput };

export type Approver = (req: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalAnswer>;

export interface CallHooks {
  signal: AbortSignal;
  /** absent when nobody can answer: an ask then counts as a deny (approval_required) */
  approve?: Approver;
  /** a client terminal was created for a step of this call */
  onTerminal?: (terminalId: string) => Promise<void>;
  /** the call recorded a read or a write of this real path in the session's ledger */
  onLedger?: (realPath: string, how: 'read' | 'write') => void;
  /** a person's own direct command (`/mission`, `!cmd`), not the model's call */
  direct?: true;
}

export interface SessionTools {
  specs(): ToolSpec[];
  /** How a call looks before anything is checked (title, kind, locations), as its toolset says. */
  view(spec: ToolSpec, args: Record<string, unknown>): CallView;
  /** Runs one call through tools_policies, the envelope and the approver. Throws ToolError. */
  call(spec: ToolSpec, args: Record<string, unknown>, hooks: CallHooks): Promise<ToolOutput>;
  /** switch the envelope (ACP mode) for the calls that follow */
  setMode(mode: string): void;
  /** the envelope calls are decided by now (a restore of a checkpoint is decided by it too) */
  envelope(): CompiledEnvelope;
  /** the read ledger, serialised for the session store */
  saveLedger(): unknown;
  /** the model can no longer see these files' content (compaction): a write needs a fresh read */
  forgetReads(realPaths: string[]): void;
  /** the ledger entries changed since the last call (null: forgotten), for an incremental save */
  ledgerChanges(): Array<[string, unknown]>;
  /** the session-scoped allows, serialised for the session store */
  saveAllows(): unknown[];
  close(): Promise<void>;
  /** the sandbox the session's commands run in, under the current envelope */
  sandbox?(): SandboxState;
}
