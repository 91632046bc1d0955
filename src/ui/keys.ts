// Every key binding of the screen, as data: the dispatcher matches against this table and the
// footer prints the rows for the current focus, so what is shown is what works.
import type { Key } from 'ink';

export type Focus = 'approval' | 'reason' | 'composer' | 'tools' | 'auth';

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
  | 'auth_pick'
  | 'auth_dismiss'
  | 'log_toggle';

export interface Binding {
  action: Action;
  /** Key names: a character, `digit`, or `[ctrl+|shift+|meta+]` return/escape/tab/up/down/space/backspace. */
  keys: string[];
  /** How the footer writes the keys. */
  label: string;
  help: string;
  focus: Focus[] | 'global';
}

export const BINDINGS: Binding[] = [
  { action: 'allow_once', keys: ['y'], label: 'y', help: 'allow once', focus: ['approval'] },
  { action: 'allow_always', keys: ['a'], label: 'a', help: 'allow always', focus: ['approval'] },
  { action: 'reject', keys: ['n', 'escape'], label: 'n/Esc', help: 'reject', focus: ['approval'] },
  { action: 'reject_reason', keys: ['r'], label: 'r', help: 'reject + reason', focus: ['approval'] },
  { action: 'pick_option', keys: ['digit'], label: '1-9', help: 'pick', focus: ['approval'] },
  { action: 'reason_submit', keys: ['return'], label: 'Enter', help: 'reject with this reason', focus: ['reason'] },
  { action: 'reason_back', keys: ['escape'], label: 'Esc', help: 'back', focus: ['reason'] },
  { action: 'send', keys: ['return'], label: 'Enter', help: 'send', focus: ['composer'] },
  { action: 'newline', keys: ['shift+return', 'meta+return'], label: 'Shift/Alt+Enter', help: 'new line', focus: ['composer'] },
  { action: 'history_prev', keys: ['up'], label: '↑/↓', help: 'earlier prompts', focus: ['composer'] },
  { action: 'history_next', keys: ['down'], label: '', help: '', focus: ['composer'] },
  { action: 'focus_next', keys: ['tab'], label: 'Tab', help: 'tool list', focus: ['composer'] },
  { action: 'focus_next', keys: ['tab', 'escape'], label: 'Tab/Esc', help: 'composer', focus: ['tools'] },
  { action: 'select_prev', keys: ['up', 'k'], label: '↑/↓', help: 'select', focus: ['tools'] },
  { action: 'select_next', keys: ['down', 'j'], label: '', help: '', focus: ['tools'] },
  { action: 'toggle', keys: ['return', 'space'], label: 'Enter/Space', help: 'diff', focus: ['tools'] },
  { action: 'expand_all', keys: ['e'], label: 'e', help: 'expand/collapse all', focus: ['tools'] },
  { action: 'full_output', keys: ['ctrl+o'], label: 'Ctrl+O', help: 'full output', focus: ['tools'] },
  { action: 'auth_pick', keys: ['digit'], label: '1-9', help: 'log in with', focus: ['auth'] },
  { action: 'auth_dismiss', keys: ['escape'], label: 'Esc', help: 'not now', focus: ['auth'] },
  // The footer names it once the agent has written to stderr (screen_rows), so it has no label here.
  { action: 'log_toggle', keys: ['ctrl+l'], label: '', help: 'agent log', focus: 'global' },
  { action: 'cancel', keys: ['ctrl+c'], label: 'Ctrl+C', help: 'cancel (twice quits)', focus: 'global' },
  { action: 'quit', keys: ['ctrl+d'], label: 'Ctrl+D', help: 'quit', focus: 'global' },
];

/** The table's name for a key press as Ink reports it. */
export function keyName(input: string, key: Key): string | undefined {
  const mods = (name: string) => `${key.ctrl ? 'ctrl+' : ''}${key.shift ? 'shift+' : ''}${key.meta ? 'meta+' : ''}${name}`;
  if (key.return) return mods('return');
  if (key.escape) return 'escape';
  if (key.tab) return key.shift ? 'shift+tab' : 'tab';
  if (key.upArrow) return 'up';
  if (key.downArrow) return 'down';
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
