// The screen: finished history printed once through <Static>, then the live region (rows laid
// out to fit the terminal). Keys go through the binding table in keys.ts.
import { Static, useInput, useStdout, type Key } from 'ink';
import { memo, useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { ClientStore, HistoryItem } from '../client/state.ts';
import { runAction, submitPrompt, type ActionContext } from './actions.ts';
import { optionForKey, reasonOption } from './approval_rows.ts';
import { backspace, emptyComposer, insertPaste, insertText, moveCursor } from './composer.ts';
import type { Controller } from './controller.ts';
import { prepareFuzzy } from './fuzzy.ts';
import { cleanPaste, InputDecoder, PASTE_TIMEOUT_MS } from './input.ts';
import { keyName, matchAction } from './keys.ts';
import { historyRows } from './message_rows.ts';
import { useReprint } from './reprint.ts';
import { Rows } from './Rows.tsx';
import { effectiveFocus, initialUi, liveRows, openCompletion, type UiState } from './screen_rows.ts';
import { fullOutputText } from './tool_call_rows.ts';

export type { Controller } from './controller.ts';

const HistoryItemView = memo(function HistoryItemView({ item, width, cwd }: { item: HistoryItem; width: number; cwd: string }) {
  return <Rows rows={historyRows(item, width, cwd)} />;
});

function useScreenSize(fixed?: { columns: number; rows: number }) {
  const { stdout } = useStdout();
  const read = () => fixed ?? { columns: stdout.columns || 80, rows: stdout.rows || 24 };
  const [size, setSize] = useState(read);
  useEffect(() => {
    if (fixed) return;
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return size;
}

export interface AppProps {
  store: ClientStore;
  controller: Controller;
  /** Run the spinner (off in snapshot tests so frames are stable). */
  animate?: boolean;
  /** Fixed size for tests; otherwise the terminal's, following resizes. */
  size?: { columns: number; rows: number };
  initial?: Partial<UiState>;
}

export function App({ store, controller, animate = true, size: fixedSize, initial }: AppProps) {
  const s = useSyncExternalStore(store.subscribe, store.getState, store.getState);
  const size = useScreenSize(fixedSize);
  const reprint = useReprint(size.columns, s.history.length > 0, s.epoch);
  const [ui, setUiState] = useState<UiState>(() => ({ ...initialUi, ...initial }));
  const uiRef = useRef(ui);
  // The latest UI state, updated as each key is handled: one read can carry several keys (text
  // and Enter), and the second must see what the first did before React renders.
  const setUi = useCallback((next: UiState | ((u: UiState) => UiState)) => {
    uiRef.current = typeof next === 'function' ? next(uiRef.current) : next;
    setUiState(uiRef.current);
  }, []);
  const decoder = useRef(new InputDecoder());
  const pasteTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const armTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  // the spinners (of the calls running, and of the working line) turn, and its clock runs, while a turn runs
  const spinning = animate && (s.running || s.turnCalls.some((id) => s.toolCalls[id]?.status === 'in_progress' && !s.toolCalls[id]?.leftPending));
  useEffect(() => {
    if (!spinning) return;
    setUi((u) => ({ ...u, now: Date.now() }));
    const t = setInterval(() => setUi((u) => ({ ...u, spinnerFrame: u.spinnerFrame + 1, now: Date.now() })), 120);
    return () => clearInterval(t);
  }, [spinning]);
  useEffect(
    () => () => {
      clearTimeout(armTimer.current);
      clearTimeout(pasteTimer.current);
    },
    [],
  );

  // A reason being typed belongs to one approval: drop it when that approval goes away.
  const headKey = s.permissions[0]?.key;
  useEffect(() => {
    setUi((u) => (u.reason === undefined ? u : { ...u, reason: undefined }));
  }, [headKey]);

  // Keep the selection inside the tool list as it grows or is replaced.
  useEffect(() => {
    if (ui.selected >= s.turnCalls.length && s.turnCalls.length > 0) setUi((u) => ({ ...u, selected: s.turnCalls.length - 1 }));
  }, [s.turnCalls.length, ui.selected]);

  const onText = useCallback((text: string) => {
    const st = store.getState();
    const u = uiRef.current;
    const focus = effectiveFocus(st, u);
    if (focus === 'reason') setUi((x) => ({ ...x, reason: (x.reason ?? '') + text.replace(/[\r\n]+/g, ' ') }));
    else if (focus === 'composer' || focus === 'completion') setUi((x) => ({ ...x, composer: insertText(x.composer, text) }));
  }, [store]);

  // A paste is text wherever text goes; a long one sits in the composer as one token.
  const onPaste = useCallback((raw: string) => {
    const text = cleanPaste(raw);
    const focus = effectiveFocus(store.getState(), uiRef.current);
    if (focus === 'reason') setUi((x) => ({ ...x, reason: (x.reason ?? '') + text.replace(/\n+/g, ' ') }));
    else if (focus === 'composer' || focus === 'completion') {
      setUi((x) => {
        const r = insertPaste(x.composer, text, x.pastes);
        return { ...x, composer: r.composer, pastes: r.pastes };
      });
    }
  }, [store]);

  const dispatch = useCallback(
    (input: string, key: Key) => {
      if (uiRef.current.hint !== undefined) setUi((x) => ({ ...x, hint: undefined }));
      const st = store.getState();
      const u = uiRef.current;
      const focus = effectiveFocus(st, u);
      const name = keyName(input, key);
      const action = matchAction(focus, name);
      const ctx: ActionContext = { store, controller, ui: () => uiRef.current, setUi, key: name };
      const perm = st.permissions[0];
      const answer = (optionId: string | undefined) => {
        if (perm && optionId !== undefined) controller.answerPermission?.(perm.key, { outcome: 'selected', optionId });
      };
      switch (action) {
        case 'cancel': {
          if (u.quitArmed) return controller.quit();
          if (st.running || st.permissions.length > 0) controller.cancel();
          clearTimeout(armTimer.current);
          armTimer.current = setTimeout(() => setUi((x) => ({ ...x, quitArmed: false })), 2000);
          return setUi((x) => ({ ...x, quitArmed: true, reason: undefined }));
        }
        case 'quit':
          return controller.quit();
        case 'auth_pick': {
          const m = st.auth?.methods[Number(input) - 1];
          if (m) controller.authenticate?.(m.id);
          return;
        }
        case 'auth_dismiss':
          return controller.dismissLogin?.();
        case 'log_toggle':
          return setUi((x) => ({ ...x, logOpen: !x.logOpen }));
        case 'allow_once':
          return answer(optionForKey(perm.options, 'y')?.optionId);
        case 'allow_always':
          return answer(optionForKey(perm.options, 'a')?.optionId);
        case 'reject':
          return answer(optionForKey(perm.options, 'n')?.optionId);
        case 'pick_option':
          return answer(perm.options[Number(input) - 1]?.optionId);
        case 'reject_reason':
          if (optionForKey(perm.options, 'n')) setUi((x) => ({ ...x, reason: '' }));
          return;
        case 'reason_submit': {
          const reason = (u.reason ?? '').trim();
          setUi((x) => ({ ...x, reason: undefined }));
          answer(reasonOption(perm.options)?.optionId);
          if (reason !== '') controller.send(reason);
          return;
        }
        case 'reason_back':
          return setUi((x) => ({ ...x, reason: undefined }));
        case 'send':
          return submitPrompt(ctx);
        case 'history_prev':
        case 'history_next': {
          // Only while the prompt is one line: a multi-line prompt is being edited, not recalled.
          if (u.composer.text.includes('\n') || u.past.length === 0) return;
          const idx = action === 'history_prev' ? (u.pastIndex === -1 ? u.past.length - 1 : Math.max(0, u.pastIndex - 1)) : u.pastIndex === -1 ? -1 : u.pastIndex + 1;
          if (idx === -1 || idx >= u.past.length) return setUi((x) => ({ ...x, pastIndex: -1, composer: x.pastIndex === -1 ? x.composer : emptyComposer }));
          const text = u.past[idx];
          return setUi((x) => ({ ...x, pastIndex: idx, composer: { text, cursor: text.length } }));
        }
        case 'newline':
          return setUi((x) => ({ ...x, composer: insertText(x.composer, '\n') }));
        case 'focus_next':
          return setUi((x) => ({ ...x, focus: x.focus === 'composer' ? 'tools' : 'composer' }));
        case 'select_prev':
          return setUi((x) => ({ ...x, selected: Math.max(0, x.selected - 1) }));
        case 'select_next':
          return setUi((x) => ({ ...x, selected: Math.min(Math.max(0, st.turnCalls.length - 1), x.selected + 1) }));
        case 'toggle': {
          const id = st.turnCalls[u.selected];
          if (!id) return;
          return setUi((x) => {
            const expanded = new Set(x.expanded);
            if (expanded.has(id)) expanded.delete(id);
            else expanded.add(id);
            return { ...x, expanded };
          });
        }
        case 'expand_all':
          return setUi((x) => ({ ...x, expanded: st.turnCalls.every((id) => x.expanded.has(id)) ? new Set() : new Set(st.turnCalls) }));
        case 'full_output': {
          const id = st.turnCalls[u.selected];
          const call = id ? st.toolCalls[id] : undefined;
          if (call) store.showFullOutput(id, call.title, fullOutputText(call, store.terminalsOf(id)) || '(no output)');
          return;
        }
        default:
          if (action && runAction(action, ctx)) return;
          break;
      }
      // Not a binding: editing keys for whatever takes text.
      if (focus === 'reason') {
        if (name === 'backspace') setUi((x) => ({ ...x, reason: [...(x.reason ?? '')].slice(0, -1).join('') }));
        else if (input && !key.ctrl && !key.meta && !key.escape) onText(input);
        return;
      }
      if (focus === 'composer' || focus === 'completion') {
        if (name === 'backspace') setUi((x) => ({ ...x, composer: backspace(x.composer) }));
        else if (name === 'left') setUi((x) => ({ ...x, composer: moveCursor(x.composer, -1) }));
        else if (name === 'right') setUi((x) => ({ ...x, composer: moveCursor(x.composer, 1) }));
        else if (input && !key.ctrl && !key.meta && !key.escape && !key.tab && !key.upArrow && !key.downArrow) onText(input);
      }
    },
    [store, controller, onText],
  );

  const handle = useCallback(
    (input: string, key: Key) => {
      clearTimeout(pasteTimer.current);
      for (const ev of decoder.current.feed(input, key)) {
        if (ev.kind === 'paste') onPaste(ev.text);
        else dispatch(ev.input, ev.key);
      }
      if (decoder.current.pasting) {
        pasteTimer.current = setTimeout(() => {
          for (const ev of decoder.current.flush()) if (ev.kind === 'paste') onPaste(ev.text);
        }, PASTE_TIMEOUT_MS + 10);
      }
    },
    [dispatch, onPaste],
  );
  useInput(handle);

  // An @ list needs the workspace's files: ask for them when it opens (the client lists them
  // once, and again when the listing is old).
  const fileList = openCompletion(s, ui)?.kind === 'file';
  useEffect(() => {
    if (fileList) controller.refreshFiles?.();
  }, [fileList, controller]);
  const paths = s.files?.paths;
  useEffect(() => {
    if (paths && paths.length > 0) prepareFuzzy(paths);
  }, [paths]);

  return (
    <>
      <Static key={reprint} items={s.history}>{(item) => <HistoryItemView key={item.key} item={item} width={size.columns} cwd={s.cwd} />}</Static>
      <Rows rows={liveRows(s, ui, size)} />
    </>
  );
}
