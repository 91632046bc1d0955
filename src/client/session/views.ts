// What the screen is made of, as the client keeps it: finished history items, the live region's
// items, a pending permission and a terminal's output. Types only, shared by the state store and
// the turn model (which decides how live items become history).
import type { PermissionOption, PlanEntry } from '@agentclientprotocol/sdk';
import type { MissionMeta } from '../../core/protocol_names.ts';
import type { ToolCallView } from './tool_call.ts';
import type { SandboxState } from '../../core/shell/sandbox/settings.ts';

export interface TerminalView {
  id: string;
  command: string;
  output: string;
  truncated: boolean;
  exitCode?: number | null;
  signal?: string | null;
  done: boolean;
}

export type TextKind = 'user' | 'agent' | 'thought';

export type HistoryItem =
  /** `shown`: a prompt as the composer showed it (a long paste as `[pasted N lines]`) */
  | { kind: TextKind; key: string; text: string; shown?: string }
  /** `late`: an update for a call already printed, shown against it */
  | { kind: 'tool'; key: string; call: ToolCallView; terminals: TerminalView[]; late?: boolean }
  /** the end of a turn that did not simply finish (`cancelled`) */
  | { kind: 'marker'; key: string; text: string }
  | { kind: 'notice'; key: string; level: 'info' | 'warn' | 'error'; text: string; detail?: string[] }
  | { kind: 'output'; key: string; title: string; text: string }
  | { kind: 'info'; key: string; title: string; lines: string[] }
  /** a mission unit this session fired: its plan, a report, a question, its verdict */
  | { kind: 'mission'; key: string; meta: MissionMeta }
  /** the agent's plan as it stood when its turn ended */
  | { kind: 'plan'; key: string; entries: PlanEntry[] }
  /** a line the person ran in their own shell (`!line`), finished; `sent`: as a resumed session replays it (the text the agent got) */
  | { kind: 'shell'; key: string; run?: ShellRunView; sent?: string };

export type LiveItem = { kind: TextKind; key: string; text: string } | { kind: 'tool'; key: string; id: string };

export interface PendingPermission {
  key: string;
  sessionId: string;
  call: ToolCallView;
  options: PermissionOption[];
  /** the request's tool call `_meta` (cxl's agent sends the steps a command runs, `cxl/steps`) */
  meta?: Record<string, unknown>;
}

/** A `!line` the person ran in their own shell, as the screen shows it (client/shell/ runs it). */
export interface ShellRunView {
  key: string;
  command: string;
  output: string;
  truncated: boolean;
  done: boolean;
  exitCode?: number | null;
  signal?: string | null;
  /** where it ran: the sandbox, or why none */
  sandbox: SandboxState;
  /** its output goes to the agent with the next prompt */
  handed: boolean;
  /** the sandbox could not start the command: nothing ran */
  failed?: string;
}

/** The OS sandbox around shell commands, as the agent reports it (`_meta["cxl/sandbox"]`) or the client's own terminal host. */
export interface SandboxView {
  state: string;
  reason?: string;
}
