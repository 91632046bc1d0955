// The composer: the prompt being written, edited with a readline editor's keys (editing.ts). Enter
// sends it (to a client command or the agent) and saves it in the project's prompt history; ↑/↓
// move between its lines and, at its first and last line, through earlier prompts; Ctrl+R
// searches them; Ctrl+G opens $EDITOR on it. Its rows are the prompt with a hint and the working
// line above it and the completion list under it. The completion list and the tool list show
// these rows too, and share the keys for modes and the transcript.
import type { ClientState } from '../../client/state.ts';
import { completionRows } from '../completion_rows.ts';
import { composerRows, emptyComposer, expandPastes, insertPaste, insertText, pastesIn, showPastes, type ComposerState } from '../composer.ts';
import * as edit from '../editing.ts';
import type { Edit } from '../editing.ts';
import { openKeysOverlay } from './keys_overlay.ts';
import { routePrompt, type SlashContext } from '../slash_commands.ts';
import { plainRow, wrapText, type Row } from '../text_layout.ts';
import { completionIndex, openCompletion, type UiState } from '../ui_state.ts';
import { workingRow } from '../working_row.ts';
import { globalKeys, interruptTurn } from './global.ts';
import { openSearch } from './search.ts';
import { openTranscript } from './transcript.ts';
import type { KeyContext, KeyHandlers, View, ViewContext } from './view.ts';

/** Undo steps kept. */
const UNDO_DEPTH = 100;

function slashContext(ctx: ViewContext): SlashContext {
  return {
    state: ctx.store.getState(),
    store: ctx.store,
    controller: ctx.controller,
    hint: (text) => ctx.setUi((u) => ({ ...u, hint: text })),
    editor: () => openEditor(ctx),
    keys: () => openKeysOverlay(ctx),
  };
}

/**
 * Change the prompt, keeping what it was for undo: a run of typing (up to a space) or of cuts is
 * one step. Cuts in a row join into one text for Ctrl+Y.
 */
export function applyEdit(ctx: ViewContext, kind: 'type' | 'kill' | 'other', f: (s: ComposerState) => Edit | undefined): void {
  ctx.setUi((x) => {
    const r = f(x.composer);
    if (!r || (r.composer.text === x.composer.text && r.composer.cursor === x.composer.cursor)) return x;
    const moved = r.composer.text === x.composer.text;
    const joins = kind !== 'other' && x.lastEdit === kind && !(kind === 'type' && /\s$/.test(x.composer.text.slice(0, x.composer.cursor)));
    const undo = moved || joins ? x.undo : [...x.undo.slice(-(UNDO_DEPTH - 1)), x.composer];
    const killed = r.killed === undefined ? x.killed : x.lastEdit === 'kill' ? joinKill(x, r) : r.killed;
    return { ...x, composer: r.composer, undo, killed, lastEdit: moved ? undefined : kind, pastIndex: moved ? x.pastIndex : -1 };
  });
}

/** A cut right after another joins it: before it when cutting backwards, after it when forwards. */
function joinKill(x: UiState, r: Edit): string {
  return r.composer.cursor < x.composer.cursor ? `${r.killed}${x.killed}` : `${x.killed}${r.killed}`;
}

function undo(ctx: ViewContext): void {
  ctx.setUi((x) => {
    const prev = x.undo[x.undo.length - 1];
    return prev ? { ...x, composer: prev, undo: x.undo.slice(0, -1), lastEdit: undefined } : { ...x, hint: 'Nothing to undo.' };
  });
}

/** Keep a sent prompt: in memory for ↑, and on disk for later sessions in this project. */
function remember(ctx: ViewContext, text: string): void {
  const u = ctx.ui();
  if (u.past[u.past.length - 1] === text) return;
  ctx.setUi((x) => ({ ...x, past: [...x.past, text] }));
  ctx.prompts?.append({ text, at: Date.now(), ...(pastesIn(text, u.pastes) ? { pastes: pastesIn(text, u.pastes) } : {}) });
}

/** Enter: the prompt leaves the composer, to a client command or to the agent. */
export function submitPrompt(ctx: ViewContext): void {
  const u = ctx.ui();
  const text = u.composer.text;
  if (text.trim() === '') return;
  remember(ctx, text);
  ctx.setUi((x) => ({ ...x, composer: emptyComposer, pastIndex: -1, draft: undefined, dismissed: undefined, undo: [], lastEdit: undefined }));
  const full = expandPastes(text, u.pastes);
  // the history shows a long paste as the composer did
  if (full !== text) ctx.store.noteShown(full, showPastes(text, u.pastes));
  const out = routePrompt(full, slashContext(ctx));
  if (out !== undefined) ctx.controller.send(out);
}

