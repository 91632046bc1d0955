// The completion list under the composer (`/`, `/mode `, `@`): ↑/↓ choose, Tab or Enter put the
// choice into the prompt (Enter on a command that takes nothing more also runs it), Esc closes the
// list. Every other key edits the prompt as in the composer; the rows are the composer's.
import { useEffect } from 'react';
import type { ClientState } from '../../client/state.ts';
import { applyCompletion } from '../completion.ts';
import type { Controller } from '../controller.ts';
import { prepareFuzzy } from '../fuzzy.ts';
import { completionIndex, openCompletion, type UiState } from '../ui_state.ts';
import { composerPanel, editingKeys, editPrompt, pasteIntoPrompt, submitPrompt } from './composer.ts';
import type { KeyContext, View } from './view.ts';

/** The list as it stands at this key; undefined when it has nothing to choose from. */
function current(ctx: KeyContext) {
  const u = ctx.ui();
  const comp = openCompletion(ctx.store.getState(), u);
  if (!comp || comp.items.length === 0) return undefined;
  return { u, comp, idx: completionIndex(u, comp) };
}

function choose(ctx: KeyContext, step: -1 | 1): void {
  const at = current(ctx);
  if (!at) return;
  const n = at.comp.items.length;
  const index = (at.idx + (step === -1 ? n - 1 : 1)) % n;
  ctx.setUi((x) => ({ ...x, completionSel: { key: at.comp.key, index } }));
}

function accept(ctx: KeyContext): void {
  const at = current(ctx);
  if (!at) return;
  const { u, comp } = at;
  const item = comp.items[at.idx];
  const next = applyCompletion(u.composer, comp, item);
  // Enter on what is already typed out in full sends the prompt rather than completing nothing
  if (ctx.name === 'return' && next.text.trimEnd() === u.composer.text.trimEnd()) return submitPrompt(ctx);
  ctx.setUi((x) => ({ ...x, composer: applyCompletion(x.composer, comp, item), completionSel: { key: '', index: 0 } }));
  // Enter on a command that takes nothing more runs it; Tab only completes
  if (ctx.name === 'return' && item.submit) submitPrompt(ctx);
}

function close(ctx: KeyContext): void {
  if (current(ctx)) ctx.setUi((x) => ({ ...x, dismissed: x.composer.text }));
}

/**
 * An @ list needs the workspace's files: ask for them when it opens (the client lists them once,
 * and again when the listing is old), and index them for fuzzy matching when they come.
 */
export function useFileList(s: ClientState, ui: UiState, controller: Controller): void {
  const fileList = openCompletion(s, ui)?.kind === 'file';
  useEffect(() => {
    if (fileList) controller.refreshFiles?.();
  }, [fileList, controller]);
  const paths = s.files?.paths;
  useEffect(() => {
    if (paths && paths.length > 0) prepareFuzzy(paths);
  }, [paths]);
}

export const completionView: View = {
  focus: 'completion',
  keys: {
    ...editingKeys,
    complete_prev: (ctx) => choose(ctx, -1),
    complete_next: (ctx) => choose(ctx, 1),
    complete_accept: accept,
    complete_close: close,
  },
  edit: editPrompt,
  paste: pasteIntoPrompt,
  panel: composerPanel,
};
