// Which view has the keys now, written once: the first view in this list whose condition holds.
// The key dispatcher sends keys to that view and the screen draws its rows, so what is shown is
// what the keys act on. The approval comes first: nothing else may answer for it.
import type { ClientState } from '../../client/state.ts';
import type { Focus } from '../keys.ts';
import { openCompletion, type UiState } from '../ui_state.ts';
import { approvalView } from './approval.ts';
import { completionView } from './completion.ts';
import { composerView } from './composer.ts';
import { elicitationView } from './elicitation.ts';
import { loginPickerView } from './login_picker.ts';
import { reasonView } from './reason.ts';
import { searchView } from './search.ts';
import { rewindPickerView } from './rewind_picker.ts';
import { sessionPickerView } from './session_picker.ts';
import { modelPickerView } from './model_picker.ts';
import { keysOverlayView } from './keys_overlay.ts';
import { toolsView } from './tools.ts';
import { transcriptView } from './transcript.ts';
import { trustView } from './trust.ts';
import type { View } from './view.ts';

type Holds = (s: ClientState, ui: UiState) => boolean;

/** Highest first; the composer, last, always holds. */
const PRECEDENCE: readonly (readonly [View, Holds])[] = [
  [reasonView, (s, ui) => s.permissions.length > 0 && ui.reason !== undefined],
  [approvalView, (s) => s.permissions.length > 0],
  [elicitationView, (s) => s.elicitations.length > 0],
  [trustView, (s) => s.trust !== undefined && !s.trust.dismissed],
  [sessionPickerView, (s) => s.sessionChoices !== undefined],
  [modelPickerView, (s) => s.modelChoices !== undefined],
  [rewindPickerView, (s) => s.rewind !== undefined],
  [transcriptView, (_s, ui) => ui.transcript !== undefined],
  [keysOverlayView, (_s, ui) => ui.keysOverlay !== undefined],
  [loginPickerView, (s) => s.auth !== undefined],
  [searchView, (_s, ui) => ui.search !== undefined],
  [completionView, (s, ui) => (openCompletion(s, ui)?.items.length ?? 0) > 0],
  [toolsView, (_s, ui) => ui.focus === 'tools'],
  [composerView, () => true],
];

/** Every view by its focus (the binding table's foci). */
export const VIEWS: Readonly<Record<Focus, View>> = Object.fromEntries(PRECEDENCE.map(([v]) => [v.focus, v])) as Record<Focus, View>;

/** The view that has the keys and draws the panel now. */
export function focusedView(s: ClientState, ui: UiState): View {
  for (const [view, holds] of PRECEDENCE) if (holds(s, ui)) return view;
  return composerView;
}
