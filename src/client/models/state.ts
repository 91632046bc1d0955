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

/** What of the store the model requests use. */
export interface ModelShelf extends Notices {
  getState(): { models?: ModelState; model?: string };
  setModels(models: ModelState | undefined): void;
  setConfigOptions(configOptions: SessionConfigOption[]): void;
  offerModels(choices: ModelChoices | undefined): void;
  /** a model was chosen: the status line names it at once */
  modelChosen(): void;
}
