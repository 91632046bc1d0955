// The tool list (Tab from the composer): the latest turn's calls in place of the conversation,
// with the composer still under them. ↑/↓ select, Enter or Space open a call's diff and output,
// e opens or closes all, Ctrl+O prints the selected call's whole output; Tab or Esc go back, and
// any other text typed goes back to the prompt with the focus.
import { useEffect } from 'react';
import { openKeysOverlay } from './keys_overlay.ts';
import type { ClientState } from '../../client/state.ts';
import { liveItemRows } from '../conversation_rows.ts';
import { clipTail } from '../text_layout.ts';
import { fullOutputText } from '../tool_call_rows.ts';
import { toolListRows } from '../tool_list_rows.ts';
import type { UiState } from '../ui_state.ts';
import { composerPanel, cycleMode, editPrompt, pasteIntoPrompt } from './composer.ts';
import { openTranscript } from './transcript.ts';
import type { KeyContext, View } from './view.ts';

function toggle(ctx: KeyContext): void {
  const id = ctx.state.turnCalls[ctx.ui().selected];
  if (!id) return;
  ctx.setUi((x) => {
    const expanded = new Set(x.expanded);
    if (expanded.has(id)) expanded.delete(id);
    else expanded.add(id);
    return { ...x, expanded };
  });
}

function printOutput(ctx: KeyContext): void {
  const id = ctx.state.turnCalls[ctx.ui().selected];
  const call = id ? ctx.state.toolCalls[id] : undefined;
  if (call) ctx.store.showFullOutput(id, call.title, fullOutputText(call, ctx.store.terminalsOf(id)) || '(no output)');
}

/** A few rows of the turn's text, then the list. */
function body(s: ClientState, ui: UiState, width: number, budget: number) {
  const texts = s.live.filter((i) => i.kind !== 'tool').flatMap((i) => liveItemRows(s, ui, i, width, 3));
  const textPart = clipTail(texts, Math.min(3, Math.floor(budget / 4)));
  return [...textPart, ...toolListRows(s, ui, width, Math.max(1, budget - textPart.length))];
}

/** Keep the selection inside the list as it grows or is replaced. */
export function useToolSelection(s: ClientState, ui: UiState, setUi: (f: (u: UiState) => UiState) => void): void {
  useEffect(() => {
    if (ui.selected >= s.turnCalls.length && s.turnCalls.length > 0) setUi((u) => ({ ...u, selected: s.turnCalls.length - 1 }));
  }, [s.turnCalls.length, ui.selected]);
}

export const toolsView: View = {
  focus: 'tools',
  keys: {
    focus_next: (ctx) => ctx.setUi((x) => ({ ...x, focus: 'composer' })),
    select_prev: (ctx) => ctx.setUi((x) => ({ ...x, selected: Math.max(0, x.selected - 1) })),
    select_next: (ctx) => ctx.setUi((x) => ({ ...x, selected: Math.min(Math.max(0, ctx.state.turnCalls.length - 1), x.selected + 1) })),
    toggle,
    expand_all: (ctx) => ctx.setUi((x) => ({ ...x, expanded: ctx.state.turnCalls.every((id) => x.expanded.has(id)) ? new Set() : new Set(ctx.state.turnCalls) })),
    full_output: printOutput,
    mode_next: cycleMode,
    transcript_open: openTranscript,
    keys_help: openKeysOverlay,
  },
  // text typed here was meant for the prompt: it goes there, and the focus with it
  edit: (ctx) => {
    if (!ctx.input || ctx.key.ctrl || ctx.key.meta || (ctx.name !== undefined && ctx.name.length > 1 && ctx.name !== 'space' && ctx.name !== 'digit')) return;
    ctx.setUi((x) => ({ ...x, focus: 'composer' }));
    editPrompt(ctx);
  },
  paste: (text, ctx) => {
    ctx.setUi((x) => ({ ...x, focus: 'composer' }));
    pasteIntoPrompt(text, ctx);
  },
  panel: composerPanel,
  body,
};
