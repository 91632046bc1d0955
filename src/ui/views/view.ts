// What every view of the screen is (one file per focus in this folder): the handlers for its
// bindings in the table of keys.ts, what it does with typed text, pastes and keys the table does
// not name, and its rows. A view owns its keys and its render; which view has the keys now is
// decided once, in focus.ts.
import type { Key } from 'ink';
import type { ClientState, ClientStore } from '../../client/state.ts';
import type { Controller } from '../controller.ts';
import type { Action, Focus } from '../keys.ts';
import type { SavedPrompt } from '../../client/composer/prompt_history.ts';
import type { Row } from '../text_layout.ts';
import type { UiState } from '../ui_state.ts';

export interface ViewContext {
  store: ClientStore;
  controller: Controller;
  /** The client's state when the key (or paste) came. */
  state: ClientState;
  /** The latest UI state: one read can carry several keys, and each must see what the one before did. */
  ui(): UiState;
  setUi(f: (u: UiState) => UiState): void;
  /** Run `fn` after `ms`, in place of what was scheduled under `name`; dropped when the screen goes. */
  schedule(name: string, ms: number, fn: () => void): void;
  /** The project's prompt history on disk (absent: prompts are kept for this session only). */
  prompts?: PromptStore;
  /** Edit text in $VISUAL/$EDITOR with the screen suspended (absent: no terminal to lend). */
  editor?: ExternalEditor;
}

export interface PromptStore {
  append(p: SavedPrompt): void;
}

/** The text as saved in the editor, or why there is none. */
export type ExternalEditor = (text: string) => { text?: string; error?: string };

export interface KeyContext extends ViewContext {
  /** The key's name in the binding table (`return`, `tab`, `y`, …); undefined when it has none. */
  name: string | undefined;
  /** The text Ink read with the key. */
  input: string;
  key: Key;
}

export type KeyHandler = (ctx: KeyContext) => void;
export type KeyHandlers = Partial<Record<Action, KeyHandler>>;

export interface View {
  focus: Focus;
  /** What each binding of this focus does. */
  keys: KeyHandlers;
  /** A key no binding names (text, Backspace, ←/→): only views that take text have this. */
  edit?(ctx: KeyContext): void;
  /**
   * Whether a typed character (not Esc, an arrow, a chord) is typing, asked before it is handled:
   * typing holds an approval's keys for a while. Without this, every typed character is.
   */
  isTyping?(ctx: KeyContext, action: Action | undefined): boolean;
  /** A paste, already cleaned of control characters. */
  paste?(text: string, ctx: ViewContext): void;
  /** The rows under the conversation (the modal, the picker, the composer), in `room` rows at most. */
  panel(s: ClientState, ui: UiState, width: number, room: number): Row[];
  /** Rows in place of the conversation (the tool list); without it the conversation shows. */
  body?(s: ClientState, ui: UiState, width: number, budget: number): Row[];
  /** The view names its own keys now (an approval full screen): the key footer gives it its rows. */
  hidesFooter?(s: ClientState, ui: UiState): boolean;
  /** Rows in place of everything above the status line (the transcript, an approval full screen); undefined: not now. */
  screen?(s: ClientState, ui: UiState, width: number, maxLines: number): Row[] | undefined;
}
