// Every key binding of the screen, as data: the dispatcher matches against this table and the
// footer prints the rows for the current focus, so what is shown is what works.
import type { Key } from 'ink';

export type Focus = 'approval' | 'reason' | 'form' | 'composer' | 'completion' | 'tools' | 'transcript' | 'picker' | 'auth';

export type Action =
  | 'allow_once'
  | 'allow_always'
  | 'reject'
  | 'reject_reason'
  | 'pick_option'
  | 'reason_submit'
  | 'reason_back'
  | 'send'
  | 'newline'
  | 'history_prev'
  | 'history_next'
  | 'focus_next'
  | 'select_prev'
  | 'select_next'
  | 'toggle'
  | 'expand_all'
  | 'full_output'
  | 'cancel'
  | 'quit'
  | 'mode_next'
  | 'transcript_open'
  | 'complete_prev'
  | 'complete_next'
  | 'complete_accept'
  | 'complete_close'
  | 'transcript_prev'
  | 'transcript_next'
  | 'transcript_page_up'
  | 'transcript_page_down'
  | 'transcript_toggle'
  | 'transcript_output'
  | 'transcript_close'
  | 'picker_prev'
  | 'picker_next'
  | 'picker_pick'
  | 'picker_close'
  | 'form_next'
  | 'form_prev'
  | 'form_choose_prev'
  | 'form_choose_next'
  | 'form_tick'
  | 'form_send'
  | 'form_decline'
  | 'auth_pick'
  | 'auth_dismiss'
  | 'log_toggle';

export interface Binding {
  action: Action;
  /** Key names: a character, `digit`, or `[ctrl+|shift+|meta+]` return/escape/tab/up/down/pageup/pagedown/space/backspace. */
  keys: string[];
  /** How the footer writes the keys. */
  label: string;
  help: string;
  focus: Focus[] | 'global';
  /** false: the footer leaves it out (it names it itself when it matters); /help still lists it. */
  footer?: boolean;
}

