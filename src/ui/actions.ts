// What the keys of the newer features do (modes, the completion list, the transcript view, the
// session picker) and how a prompt leaves the composer (client commands run here, the rest is
// sent). The screen's key dispatcher hands every action it has no case for to `runAction`.
import type { ClientStore } from '../client/state.ts';
import { applyCompletion } from './completion.ts';
import { emptyComposer, expandPastes } from './composer.ts';
import type { Controller } from './controller.ts';
import type { Action } from './keys.ts';
import { completionIndex, openCompletion, type UiState } from './screen_rows.ts';
import { routePrompt, type SlashContext } from './slash_commands.ts';
import { fullOutputText } from './tool_call_rows.ts';
import { selectedCall, transcriptEntries } from './transcript_rows.ts';

export interface ActionContext {
  store: ClientStore;
  controller: Controller;
  /** The latest UI state (updated as each key is handled). */
  ui(): UiState;
  setUi(f: (u: UiState) => UiState): void;
  /** The key's table name (`return`, `tab`, …). */
  key: string | undefined;
}

const PAGE = 10;

function slashContext(ctx: ActionContext): SlashContext {
  return {
    state: ctx.store.getState(),
    store: ctx.store,
    controller: ctx.controller,
    hint: (text) => ctx.setUi((u) => ({ ...u, hint: text })),
  };
}

/** Enter in the composer: the prompt leaves it, to a client command or to the agent. */
export function submitPrompt(ctx: ActionContext): void {
  const u = ctx.ui();
  const text = u.composer.text;
  if (text.trim() === '') return;
  ctx.setUi((x) => ({ ...x, composer: emptyComposer, past: [...x.past.slice(-99), text], pastIndex: -1, dismissed: undefined }));
  const out = routePrompt(expandPastes(text, u.pastes), slashContext(ctx));
  if (out !== undefined) ctx.controller.send(out);
}

function cycleMode(ctx: ActionContext): void {
  const st = ctx.store.getState();
  if (st.modes.length === 0) return ctx.setUi((u) => ({ ...u, hint: 'This agent offers no modes to switch between.' }));
  if (!ctx.controller.setMode) return ctx.setUi((u) => ({ ...u, hint: 'Switching modes needs a running agent.' }));
  const at = st.modes.findIndex((m) => m.id === st.mode);
  ctx.controller.setMode(st.modes[(at + 1) % st.modes.length].id);
}

function completion(ctx: ActionContext, action: Action): boolean {
  const st = ctx.store.getState();
  const u = ctx.ui();
  const comp = openCompletion(st, u);
  if (!comp || comp.items.length === 0) return false;
  const idx = completionIndex(u, comp);
  const n = comp.items.length;
  if (action === 'complete_prev' || action === 'complete_next') {
    const index = (idx + (action === 'complete_prev' ? n - 1 : 1)) % n;
    ctx.setUi((x) => ({ ...x, completionSel: { key: comp.key, index } }));
    return true;
  }
  if (action === 'complete_close') {
    ctx.setUi((x) => ({ ...x, dismissed: x.composer.text }));
    return true;
  }
  const item = comp.items[idx];
  const next = applyCompletion(u.composer, comp, item);
  // Enter on what is already typed out in full sends the prompt rather than completing nothing
  if (ctx.key === 'return' && next.text.trimEnd() === u.composer.text.trimEnd()) {
    submitPrompt(ctx);
    return true;
  }
  ctx.setUi((x) => ({ ...x, composer: applyCompletion(x.composer, comp, item), completionSel: { key: '', index: 0 } }));
  // Enter on a command that takes nothing more runs it; Tab only completes
  if (ctx.key === 'return' && item.submit) submitPrompt(ctx);
  return true;
}

function transcript(ctx: ActionContext, action: Action): boolean {
  const st = ctx.store.getState();
  const { calls } = transcriptEntries(st);
  const last = Math.max(0, calls.length - 1);
  const move = (d: number) => ctx.setUi((x) => (x.transcript ? { ...x, transcript: { ...x.transcript, selected: Math.max(0, Math.min(last, x.transcript.selected + d)) } } : x));
  switch (action) {
    case 'transcript_open':
      ctx.setUi((x) => ({ ...x, transcript: { selected: last, expanded: new Set() } }));
      return true;
    case 'transcript_close':
      ctx.setUi((x) => ({ ...x, transcript: undefined }));
      return true;
    case 'transcript_prev':
      move(-1);
      return true;
    case 'transcript_next':
      move(1);
      return true;
    case 'transcript_page_up':
      move(-PAGE);
      return true;
    case 'transcript_page_down':
      move(PAGE);
      return true;
    case 'transcript_toggle': {
      const t = ctx.ui().transcript;
      const id = t && selectedCall(st, t);
      if (!id) return true;
      ctx.setUi((x) => {
        if (!x.transcript) return x;
        const expanded = new Set(x.transcript.expanded);
        if (expanded.has(id)) expanded.delete(id);
        else expanded.add(id);
        return { ...x, transcript: { ...x.transcript, expanded } };
      });
      return true;
    }
    case 'transcript_output': {
      const t = ctx.ui().transcript;
      const id = t && selectedCall(st, t);
      const inHistory = st.history.find((h): h is Extract<typeof h, { kind: 'tool' }> => h.kind === 'tool' && h.call.id === id);
      const call = id ? (st.toolCalls[id] ?? inHistory?.call) : undefined;
      if (id && call) ctx.store.showFullOutput(id, call.title, fullOutputText(call, ctx.store.terminalsOf(id)) || '(no output)');
      return true;
    }
    default:
      return false;
  }
}

function picker(ctx: ActionContext, action: Action): boolean {
  const choices = ctx.store.getState().sessionChoices;
  if (!choices) return false;
  const last = choices.sessions.length - 1;
  switch (action) {
    case 'picker_prev':
    case 'picker_next': {
      const d = action === 'picker_prev' ? -1 : 1;
      ctx.setUi((x) => ({ ...x, pickerIndex: Math.max(0, Math.min(last, x.pickerIndex + d)) }));
      return true;
    }
    case 'picker_pick': {
      const pick = choices.sessions[Math.max(0, Math.min(last, ctx.ui().pickerIndex))];
      ctx.setUi((x) => ({ ...x, pickerIndex: 0 }));
      if (pick && ctx.controller.loadSession) ctx.controller.loadSession(pick.sessionId);
      else ctx.store.offerSessions(undefined);
      return true;
    }
    case 'picker_close':
      ctx.setUi((x) => ({ ...x, pickerIndex: 0 }));
      if (ctx.controller.dismissSessions) ctx.controller.dismissSessions();
      else ctx.store.offerSessions(undefined);
      return true;
    default:
      return false;
  }
}

/** Runs `action` if it is one of these features'; false when it is not. */
export function runAction(action: Action, ctx: ActionContext): boolean {
  if (action === 'mode_next') {
    cycleMode(ctx);
    return true;
  }
  if (action.startsWith('complete_')) return completion(ctx, action);
  if (action.startsWith('transcript_')) return transcript(ctx, action);
  if (action.startsWith('picker_')) return picker(ctx, action);
  return false;
}