/** Ctrl+O: the last prompt sent with a collapsed paste, printed whole into the scrollback. */
function expandLastPaste(ctx: ViewContext): void {
  const last = [...ctx.store.getState().history].reverse().find((h) => h.kind === 'user' && h.shown !== undefined);
  if (!last || last.kind !== 'user') return ctx.setUi((x) => ({ ...x, hint: 'No pasted prompt to show: a long paste is shown collapsed once sent, and Ctrl+O prints it.' }));
  ctx.store.showFullOutput(last.key, 'your pasted prompt', last.text);
}

/** Shift+Tab: the agent's next mode, round and round. */
export function cycleMode(ctx: ViewContext): void {
  const st = ctx.store.getState();
  if (st.modes.length === 0) return ctx.setUi((u) => ({ ...u, hint: 'This agent offers no modes to switch between.' }));
  const config = ctx.controller.config;
  if (!config) return ctx.setUi((u) => ({ ...u, hint: 'Switching modes needs a running agent.' }));
  const at = st.modes.findIndex((m) => m.id === st.mode);
  void config.setMode(st.modes[(at + 1) % st.modes.length].id);
}

export function newline(ctx: ViewContext): void {
  applyEdit(ctx, 'type', (s) => ({ composer: insertText(s, '\n') }));
}

/** ↑/↓ at the first or last line of the prompt: the earlier (or later) prompt, the draft kept to come back to. */
function recall(ctx: ViewContext, back: boolean): void {
  const u = ctx.ui();
  if (u.past.length === 0) return;
  if (!back && u.pastIndex === -1) return;
  const idx = back ? (u.pastIndex === -1 ? u.past.length - 1 : u.pastIndex - 1) : u.pastIndex + 1;
  if (idx < 0) return;
  if (idx >= u.past.length) return ctx.setUi((x) => ({ ...x, pastIndex: -1, composer: x.draft ?? emptyComposer, draft: undefined }));
  const text = u.past[idx];
  // going back lands on the prompt's last line, going forward on its first, so ↑/↓ walk on
  ctx.setUi((x) => ({ ...x, pastIndex: idx, draft: x.pastIndex === -1 ? x.composer : x.draft, composer: { text, cursor: back ? text.length : lineEndOfFirst(text) } }));
}

const lineEndOfFirst = (text: string) => (text.includes('\n') ? text.indexOf('\n') : text.length);

function upOrRecall(ctx: ViewContext, back: boolean): void {
  const moved = (back ? edit.lineUp : edit.lineDown)(ctx.ui().composer);
  if (moved) return ctx.setUi((x) => ({ ...x, composer: moved.composer }));
  recall(ctx, back);
}

/** Ctrl+C: a prompt being written is cleared first (Ctrl+_ brings it back); an empty one cancels the turn. */
function clearOrCancel(ctx: KeyContext): void {
  if (ctx.ui().composer.text === '') return globalKeys.cancel?.(ctx);
  applyEdit(ctx, 'other', () => ({ composer: emptyComposer }));
  ctx.setUi((x) => ({ ...x, pastIndex: -1, draft: undefined, hint: 'Prompt cleared: Ctrl+_ brings it back; Ctrl+C on an empty prompt cancels the turn.' }));
}

/** Ctrl+D: delete forward in a prompt, quit on an empty one (as a shell). */
function deleteOrQuit(ctx: KeyContext): void {
  if (ctx.ui().composer.text === '') return globalKeys.quit?.(ctx);
  applyEdit(ctx, 'other', edit.deleteForward);
}

/** Ctrl+G, /edit: the prompt in $VISUAL or $EDITOR; what is saved there comes back. */
export function openEditor(ctx: ViewContext): void {
  const u = ctx.ui();
  if (!ctx.editor) return ctx.setUi((x) => ({ ...x, hint: 'No external editor here.' }));
  if (u.editing) return;
  // the hint is drawn first, so the frame after the editor differs and is drawn in full
  ctx.setUi((x) => ({ ...x, editing: true, hint: 'Editing the prompt in your editor; save and quit it to come back.' }));
  ctx.schedule('editor', 20, () => {
    const before = ctx.ui().composer;
    const out = ctx.editor!(expandPastes(before.text, ctx.ui().pastes));
    ctx.setUi((x) => ({ ...x, editing: false, hint: out.error }));
    if (out.text !== undefined) {
      const text = out.text;
      applyEdit(ctx, 'other', () => ({ composer: { text, cursor: text.length } }));
    }
  });
}

/** `?` on an empty prompt: the keys overlay (nothing goes into the scrollback); otherwise it is a character. */
function keysOrType(ctx: KeyContext): void {
  if (ctx.ui().composer.text !== '') return applyEdit(ctx, 'type', (s) => ({ composer: insertText(s, '?') }));
  openKeysOverlay(ctx);
}

