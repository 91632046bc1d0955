// Every key binding of the screen, as data: the dispatcher matches against this table, the footer
// prints the rows for the current focus, and /keys, /help and docs/tui.md's key list are made from
// it, so what is shown is what works. Key names come from key_parse.ts.

export type Focus = 'approval' | 'reason' | 'form' | 'trust' | 'composer' | 'completion' | 'search' | 'tools' | 'transcript' | 'picker' | 'models' | 'rewind' | 'auth' | 'keys';

export type Action =
  | 'allow_once'
  | 'allow_always'
  | 'reject'
  | 'reject_reason'
  | 'pick_option'
  | 'approval_up'
  | 'approval_down'
  | 'approval_page_up'
  | 'approval_page_down'
  | 'approval_full'
  | 'interrupt'
  | 'reason_submit'
  | 'reason_back'
  | 'send'
  | 'newline'
  | 'history_prev'
  | 'history_next'
  | 'line_start'
  | 'line_end'
  | 'char_left'
  | 'char_right'
  | 'word_left'
  | 'word_right'
  | 'delete_back'
  | 'delete_forward'
  | 'delete_or_quit'
  | 'kill_word_back'
  | 'kill_word_forward'
  | 'kill_line_start'
  | 'kill_line_end'
  | 'yank'
  | 'undo'
  | 'clear_draft'
  | 'history_search'
  | 'external_editor'
  | 'keys_help'
  | 'search_older'
  | 'search_newer'
  | 'search_accept'
  | 'search_cancel'
  | 'focus_next'
  | 'select_prev'
  | 'select_next'
  | 'toggle'
  | 'expand_all'
  | 'full_output'
  | 'expand_paste'
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
  | 'model_prev'
  | 'model_next'
  | 'model_pick'
  | 'model_close'
  | 'keys_up'
  | 'keys_down'
  | 'keys_page_up'
  | 'keys_page_down'
  | 'keys_close'
  | 'rewind_prev'
  | 'rewind_next'
  | 'rewind_both'
  | 'rewind_conversation'
  | 'rewind_files'
  | 'rewind_apply'
  | 'rewind_overwrite'
  | 'rewind_close'
  | 'form_next'
  | 'form_prev'
  | 'form_choose_prev'
  | 'form_choose_next'
  | 'form_tick'
  | 'form_send'
  | 'form_decline'
  | 'auth_pick'
  | 'auth_dismiss'
  | 'trust_accept'
  | 'trust_dismiss'
  | 'log_toggle';

