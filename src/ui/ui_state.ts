// What the screen itself remembers, apart from the client's state: the prompt being written, what
// is selected and open, the approval's reason, the quit arming. Every view reads and changes it.
import type { ClientState } from '../client/state.ts';
import { completionAt, type Completion } from './completion.ts';
import type { ComposerState, PasteStore } from './composer.ts';
import type { FormDraft } from './elicitation_rows.ts';
import type { SearchState } from './prompt_search.ts';
import type { TranscriptState } from './transcript_rows.ts';

export interface UiState {
  focus: 'composer' | 'tools';
  composer: ComposerState;
  /** Index into state.turnCalls. */
  selected: number;
  expanded: ReadonlySet<string>;
  /** Set while typing a rejection reason. */
  reason?: string;
  /** A first Ctrl+C was pressed and a second one quits. */
  quitArmed: boolean;
  spinnerFrame: number;
  /** Date.now() at the last animation tick (0: not animated, so no clock is shown) */
  now: number;
  /** Prompts sent in this project (this session's and the saved ones), oldest first, and which one ↑/↓ shows (-1: the draft). */
  past: string[];
  pastIndex: number;
  /** The draft being written when ↑ first recalled a prompt: ↓ past the newest brings it back. */
  draft?: ComposerState;
  /** Earlier states of the prompt, newest last (Ctrl+_ / Ctrl+Z). */
  undo: ComposerState[];
  /** What the last edit was: typing runs and runs of cuts are one undo step, and cuts in a row join for Ctrl+Y. */
  lastEdit?: 'type' | 'kill' | 'other';
  /** The text cut last (Ctrl+W, Ctrl+K, …), for Ctrl+Y. */
  killed: string;
  /** The Ctrl+R search over earlier prompts, while open. */
  search?: SearchState;
  /** Waiting for $EDITOR (Ctrl+G) to close. */
  editing?: boolean;
  /** Long pastes shown as `[pasted N lines]` tokens in the composer, by token. */
  pastes: PasteStore;
  /** A short message above the composer (an unknown mode, nothing to resume), gone at the next key. */
  hint?: string;
  /** The completion item chosen, for the completion whose key it names (a new query starts at 0). */
  completionSel: { key: string; index: number };
  /** The composer text the completion list was closed at (Esc); it opens again once the text changes. */
  dismissed?: string;
  /** The transcript view (Ctrl+T), while open. */
  transcript?: TranscriptState;
  /** The session picked in the session picker. */
  pickerIndex: number;
  /** The model selected in the model picker (-1: the one in use, as it opens). */
  modelIndex: number;
  /** The keys overlay (`?`), while open: how far it is scrolled. */
  keysOverlay?: { scroll: number };
  /** The prompt picked in the rewind picker (0: the newest). */
  rewindIndex: number;
  /** When Esc was pressed on an empty prompt (Date.now()): a second one soon after opens the rewind picker. */
  escAt?: number;
  /** The agent log pane (Ctrl+L) is open. */
  logOpen?: boolean;
  /** What is entered in the form the agent asked for (for the form whose key it names). */
  form?: FormDraft;
  /** The approval on screen (the first waiting request), as this screen shows it. */
  approval?: ApprovalOnScreen;
  /** Date.now() when the last character was typed (or pasted): a burst of typing holds an approval's keys. */
  typedAt: number;
  /** How long an approval's keys are held: after it appears, and after the last typed character. */
  arming: Arming;
  /** A first Ctrl+D was pressed with a draft in the composer, and a second one quits. */
  quitDraftArmed?: boolean;
  /** The terminal's focus, once it has reported it (DECSET 1004); undefined: unknown. */
  focused?: boolean;
}

/** The approval on screen: when it appeared, how far its body is scrolled, whether it is full screen and answerable. */
export interface ApprovalOnScreen {
  /** the permission request's key */
  key: string;
  shownAt: number;
  scroll: number;
  full: boolean;
  /** its keys answer now (shown for long enough, and no typing is arriving): drawn, and re-checked at each key */
  armed: boolean;
}

export interface Arming {
  /** after the approval appears */
  armMs: number;
  /** after the last typed character */
  quietMs: number;
}

/** Long enough that a key typed as the question appears is not an answer to it; short enough not to be in the way. */
export const APPROVAL_ARMING: Arming = { armMs: 500, quietMs: 500 };

export const initialUi: UiState = {
  focus: 'composer',
  composer: { text: '', cursor: 0 },
  selected: 0,
  expanded: new Set(),
  quitArmed: false,
  spinnerFrame: 0,
  now: 0,
  past: [],
  pastIndex: -1,
  undo: [],
  killed: '',
  pastes: new Map(),
  completionSel: { key: '', index: 0 },
  pickerIndex: 0,
  modelIndex: -1,
  rewindIndex: 0,
  typedAt: 0,
  arming: APPROVAL_ARMING,
};

/** The completion list for the composer, unless it was closed at this text. */
export function openCompletion(s: ClientState, ui: UiState): Completion | undefined {
  if (ui.focus !== 'composer' || ui.dismissed === ui.composer.text) return undefined;
  return completionAt(s, ui.composer);
}

export function completionIndex(ui: UiState, c: Completion): number {
  return ui.completionSel.key === c.key ? Math.max(0, Math.min(ui.completionSel.index, c.items.length - 1)) : 0;
}