export const BINDINGS: Binding[] = [
  { action: 'allow_once', keys: ['y'], label: 'y', help: 'allow once', focus: ['approval'] },
  { action: 'allow_always', keys: ['a'], label: 'a', help: 'allow always', focus: ['approval'] },
  { action: 'reject', keys: ['n', 'escape'], label: 'n/Esc', help: 'reject', focus: ['approval'] },
  { action: 'reject_reason', keys: ['r'], label: 'r', help: 'reject + reason', focus: ['approval'] },
  { action: 'pick_option', keys: ['digit'], label: '1-9', help: 'pick', focus: ['approval'] },
  { action: 'reason_submit', keys: ['return'], label: 'Enter', help: 'reject with this reason', focus: ['reason'] },
  { action: 'reason_back', keys: ['escape'], label: 'Esc', help: 'back', focus: ['reason'] },
  { action: 'form_next', keys: ['tab', 'down'], label: 'Tab/↓', help: 'next field', focus: ['form'] },
  { action: 'form_prev', keys: ['shift+tab', 'up'], label: 'Shift+Tab/↑', help: 'previous field', focus: ['form'] },
  { action: 'form_choose_prev', keys: ['left'], label: '←/→', help: 'choose', focus: ['form'] },
  { action: 'form_choose_next', keys: ['right'], label: '', help: '', focus: ['form'] },
  { action: 'form_tick', keys: ['space'], label: 'Space', help: 'tick', focus: ['form'] },
  { action: 'form_send', keys: ['return'], label: 'Enter', help: 'send', focus: ['form'] },
  { action: 'form_decline', keys: ['escape'], label: 'Esc', help: 'decline', focus: ['form'] },
  { action: 'complete_prev', keys: ['up'], label: '↑/↓', help: 'choose', focus: ['completion'] },
  { action: 'complete_next', keys: ['down'], label: '', help: '', focus: ['completion'] },
  { action: 'complete_accept', keys: ['tab', 'return'], label: 'Tab/Enter', help: 'complete', focus: ['completion'] },
  { action: 'complete_close', keys: ['escape'], label: 'Esc', help: 'close the list', focus: ['completion'] },
  { action: 'send', keys: ['return'], label: 'Enter', help: 'send', focus: ['composer'] },
  { action: 'newline', keys: ['shift+return', 'meta+return', 'ctrl+j'], label: 'Shift/Alt+Enter', help: 'new line', focus: ['composer', 'completion'] },
  { action: 'history_prev', keys: ['up'], label: '↑/↓', help: 'earlier prompts', focus: ['composer'] },
  { action: 'history_next', keys: ['down'], label: '', help: '', focus: ['composer'] },
  { action: 'focus_next', keys: ['tab'], label: 'Tab', help: 'tool list', focus: ['composer'] },
  { action: 'focus_next', keys: ['tab', 'escape'], label: 'Tab/Esc', help: 'composer', focus: ['tools'] },
  { action: 'select_prev', keys: ['up', 'k'], label: '↑/↓', help: 'select', focus: ['tools'] },
  { action: 'select_next', keys: ['down', 'j'], label: '', help: '', focus: ['tools'] },
  { action: 'toggle', keys: ['return', 'space'], label: 'Enter/Space', help: 'diff', focus: ['tools'] },
  { action: 'expand_all', keys: ['e'], label: 'e', help: 'expand/collapse all', focus: ['tools'] },
  { action: 'full_output', keys: ['ctrl+o'], label: 'Ctrl+O', help: 'full output', focus: ['tools'] },
  { action: 'mode_next', keys: ['shift+tab'], label: 'Shift+Tab', help: 'next mode', focus: ['composer', 'completion', 'tools'] },
  { action: 'transcript_open', keys: ['ctrl+t'], label: 'Ctrl+T', help: 'transcript', focus: ['composer', 'completion', 'tools'] },
  { action: 'transcript_prev', keys: ['up', 'k'], label: '↑/↓', help: 'select', focus: ['transcript'] },
  { action: 'transcript_next', keys: ['down', 'j'], label: '', help: '', focus: ['transcript'] },
  { action: 'transcript_page_up', keys: ['pageup'], label: 'PgUp/PgDn', help: 'page', focus: ['transcript'] },
  { action: 'transcript_page_down', keys: ['pagedown'], label: '', help: '', focus: ['transcript'] },
  { action: 'transcript_toggle', keys: ['return', 'space'], label: 'Enter/Space', help: 'open/close', focus: ['transcript'] },
  { action: 'transcript_output', keys: ['ctrl+o'], label: 'Ctrl+O', help: 'full output', focus: ['transcript'] },
  { action: 'transcript_close', keys: ['escape', 'ctrl+t'], label: 'Esc', help: 'back', focus: ['transcript'] },
  { action: 'picker_prev', keys: ['up', 'k'], label: '↑/↓', help: 'select', focus: ['picker'] },
  { action: 'picker_next', keys: ['down', 'j'], label: '', help: '', focus: ['picker'] },
  { action: 'picker_pick', keys: ['return'], label: 'Enter', help: 'resume it', focus: ['picker'] },
  { action: 'picker_close', keys: ['escape'], label: 'Esc', help: 'cancel', focus: ['picker'] },
  { action: 'auth_pick', keys: ['digit'], label: '1-9', help: 'log in with', focus: ['auth'] },
  { action: 'auth_dismiss', keys: ['escape'], label: 'Esc', help: 'not now', focus: ['auth'] },
  // The footer names it once the agent has written to stderr (screen_rows).
  { action: 'log_toggle', keys: ['ctrl+l'], label: 'Ctrl+L', help: 'agent log (stderr)', focus: 'global', footer: false },
  { action: 'cancel', keys: ['ctrl+c'], label: 'Ctrl+C', help: 'cancel (twice quits)', focus: 'global' },
  { action: 'quit', keys: ['ctrl+d'], label: 'Ctrl+D', help: 'quit', focus: 'global' },
];

/** The table's name for a key press as Ink reports it. */
export function keyName(input: string, key: Key): string | undefined {
  const mods = (name: string) => `${key.ctrl ? 'ctrl+' : ''}${key.shift ? 'shift+' : ''}${key.meta ? 'meta+' : ''}${name}`;
  if (key.return) return mods('return');
  // A lone line feed is Ctrl+J (Enter sends a carriage return).
  if (input === '\n') return 'ctrl+j';
  if (key.escape) return 'escape';
  if (key.tab) return key.shift ? 'shift+tab' : 'tab';
  if (key.upArrow) return 'up';
  if (key.downArrow) return 'down';
  if (key.pageUp) return 'pageup';
  if (key.pageDown) return 'pagedown';
  if (key.leftArrow) return 'left';
  if (key.rightArrow) return 'right';
  if (key.backspace || key.delete) return 'backspace';
  if (key.ctrl && input.length === 1) return `ctrl+${input}`;
  if (input === ' ') return 'space';
  if (input.length === 1 && input >= '1' && input <= '9') return 'digit';
  if (input.length === 1 && !key.meta) return input;
  return undefined;
}

export function bindingsFor(focus: Focus): Binding[] {
  return BINDINGS.filter((b) => b.focus === 'global' || b.focus.includes(focus));
}

export function matchAction(focus: Focus, name: string | undefined): Action | undefined {
  if (name === undefined) return undefined;
  // Focused bindings win over global ones.
  const own = BINDINGS.find((b) => b.focus !== 'global' && b.focus.includes(focus) && b.keys.includes(name));
  if (own) return own.action;
  return BINDINGS.find((b) => b.focus === 'global' && b.keys.includes(name))?.action;
}
