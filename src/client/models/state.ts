// The models' slice of the store: the picker (/model) while open, and the part of the store the
// model requests use (the models offered and in use, the config options they may come from).
import type { SessionConfigOption } from '@agentclientprotocol/sdk';
import type { Notices } from '../session/link.ts';
import type { StoreCell } from '../session/store_cell.ts';
import { modelLabel, type ModelChoice, type ModelState } from './models.ts';

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

/** The models' part of the store (`store.models`); `model` is the session's label for the one in use. */
export class ModelStore {
  constructor(private readonly cell: StoreCell<ModelSlice & { model?: string }>) {}

  /** The models of the session; the status line names the one in use. */
  update(models: ModelState | undefined): void {
    this.cell.set({ models, model: modelLabel(models) ?? this.cell.getState().model });
  }

  /** The model picker: open with the session's models, or closed (undefined). */
  offer(choices: ModelChoices | undefined): void {
    if (choices !== this.cell.getState().modelChoices) this.cell.set({ modelChoices: choices });
  }

  /** A model was switched to: the status line names it at once, without the problem said of the one before. */
  chosen(): void {
    this.cell.set({ modelProblem: undefined, modelPick: undefined });
  }
}

/** What of the store the model requests use. */
export interface ModelShelf extends Notices {
  getState(): ModelSlice & { model?: string };
  readonly models: ModelStore;
  setConfigOptions(configOptions: SessionConfigOption[]): void;
}
