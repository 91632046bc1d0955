// The live region as rows, budgeted to stay shorter than the terminal: whatever does not fit is
// clipped with a "N lines hidden" row, so Ink never has to redraw more than one screen.
import type { ClientState, LiveItem } from '../client/state.ts';
import { agentLogRows } from './agent_log_rows.ts';
import { approvalRows } from './approval_rows.ts';
import { authRows } from './auth_rows.ts';
import { completionAt, type Completion } from './completion.ts';
import { completionRows } from './completion_rows.ts';
import { composerRows, type ComposerState, type PasteStore } from './composer.ts';
import { footerRows } from './footer.ts';
import type { Focus } from './keys.ts';
import { markdownTail } from './markdown.ts';
import { textRows } from './message_rows.ts';
import { pickerRows } from './session_picker_rows.ts';
import { planRows } from './plan_rows.ts';
import { statusRow } from './status_line.ts';
import { clipHead, clipTail, plainRow, wrapText, type Row } from './text_layout.ts';
import { toolCallRows } from './tool_call_rows.ts';
import { transcriptRows, type TranscriptState } from './transcript_rows.ts';
import { workingRow } from './working_row.ts';

export interface UiState {
  focus: 'composer' | 'tools';
  composer: ComposerState;
  /** Index into state.turnCalls. */
  selected: number;
  expanded: ReadonlySet<string>;
  /** Set while typing a rejection reason. */
  reason?: string;
  /** A first Ctrl+C was pressed and a second one quits. */
  quitArmed: boolean;
  spinnerFrame: number;
  /** Date.now() at the last animation tick (0: not animated, so no clock is shown) */
  now: number;
  /** Prompts sent this session, oldest first, and which one ↑/↓ shows (-1: a new one). */
  past: string[];
  pastIndex: number;
  /** Long pastes shown as `[pasted N lines]` tokens in the composer, by token. */
  pastes: PasteStore;
  /** A short message above the composer (an unknown mode, nothing to resume), gone at the next key. */
  hint?: string;
  /** The completion item chosen, for the completion whose key it names (a new query starts at 0). */
  completionSel: { key: string; index: number };
  /** The composer text the completion list was closed at (Esc); it opens again once the text changes. */
  dismissed?: string;
  /** The transcript view (Ctrl+T), while open. */
  transcript?: TranscriptState;
  /** The session picked in the session picker. */
  pickerIndex: number;
  /** The agent log pane (Ctrl+L) is open. */
  logOpen?: boolean;
}

export const initialUi: UiState = {
  focus: 'composer',
  composer: { text: '', cursor: 0 },
  selected: 0,
  expanded: new Set(),
  quitArmed: false,
  spinnerFrame: 0,
  now: 0,
  past: [],
  pastIndex: -1,
  pastes: new Map(),
  completionSel: { key: '', index: 0 },
  pickerIndex: 0,
};

/** The completion list for the composer, unless it was closed at this text. */
export function openCompletion(s: ClientState, ui: UiState): Completion | undefined {
  if (ui.focus !== 'composer' || ui.dismissed === ui.composer.text) return undefined;
  return completionAt(s, ui.composer);
}

export function completionIndex(ui: UiState, c: Completion): number {
  return ui.completionSel.key === c.key ? Math.max(0, Math.min(ui.completionSel.index, c.items.length - 1)) : 0;
}

export function effectiveFocus(s: ClientState, ui: UiState): Focus {
  if (s.permissions.length > 0) return ui.reason !== undefined ? 'reason' : 'approval';
  if (s.sessionChoices) return 'picker';
  if (ui.transcript) return 'transcript';
  if (s.auth) return 'auth';
  if ((openCompletion(s, ui)?.items.length ?? 0) > 0) return 'completion';
  return ui.focus;
}

function liveItemRows(s: ClientState, ui: UiState, item: LiveItem, width: number, maxLines: number): Row[] {
  if (item.kind === 'agent') {
    // Only the tail can be on screen: lay out that much, not the whole streamed answer.
    const { rows, omitted } = markdownTail(item.text.trim(), width, maxLines);
    return omitted > 0 ? [plainRow(`… ${omitted} earlier lines (printed in full when finished)`, { dim: true }), ...rows] : rows;
  }
  if (item.kind !== 'tool') return textRows(item.kind, item.text, width);
  const call = s.toolCalls[item.id];
  // The call whose approval is on screen is shown by the modal, not twice.
  if (!call || s.permissions[0]?.call.id === call.id) return [];
  const awaiting = s.permissions.some((p) => p.call.id === call.id);
  return toolCallRows(call, {
    cwd: s.cwd,
    width,
    expanded: ui.expanded.has(call.id) && !awaiting,
    terminals: awaiting ? [] : terminalsOf(s, call.id),
    awaiting,
    spinnerFrame: ui.spinnerFrame,
    outputLines: 8,
    bodyLines: awaiting ? 0 : 14,
  }).slice(0, awaiting ? 1 : undefined);
}

function terminalsOf(s: ClientState, callId: string) {
  const call = s.toolCalls[callId];
  if (!call) return [];
  return call.content.flatMap((c) => (c.type === 'terminal' && s.terminals[c.terminalId] ? [s.terminals[c.terminalId]] : []));
}

