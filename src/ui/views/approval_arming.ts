// An approval cannot be answered by keys typed before it was shown. Prompts typed while the agent
// works are queued, which invites typing ahead; an approval appearing mid-word would otherwise be
// answered by the next letter (`a` of "and" allowing for the whole session, `n` rejecting), by a
// person who never saw the question. So its keys are held for a moment after it appears and
// while a burst of typing is still arriving (what is typed goes to the prompt's draft); a
// deliberate key after a short pause answers. The approval says while it holds its keys.
import { useEffect } from 'react';
import type { ClientState } from '../../client/state.ts';
import type { UiState } from '../ui_state.ts';

/** Whether the approval queued under `key` takes answers now: shown long enough, and no typing arriving. */
export function approvalArmed(ui: UiState, key: string, now = Date.now()): boolean {
  const a = ui.approval;
  return a !== undefined && a.key === key && now - a.shownAt >= ui.arming.armMs && now - ui.typedAt >= ui.arming.quietMs;
}

/** When the approval on screen will take answers, if nothing is typed meanwhile. */
function armsAt(ui: UiState): number {
  return Math.max((ui.approval?.shownAt ?? 0) + ui.arming.armMs, ui.typedAt + ui.arming.quietMs);
}

/** A character was typed (or pasted) now: an approval on screen holds its keys again for a while. */
export function typed(u: UiState, now = Date.now()): UiState {
  return { ...u, typedAt: now, ...(u.approval?.armed ? { approval: { ...u.approval, armed: false } } : {}) };
}

/**
 * The approval on screen, as the screen shows it: recorded when it is first drawn (an effect runs
 * after the frame is written), scrolled to its top, held; armed (and redrawn so) once it may be
 * answered.
 */
export function useApprovalOnScreen(s: ClientState, ui: UiState, setUi: (f: (u: UiState) => UiState) => void): void {
  const head = s.permissions[0]?.key;
  useEffect(() => {
    setUi((u) => {
      if (head === undefined) return u.approval ? { ...u, approval: undefined } : u;
      if (u.approval?.key === head) return u;
      const now = Date.now();
      const shown = { ...u, approval: { key: head, shownAt: now, scroll: 0, full: false, armed: false } };
      return approvalArmed(shown, head, now) ? { ...shown, approval: { ...shown.approval, armed: true } } : shown;
    });
  }, [head]);
  const a = ui.approval;
  useEffect(() => {
    if (!a || a.armed) return;
    let t: ReturnType<typeof setTimeout> | undefined;
    const check = () =>
      setUi((u) => {
        if (!u.approval || u.approval.key !== a.key || u.approval.armed) return u;
        if (approvalArmed(u, a.key)) return { ...u, approval: { ...u.approval, armed: true } };
        // a timer may fire a little early, and typing may have come since: look again then
        t = setTimeout(check, Math.max(1, armsAt(u) - Date.now()));
        return u;
      });
    t = setTimeout(check, Math.max(0, armsAt(ui) - Date.now()));
    return () => clearTimeout(t);
  }, [a?.key, a?.armed, a?.shownAt, ui.typedAt, ui.arming]);
}
