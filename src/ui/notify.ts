// Telling the person the agent waits for them: a session in a background pane or another window
// otherwise waits silently for an approval, or has finished long ago. When an approval appears or
// a turn ends while the terminal is not focused (or always, where the terminal never says: focus
// reporting is DECSET 1004), cxl rings the bell and sends a desktop notification (OSC 9, and OSC
// 777 for the terminals that read that one); the terminal title always says the state
// (`cxl · waiting for approval`). `notify` and `terminal_title` in agents.toml, or CXL_NOTIFY,
// choose (docs/tui.md).
import { useEffect, useRef } from 'react';
import type { ClientState } from '../client/state.ts';
import { forTerminal } from '../core/terminal_text.ts';
import { approvalDeadline, countdown } from './approval_rows.ts';
import type { UiState } from './ui_state.ts';

export const NOTIFY_MODES = ['auto', 'bell', 'off'] as const;
/** auto: bell and desktop notification; bell: the bell alone; off: neither. */
export type NotifyMode = (typeof NOTIFY_MODES)[number];

export interface NotifySettings {
  mode: NotifyMode;
  /** the terminal title shows the session's state */
  title: boolean;
}

export const DEFAULT_NOTIFY: NotifySettings = { mode: 'auto', title: true };

const BEL = '\u0007';
const OSC = '\u001B]';

/** The settings from agents.toml (`notify`, `terminal_title`), CXL_NOTIFY overriding the mode. */
export function notifySettings(config: { notify?: string; terminal_title?: boolean }, env: Record<string, string | undefined>): NotifySettings {
  const pick = (v: string | undefined) => (NOTIFY_MODES as readonly string[]).includes(v ?? '') ? (v as NotifyMode) : undefined;
  return { mode: pick(env.CXL_NOTIFY) ?? pick(config.notify) ?? DEFAULT_NOTIFY.mode, title: config.terminal_title ?? DEFAULT_NOTIFY.title };
}

/** Writes the bell, the notifications and the title to the terminal. */
export class Notifier {
  #title = '';

  constructor(
    private readonly write: (s: string) => void,
    readonly settings: NotifySettings,
  ) {}

  /** Someone is needed: unless the terminal says it has the focus, ring and notify. */
  alert(message: string, focused: boolean | undefined): void {
    if (this.settings.mode === 'off' || focused === true) return;
    const text = oneLine(message);
    this.write(this.settings.mode === 'auto' ? `${BEL}${OSC}9;${text}${BEL}${OSC}777;notify;cxl;${text}${BEL}` : BEL);
  }

  /** The terminal title: `cxl · <state>`. */
  title(state: string): void {
    const t = `cxl · ${oneLine(state)}`;
    if (!this.settings.title || t === this.#title) return;
    this.#title = t;
    this.write(`${OSC}2;${t}${BEL}`);
  }

  /** The terminal was lent out (Ctrl+G's editor) and its title restored: set ours again. */
  retitle(): void {
    if (this.settings.title && this.#title !== '') this.write(`${OSC}2;${this.#title}${BEL}`);
  }
}

/**
 * When to remind the person of an approval that rejects itself at `deadline`: a minute before it
 * does, or half way when less than two minutes are left; undefined when too little is left to matter.
 */
export function reminderAt(now: number, deadline: number): number | undefined {
  const left = deadline - now;
  if (left < 10_000) return undefined;
  return left >= 120_000 ? deadline - 60_000 : now + left / 2;
}

/** Text for a title or a notification: one line, nothing a terminal would act on, not too long. */
function oneLine(s: string): string {
  const flat = forTerminal(s).replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat;
}

/** The state a title shows. */
function stateOf(s: ClientState): string {
  if (s.permissions.length > 0) return 'waiting for approval';
  if (s.agent.status === 'exited') return 'the agent has exited';
  if (s.cancelling) return 'cancelling';
  if (s.running) return 'working';
  return 'ready';
}

/** Ring and notify when an approval appears or a turn ends; keep the title on the state. */
export function useNotifications(s: ClientState, ui: UiState, notifier: Notifier | undefined): void {
  const head = s.permissions[0];
  const focused = useRef(ui.focused);
  focused.current = ui.focused;
  useEffect(() => {
    if (notifier && head) notifier.alert(`waiting for approval: ${head.call.title}`, focused.current);
  }, [notifier, head?.key]);
  // an approval that rejects itself (an envelope's timeout) calls again before it does
  useEffect(() => {
    const deadline = head ? approvalDeadline(head) : undefined;
    if (!notifier || !head || deadline === undefined) return;
    const at = reminderAt(Date.now(), deadline);
    if (at === undefined) return;
    const t = setTimeout(() => notifier.alert(`approval rejects itself in ${countdown(deadline - Date.now())}: ${head.call.title}`, focused.current), at - Date.now());
    return () => clearTimeout(t);
  }, [notifier, head?.key]);
  const wasRunning = useRef(s.running);
  useEffect(() => {
    if (notifier && wasRunning.current && !s.running && s.permissions.length === 0) notifier.alert('the turn has ended', focused.current);
    wasRunning.current = s.running;
  }, [notifier, s.running]);
  const state = stateOf(s);
  useEffect(() => {
    notifier?.title(state);
  }, [notifier, state]);
}