/** Two Esc presses this close together on an empty prompt open the rewind picker. */
const ESC_ESC_MS = 800;

/** Esc on an empty prompt: a second one soon after goes back to an earlier prompt (the rewind picker). */
function escEsc(ctx: KeyContext): void {
  if (ctx.ui().composer.text !== '') return;
  const at = ctx.ui().escAt;
  const now = Date.now();
  if (at !== undefined && now - at <= ESC_ESC_MS) {
    ctx.setUi((x) => ({ ...x, escAt: undefined }));
    if (ctx.controller.rewind) void ctx.controller.rewind.rewind();
    return;
  }
  ctx.setUi((x) => ({ ...x, escAt: now, hint: 'Esc again: go back to an earlier prompt (/rewind).' }));
}

/** Tab with no list to complete from: the tool list, when the turn has calls to show. */
function focusTools(ctx: KeyContext): void {
  if (ctx.state.turnCalls.length === 0) return ctx.setUi((x) => ({ ...x, hint: 'Nothing to complete here (type / or @ for a list); Tab opens the tool list once the agent has run tools.' }));
  ctx.setUi((x) => ({ ...x, focus: 'tools' }));
}

/** Typed text (and keys no binding names: they do nothing). */
export function editPrompt(ctx: KeyContext): void {
  const { name, input, key } = ctx;
  if (name !== undefined && name !== 'space' && name !== 'digit' && name.length > 1 && !/^shift\+.$/.test(name)) return;
  if (input && !key.ctrl && !key.meta) applyEdit(ctx, 'type', (s) => ({ composer: insertText(s, input) }));
}

/** A paste is text; a long one sits in the prompt as one token. */
export function pasteIntoPrompt(text: string, ctx: ViewContext): void {
  let pastes = ctx.ui().pastes;
  applyEdit(ctx, 'other', (s) => {
    const r = insertPaste(s, text, pastes);
    pastes = r.pastes;
    return { composer: r.composer };
  });
  ctx.setUi((x) => ({ ...x, pastes }));
}

/** The editing keys, shared by the composer and the completion list (which edits the same prompt). */
export const editingKeys: KeyHandlers = {
  newline,
  line_start: (ctx) => applyEdit(ctx, 'other', edit.lineStart),
  line_end: (ctx) => applyEdit(ctx, 'other', edit.lineEnd),
  char_left: (ctx) => applyEdit(ctx, 'other', edit.charLeft),
  char_right: (ctx) => applyEdit(ctx, 'other', edit.charRight),
  word_left: (ctx) => applyEdit(ctx, 'other', edit.wordLeft),
  word_right: (ctx) => applyEdit(ctx, 'other', edit.wordRight),
  delete_back: (ctx) => applyEdit(ctx, 'other', edit.deleteBack),
  delete_forward: (ctx) => applyEdit(ctx, 'other', edit.deleteForward),
  delete_or_quit: deleteOrQuit,
  kill_word_back: (ctx) => applyEdit(ctx, 'kill', edit.killWordBack),
  kill_word_forward: (ctx) => applyEdit(ctx, 'kill', edit.killWordForward),
  kill_line_start: (ctx) => applyEdit(ctx, 'kill', edit.killLineStart),
  kill_line_end: (ctx) => applyEdit(ctx, 'kill', edit.killLineEnd),
  yank: (ctx) => {
    const text = ctx.ui().killed;
    if (text !== '') applyEdit(ctx, 'other', (s) => ({ composer: insertText(s, text) }));
  },
  undo,
  clear_draft: clearOrCancel,
  history_search: openSearch,
  external_editor: openEditor,
  mode_next: cycleMode,
  transcript_open: openTranscript,
};

function placeholder(s: ClientState): string {
  if (s.agent.status === 'exited') return 'the agent has exited; Ctrl+D quits';
  if (s.loading) return 'resuming the session…';
  if (s.agent.builtin) return 'message the agent · / commands · @ files · !cmd runs a command · ? keys';
  if (s.commands.length > 0) return `message the agent · / commands (${s.commands.length} from the agent) · @ files · ? keys`;
  return 'message the agent · / commands · @ files · ? keys';
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
    ...editingKeys,
    send: submitPrompt,
    history_prev: (ctx) => upOrRecall(ctx, true),
    history_next: (ctx) => upOrRecall(ctx, false),
    keys_help: keysOrType,
    expand_paste: expandLastPaste,
    focus_next: focusTools,
    // Esc stops the running turn or `!` line (the lists and modals above it close first: they have
    // the keys then); with neither, twice on an empty prompt it opens the rewind picker
    interrupt: (ctx) => {
      if (ctx.state.running || ctx.state.shell) interruptTurn(ctx);
      else escEsc(ctx);
    },
  },
  edit: editPrompt,
  paste: pasteIntoPrompt,
  panel: composerPanel,
};
