// The composer: the prompt being written. Enter sends it (to a client command or the agent), ↑/↓
// recall earlier prompts, text, pastes and editing keys change it; its rows are the prompt with a
// hint and the working line above it and the completion list under it. The completion list and
// the tool list show these rows too, and share the keys for modes and the transcript.
import type { ClientState } from '../../client/state.ts';
import { completionRows } from '../completion_rows.ts';
import { backspace, composerRows, emptyComposer, expandPastes, insertPaste, insertText, moveCursor } from '../composer.ts';
import { routePrompt, type SlashContext } from '../slash_commands.ts';
import { plainRow, wrapText, type Row } from '../text_layout.ts';
import { completionIndex, openCompletion, type UiState } from '../ui_state.ts';
import { workingRow } from '../working_row.ts';
import { interruptTurn } from './global.ts';
import { openTranscript } from './transcript.ts';
import type { KeyContext, View, ViewContext } from './view.ts';

function slashContext(ctx: ViewContext): SlashContext {
  return {
    state: ctx.store.getState(),
    store: ctx.store,
    controller: ctx.controller,
    hint: (text) => ctx.setUi((u) => ({ ...u, hint: text })),
  };
}

/** Enter: the prompt leaves the composer, to a client command or to the agent. */
export function submitPrompt(ctx: ViewContext): void {
  const u = ctx.ui();
  const text = u.composer.text;
  if (text.trim() === '') return;
  ctx.setUi((x) => ({ ...x, composer: emptyComposer, past: [...x.past.slice(-99), text], pastIndex: -1, dismissed: undefined }));
  const out = routePrompt(expandPastes(text, u.pastes), slashContext(ctx));
  if (out !== undefined) ctx.controller.send(out);
}

/** Shift+Tab: the agent's next mode, round and round. */
export function cycleMode(ctx: ViewContext): void {
  const st = ctx.store.getState();
  if (st.modes.length === 0) return ctx.setUi((u) => ({ ...u, hint: 'This agent offers no modes to switch between.' }));
  if (!ctx.controller.setMode) return ctx.setUi((u) => ({ ...u, hint: 'Switching modes needs a running agent.' }));
  const at = st.modes.findIndex((m) => m.id === st.mode);
  ctx.controller.setMode(st.modes[(at + 1) % st.modes.length].id);
}

export function newline(ctx: ViewContext): void {
  ctx.setUi((x) => ({ ...x, composer: insertText(x.composer, '\n') }));
}

/** ↑/↓: an earlier prompt, only while the prompt is one line (a multi-line prompt is being edited, not recalled). */
function recall(ctx: ViewContext, back: boolean): void {
  const u = ctx.ui();
  if (u.composer.text.includes('\n') || u.past.length === 0) return;
  const idx = back ? (u.pastIndex === -1 ? u.past.length - 1 : Math.max(0, u.pastIndex - 1)) : u.pastIndex === -1 ? -1 : u.pastIndex + 1;
  if (idx === -1 || idx >= u.past.length) return ctx.setUi((x) => ({ ...x, pastIndex: -1, composer: x.pastIndex === -1 ? x.composer : emptyComposer }));
  const text = u.past[idx];
  ctx.setUi((x) => ({ ...x, pastIndex: idx, composer: { text, cursor: text.length } }));
}

/** Keys no binding names: Backspace, ←/→, and typed text. */
export function editPrompt(ctx: KeyContext): void {
  const { name, input, key } = ctx;
  if (name === 'backspace') ctx.setUi((x) => ({ ...x, composer: backspace(x.composer) }));
  else if (name === 'left') ctx.setUi((x) => ({ ...x, composer: moveCursor(x.composer, -1) }));
  else if (name === 'right') ctx.setUi((x) => ({ ...x, composer: moveCursor(x.composer, 1) }));
  else if (input && !key.ctrl && !key.meta && !key.escape && !key.tab && !key.upArrow && !key.downArrow) ctx.setUi((x) => ({ ...x, composer: insertText(x.composer, input) }));
}

/** A paste is text; a long one sits in the prompt as one token. */
export function pasteIntoPrompt(text: string, ctx: ViewContext): void {
  ctx.setUi((x) => {
    const r = insertPaste(x.composer, text, x.pastes);
    return { ...x, composer: r.composer, pastes: r.pastes };
  });
}

function placeholder(s: ClientState): string {
  if (s.agent.status === 'exited') return 'the agent has exited; Ctrl+D quits';
  if (s.loading) return 'resuming the session…';
  if (s.agent.builtin) return 'message the agent · / commands · @ files · !cmd runs a command';
  if (s.commands.length > 0) return `message the agent · / commands (${s.commands.length} from the agent) · @ files`;
  return 'message the agent · / commands · @ files';
}

/** The hint, the working line, a rule, the prompt and the completion list under it. */
export function composerPanel(s: ClientState, ui: UiState, width: number, room: number): Row[] {
  const comp = openCompletion(s, ui);
  const compRows = comp ? completionRows(comp, completionIndex(ui, comp), width, Math.max(2, Math.min(9, room - 8))) : [];
  const working = workingRow(s, ui.spinnerFrame, ui.now);
  return [
    ...(ui.hint ? wrapText(ui.hint, width - 2).map((l) => [{ text: '  ' }, { text: l, color: 'warn' }]) : []),
    ...(working ? [working] : []),
    plainRow('─'.repeat(width), { color: 'muted' }),
    ...composerRows(ui.composer, width, Math.min(8, Math.max(1, room - 6 - compRows.length)), { active: ui.focus === 'composer', pastes: ui.pastes, placeholder: placeholder(s) }),
    ...compRows,
  ];
}

export const composerView: View = {
  focus: 'composer',
  keys: {
    send: submitPrompt,
    newline,
    history_prev: (ctx) => recall(ctx, true),
    history_next: (ctx) => recall(ctx, false),
    focus_next: (ctx) => ctx.setUi((x) => ({ ...x, focus: 'tools' })),
    mode_next: cycleMode,
    transcript_open: openTranscript,
    // Esc stops the running turn (the lists and modals above it close first: they have the keys then)
    interrupt: (ctx) => {
      if (ctx.state.running) interruptTurn(ctx);
    },
  },
  edit: editPrompt,
  paste: pasteIntoPrompt,
  panel: composerPanel,
};
