// The models' slice of the store: the picker (/model) while open, and the part of the store the
// model requests use (the models offered and in use, the config options they may come from).
import type { SessionConfigOption } from '@agentclientprotocol/sdk';
import type { Notices } from '../session/link.ts';
import type { ModelChoice, ModelState } from './models.ts';

/** The model picker (/model): the session's models as offered when it opened, and the one in use. */
export interface ModelChoices {
  models: ModelChoice[];
  current?: string;
}

/** The fields the models add to the store's state. */
export interface ModelSlice {
  /** The models the session offers and the one in use, when the agent says. */
  models?: ModelState;
  /** Why no model answers, as the agent found when the session opened (cxl acp's `_meta["cxl/model"]`); gone once one does. */
  modelProblem?: string;
  /** The server answered with models and one is still to be picked (cxl acp's `_meta["cxl/model"].pick`): its list; gone once one is chosen. */
  modelPick?: string[];
  /** The model picker, while open. */
  modelChoices?: ModelChoices;
}

/** What of the store the model requests use. */
export interface ModelShelf extends Notices {
  getState(): ModelSlice & { model?: string };
  setModels(models: ModelState | undefined): void;
  setConfigOptions(configOptions: SessionConfigOption[]): void;
  offerModels(choices: ModelChoices | undefined): void;
  /** a model was chosen: the status line names it at once */
  modelChosen(): void;
}