/** The tool list (Tab): every call of the latest turn, the selected one marked. */
export function toolListRows(s: ClientState, ui: UiState, width: number, maxLines: number): Row[] {
  if (s.turnCalls.length === 0) return [plainRow('  no tool calls in this turn yet', { dim: true })];
  let selRow = 0;
  const rows: Row[] = [];
  s.turnCalls.forEach((id, i) => {
    const call = s.toolCalls[id];
    if (!call) return;
    if (i === ui.selected) selRow = rows.length;
    const expanded = ui.expanded.has(id);
    const r = toolCallRows(call, { cwd: s.cwd, width, expanded, terminals: terminalsOf(s, id), selected: i === ui.selected, spinnerFrame: ui.spinnerFrame, outputLines: expanded ? 20 : 3 });
    rows.push(...(expanded ? r : r.slice(0, 1)));
  });
  if (rows.length <= maxLines) return rows;
  // Start just above the selection so it and what follows it are on screen.
  const start = Math.max(0, Math.min(selRow - 1, rows.length - maxLines));
  const view = rows.slice(start);
  const head = start > 0 ? [plainRow(`… ${start} line${start === 1 ? '' : 's'} above`, { dim: true })] : [];
  return [...head, ...clipHead(view, maxLines - head.length)];
}

export interface ScreenSize {
  columns: number;
  rows: number;
}

export function liveRows(s: ClientState, ui: UiState, size: ScreenSize): Row[] {
  const width = Math.max(20, size.columns);
  const height = Math.max(8, size.rows);
  const focus = effectiveFocus(s, ui);
  const extra = [...(ui.quitArmed ? [{ label: 'Ctrl+C', help: 'again quits' }] : []), ...(ui.logOpen || s.agentLog.length > 0 ? [{ label: 'Ctrl+L', help: ui.logOpen ? 'close the agent log' : 'agent log' }] : [])];
  const footer = footerRows(focus, width, extra);
  const status = [statusRow(s, width)];
  // One spare row: a frame exactly as tall as the terminal makes Ink clear the screen.
  const room = height - 1 - footer.length - status.length;
  let bottom: Row[];
  if (s.permissions.length > 0) {
    const p = s.permissions[0];
    bottom = approvalRows(p, {
      cwd: s.cwd,
      width,
      index: 0,
      total: s.permissions.length,
      maxLines: Math.max(6, room - 3),
      terminals: [],
      reason: ui.reason,
    });
  } else if (s.sessionChoices) {
    bottom = pickerRows(s.sessionChoices, Math.min(ui.pickerIndex, s.sessionChoices.sessions.length - 1), width, Math.max(4, Math.min(14, room - 2)));
  } else if (ui.transcript) {
    bottom = [];
  } else if (s.auth) {
    bottom = authRows(s.auth, s.agent.name ?? s.agent.label, width, Math.max(6, room - 3));
  } else {
    const comp = openCompletion(s, ui);
    const compRows = comp ? completionRows(comp, completionIndex(ui, comp), width, Math.max(2, Math.min(9, room - 8))) : [];
    const working = workingRow(s, ui.spinnerFrame, ui.now);
    bottom = [
      ...(ui.hint ? wrapText(ui.hint, width - 2).map((l) => [{ text: '  ' }, { text: l, color: 'warn' }]) : []),
      ...(working ? [working] : []),
      plainRow('─'.repeat(width), { color: 'muted' }),
      ...composerRows(ui.composer, width, Math.min(8, Math.max(1, room - 6 - compRows.length)), {
        active: ui.focus === 'composer',
        pastes: ui.pastes,
        placeholder:
          s.agent.status === 'exited'
            ? 'the agent has exited; Ctrl+D quits'
            : s.loading
              ? 'resuming the session…'
              : s.agent.builtin
                ? 'message the agent · / commands · @ files · !cmd runs a command'
                : s.commands.length > 0
                  ? `message the agent · / commands (${s.commands.length} from the agent) · @ files`
                  : 'message the agent · / commands · @ files',
      }),
      ...compRows,
    ];
  }
  let budget = Math.max(0, room - bottom.length);
  const top: Row[] = [];
  for (const q of s.queued) top.push(plainRow(`  queued: ${q.split('\n')[0]}`, { dim: true }));
  budget -= Math.min(budget, top.length);
  const plan = s.plan.length > 0 && s.plan.some((e) => e.status !== 'completed') ? planRows(s.plan, width, Math.min(6, Math.floor(budget / 3))) : [];
  budget -= Math.min(budget, plan.length);
  let middle: Row[];
  if (ui.transcript && s.permissions.length === 0 && !s.sessionChoices) {
    middle = transcriptRows(s, ui.transcript, width, Math.max(4, budget + plan.length + top.length));
    return [...middle, ...bottom, ...status, ...footer].slice(0, height - 1);
  }
  if (ui.logOpen) {
    middle = agentLogRows(s, width, Math.max(2, budget));
  } else if (focus === 'tools') {
    const texts = s.live.filter((i) => i.kind !== 'tool').flatMap((i) => liveItemRows(s, ui, i, width, 3));
    const textPart = clipTail(texts, Math.min(3, Math.floor(budget / 4)));
    middle = [...textPart, ...toolListRows(s, ui, width, Math.max(1, budget - textPart.length))];
  } else {
    middle = clipTail(
      s.live.flatMap((i) => liveItemRows(s, ui, i, width, Math.max(1, budget))),
      budget,
      ' (printed in full when finished)',
    );
  }
  return [...middle, ...plan, ...top, ...bottom, ...status, ...footer].slice(0, height - 1);
}
