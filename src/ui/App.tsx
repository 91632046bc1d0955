// The screen: finished history printed once through <Static>, then the live region (rows laid
// out to fit the terminal), whose panel is drawn by the view that has the keys. Keys go to that
// view through the binding table in keys.ts (keyboard.ts); each view lives in views/.
import { Static } from 'ink';
import { memo, useEffect, useMemo, useSyncExternalStore } from 'react';
import type { ClientStore, HistoryItem } from '../client/state.ts';
import type { Controller } from './controller.ts';
import { FRAME_MS, framed } from './frame_budget.ts';
import { useKeyboard } from './keyboard.ts';
import { highlighterReady, loadHighlighter, onHighlighterReady } from './highlight.ts';
import { loadMarkdown, markdownReady, onMarkdownReady } from './markdown.ts';
import { historyRows } from './message_rows.ts';
import { useReprint } from './reprint.ts';
import { Rows } from './Rows.tsx';
import { useAnimation, useScreenSize, useUiState } from './screen_hooks.ts';
import { liveRows, type ScreenSize } from './screen_rows.ts';
import type { Arming, UiState } from './ui_state.ts';
import { useNotifications, type Notifier } from './notify.ts';
import { useApprovalOnScreen } from './views/approval_arming.ts';
import type { ExternalEditor, PromptStore } from './views/view.ts';
import { useFileList } from './views/completion.ts';
import { useReasonReset } from './views/reason.ts';
import { useToolSelection } from './views/tools.ts';

export type { Controller } from './controller.ts';

const HistoryItemView = memo(function HistoryItemView({ item, width, cwd }: { item: HistoryItem; width: number; cwd: string }) {
  return <Rows rows={historyRows(item, width, cwd)} wide={width} />;
});

/**
 * History as far as it can be printed now: an answer with a code fence waits (with everything
 * after it) until the highlighter has loaded, since what is printed cannot be drawn again.
 */
export function printableHistory(history: HistoryItem[], ready: { highlighter: boolean; markdown: boolean }): HistoryItem[] {
  if (ready.highlighter && ready.markdown) return history;
  const at = history.findIndex((h) => (h.kind === 'agent' || h.kind === 'thought') && (!ready.markdown || h.text.includes('```')));
  if (at === -1) return history;
  if (!ready.markdown) void loadMarkdown();
  else void loadHighlighter();
  return history.slice(0, at);
}

export interface AppProps {
  store: ClientStore;
  controller: Controller;
  /** Run the spinner (off in snapshot tests so frames are stable). */
  animate?: boolean;
  /** Fixed size for tests; otherwise the terminal's, following resizes. */
  size?: ScreenSize;
  initial?: Partial<UiState>;
  /** Where sent prompts are saved for later sessions (absent: this session only). */
  prompts?: PromptStore;
  /** $EDITOR with the screen suspended (Ctrl+G, /edit). */
  editor?: ExternalEditor;
  /** How long an approval holds its keys (APPROVAL_ARMING unless a test says otherwise). */
  arming?: Arming;
  /** The bell, desktop notification and terminal title (none in tests and benchmarks). */
  notifier?: Notifier;
  /** Milliseconds between two frames drawn for store changes (FRAME_MS unless a test says otherwise). */
  frameMs?: number;
  /** The theme is `auto` and the terminal did not say its background in time: its answer, should it come later, sets the theme. */
  lateBackground?: boolean;
}

export function App({ store, controller, animate = true, size: fixedSize, initial, prompts, editor, arming, notifier, frameMs = FRAME_MS, lateBackground }: AppProps) {
  // store changes reach the screen once a frame, a replay once it is read (frame_budget.ts)
  const subscribe = useMemo(() => framed(store.subscribe, { frameMs, holding: () => store.getState().loading !== undefined }), [store, frameMs]);
  const s = useSyncExternalStore(subscribe, store.getState, store.getState);
  const size = useScreenSize(fixedSize);
  const reprint = useReprint(size.columns, s.history.length > 0, s.epoch);
  const { ui, current, setUi } = useUiState(arming ? { ...initial, arming } : initial);
  useAnimation(animate, s, setUi);
  useReasonReset(s, setUi);
  useApprovalOnScreen(s, ui, setUi);
  useNotifications(s, ui, notifier);
  useToolSelection(s, ui, setUi);
  useKeyboard({ store, controller, ui: current, setUi, prompts, editor, lateBackground });
  useFileList(s, ui, controller);
  const highlighter = useSyncExternalStore(onHighlighterReady, highlighterReady, highlighterReady);
  const markdown = useSyncExternalStore(onMarkdownReady, markdownReady, markdownReady);
  // marked comes in once the session is open (markdown.ts): after the first frame, before the
  // first answer, and not while the start's own answers are being read
  const open = s.sessionId !== undefined;
  useEffect(() => {
    if (open) void loadMarkdown();
  }, [open]);

  return (
    <>
      <Static key={reprint} items={printableHistory(s.history, { highlighter, markdown })}>{(item) => <HistoryItemView key={item.key} item={item} width={size.columns} cwd={s.cwd} />}</Static>
      <Rows rows={liveRows(s, ui, size)} />
    </>
  );
}