export interface Binding {
  action: Action;
  /**
   * Key names (key_parse.ts): a character, `digit`, `space`, or `[ctrl+][shift+][meta+]` and
   * return/escape/tab/up/down/left/right/home/end/pageup/pagedown/backspace/delete or a letter.
   */
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
  // The modal names these on its scroll indicator when its body is taller than its room.
  { action: 'approval_up', keys: ['up'], label: '↑/↓', help: 'scroll', focus: ['approval'], footer: false },
  { action: 'approval_down', keys: ['down'], label: '', help: '', focus: ['approval'] },
  { action: 'approval_page_up', keys: ['pageup'], label: 'PgUp/PgDn/Space', help: 'page', focus: ['approval'], footer: false },
  { action: 'approval_page_down', keys: ['pagedown', 'space'], label: '', help: '', focus: ['approval'] },
  { action: 'approval_full', keys: ['f'], label: 'f', help: 'full screen', focus: ['approval'], footer: false },
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
  // The footer names it while a turn runs (screen_rows).
  { action: 'interrupt', keys: ['escape'], label: 'Esc', help: 'interrupt the turn or ! line (neither: twice on an empty prompt goes back to an earlier prompt)', focus: ['composer'], footer: false },
  { action: 'newline', keys: ['shift+return', 'meta+return', 'ctrl+j'], label: 'Shift/Alt+Enter', help: 'new line', focus: ['composer', 'completion'] },
  { action: 'history_prev', keys: ['up', 'ctrl+p'], label: '↑/↓', help: 'lines, history', focus: ['composer'] },
  { action: 'history_next', keys: ['down', 'ctrl+n'], label: '', help: '', focus: ['composer'] },
  { action: 'history_search', keys: ['ctrl+r'], label: 'Ctrl+R', help: 'search history', focus: ['composer', 'completion'] },
  { action: 'external_editor', keys: ['ctrl+g'], label: 'Ctrl+G', help: 'edit in $EDITOR', focus: ['composer', 'completion'], footer: false },
  { action: 'line_start', keys: ['home', 'ctrl+a'], label: 'Home/Ctrl+A', help: 'start of the line', focus: ['composer', 'completion'], footer: false },
  { action: 'line_end', keys: ['end', 'ctrl+e'], label: 'End/Ctrl+E', help: 'end of the line', focus: ['composer', 'completion'], footer: false },
  { action: 'char_left', keys: ['left', 'ctrl+b'], label: '←/Ctrl+B', help: 'a character back', focus: ['composer', 'completion'], footer: false },
  { action: 'char_right', keys: ['right', 'ctrl+f'], label: '→/Ctrl+F', help: 'a character forward', focus: ['composer', 'completion'], footer: false },
  { action: 'word_left', keys: ['meta+b', 'ctrl+left', 'meta+left'], label: 'Alt+B/Ctrl+←', help: 'a word back', focus: ['composer', 'completion'], footer: false },
  { action: 'word_right', keys: ['meta+f', 'ctrl+right', 'meta+right'], label: 'Alt+F/Ctrl+→', help: 'a word forward', focus: ['composer', 'completion'], footer: false },
  { action: 'delete_back', keys: ['backspace'], label: 'Backspace', help: 'delete the character before', focus: ['composer', 'completion'], footer: false },
  { action: 'delete_forward', keys: ['delete'], label: 'Delete', help: 'delete the character under the cursor', focus: ['composer', 'completion'], footer: false },
  { action: 'delete_or_quit', keys: ['ctrl+d'], label: 'Ctrl+D', help: 'delete forward (empty prompt: quit)', focus: ['composer', 'completion'], footer: false },
  { action: 'kill_word_back', keys: ['ctrl+w', 'meta+backspace'], label: 'Ctrl+W/Alt+Backspace', help: 'cut the word before', focus: ['composer', 'completion'], footer: false },
  { action: 'kill_word_forward', keys: ['meta+d', 'ctrl+delete'], label: 'Alt+D', help: 'cut the word after', focus: ['composer', 'completion'], footer: false },
  { action: 'kill_line_start', keys: ['ctrl+u'], label: 'Ctrl+U', help: 'cut to the start of the line', focus: ['composer', 'completion'], footer: false },
  { action: 'kill_line_end', keys: ['ctrl+k'], label: 'Ctrl+K', help: 'cut to the end of the line', focus: ['composer', 'completion'], footer: false },
  { action: 'yank', keys: ['ctrl+y'], label: 'Ctrl+Y', help: 'paste what was cut last', focus: ['composer', 'completion'], footer: false },
  { action: 'undo', keys: ['ctrl+_', 'ctrl+z'], label: 'Ctrl+_/Ctrl+Z', help: 'undo', focus: ['composer', 'completion'], footer: false },
  { action: 'clear_draft', keys: ['ctrl+c'], label: 'Ctrl+C', help: 'clear the prompt (empty: cancel the turn)', focus: ['composer', 'completion'], footer: false },
  { action: 'expand_paste', keys: ['ctrl+o'], label: 'Ctrl+O', help: 'print the last pasted prompt in full', focus: ['composer'], footer: false },
  { action: 'keys_help', keys: ['?'], label: '?', help: 'keys', focus: ['composer', 'tools'] },
  { action: 'focus_next', keys: ['tab'], label: 'Tab', help: 'tool list', focus: ['composer'] },
  { action: 'search_older', keys: ['ctrl+r', 'up'], label: 'Ctrl+R/↑', help: 'older match', focus: ['search'] },
  { action: 'search_newer', keys: ['ctrl+s', 'down'], label: 'Ctrl+S/↓', help: 'newer match', focus: ['search'] },
  { action: 'search_accept', keys: ['return', 'tab'], label: 'Enter', help: 'edit this prompt', focus: ['search'] },
  { action: 'search_cancel', keys: ['escape', 'ctrl+g', 'ctrl+c'], label: 'Esc', help: 'back to your draft', focus: ['search'] },
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
  { action: 'model_prev', keys: ['up', 'k'], label: '↑/↓', help: 'select', focus: ['models'] },
  { action: 'model_next', keys: ['down', 'j'], label: '', help: '', focus: ['models'] },
  { action: 'model_pick', keys: ['return'], label: 'Enter', help: 'use this model', focus: ['models'] },
  { action: 'model_close', keys: ['escape'], label: 'Esc', help: 'keep the model', focus: ['models'] },
  { action: 'keys_up', keys: ['up', 'k'], label: '↑/↓', help: 'scroll', focus: ['keys'] },
  { action: 'keys_down', keys: ['down', 'j'], label: '', help: '', focus: ['keys'] },
  { action: 'keys_page_up', keys: ['pageup'], label: 'PgUp/PgDn', help: 'page', focus: ['keys'] },
  { action: 'keys_page_down', keys: ['pagedown', 'space'], label: '', help: '', focus: ['keys'] },
  { action: 'keys_close', keys: ['escape', '?', 'q', 'return'], label: 'Esc/?', help: 'close', focus: ['keys'] },
  { action: 'rewind_prev', keys: ['up', 'k'], label: '↑/↓', help: 'select a prompt', focus: ['rewind'] },
  { action: 'rewind_next', keys: ['down', 'j'], label: '', help: '', focus: ['rewind'] },
  { action: 'rewind_both', keys: ['return'], label: 'Enter', help: 'files and conversation', focus: ['rewind'] },
  { action: 'rewind_conversation', keys: ['c'], label: 'c', help: 'conversation only', focus: ['rewind'] },
  { action: 'rewind_files', keys: ['f'], label: 'f', help: 'files only', focus: ['rewind'] },
  { action: 'rewind_apply', keys: ['y'], label: 'y', help: 'go back (shown diff)', focus: ['rewind'] },
  { action: 'rewind_overwrite', keys: ['o'], label: 'o', help: 'go back, overwriting files changed since', focus: ['rewind'] },
  { action: 'rewind_close', keys: ['escape'], label: 'Esc', help: 'back', focus: ['rewind'] },
  { action: 'auth_pick', keys: ['digit'], label: '1-9', help: 'log in with', focus: ['auth'] },
  { action: 'auth_dismiss', keys: ['escape'], label: 'Esc', help: 'not now', focus: ['auth'] },
  { action: 'trust_accept', keys: ['t'], label: 't', help: 'trust this folder', focus: ['trust'] },
  { action: 'trust_dismiss', keys: ['escape', 'n'], label: 'n/Esc', help: 'not now', focus: ['trust'] },
  // The footer names it once the agent has written to stderr (screen_rows).
  { action: 'log_toggle', keys: ['ctrl+l'], label: 'Ctrl+L', help: 'agent log (stderr)', focus: 'global', footer: false },
  { action: 'cancel', keys: ['ctrl+c'], label: 'Ctrl+C', help: 'cancel (twice quits)', focus: 'global' },
  { action: 'quit', keys: ['ctrl+d'], label: 'Ctrl+D', help: 'quit', focus: 'global' },
];

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
