// The screen's own state as React hooks: the terminal's size (following resizes), the UI state
// with a ref that keys update at once, and the spinner's clock while a turn runs.
import { useStdout } from 'ink';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ClientState } from '../client/state.ts';
import { approvalDeadline } from './approval_rows.ts';
import type { ScreenSize } from './screen_rows.ts';
import { initialUi, type UiState } from './ui_state.ts';

export function useScreenSize(fixed?: ScreenSize): ScreenSize {
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

export interface UiStateHandle {
  ui: UiState;
  /** The latest UI state, ahead of React's render. */
  current(): UiState;
  setUi(f: (u: UiState) => UiState): void;
}

/**
 * The UI state, updated as each key is handled: one read can carry several keys (text and Enter),
 * and the second must see what the first did before React renders.
 */
export function useUiState(initial?: Partial<UiState>): UiStateHandle {
  const [ui, setUiState] = useState<UiState>(() => ({ ...initialUi, ...initial }));
  const ref = useRef(ui);
  const setUi = useCallback((f: (u: UiState) => UiState) => {
    ref.current = f(ref.current);
    setUiState(ref.current);
  }, []);
  const current = useCallback(() => ref.current, []);
  return { ui, current, setUi };
}

/**
 * The spinners (of the calls running, and of the working line) turn, and its clock runs, while a
 * turn runs, and while an approval counts down to rejecting itself.
 */
export function useAnimation(animate: boolean, s: ClientState, setUi: (f: (u: UiState) => UiState) => void): void {
  const counting = s.permissions[0] !== undefined && approvalDeadline(s.permissions[0]) !== undefined;
  const spinning = counting || (animate && (s.running || s.turnCalls.some((id) => s.toolCalls[id]?.status === 'in_progress' && !s.toolCalls[id]?.leftPending)));
  useEffect(() => {
    if (!spinning) return;
    setUi((u) => ({ ...u, now: Date.now() }));
    const t = setInterval(() => setUi((u) => ({ ...u, spinnerFrame: u.spinnerFrame + 1, now: Date.now() })), 120);
    return () => clearInterval(t);
  }, [spinning]);
}
