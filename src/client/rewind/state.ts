// The rewind picker's slice of the store (/rewind, /undo, Esc Esc): the prompts to go back to,
// then what going back to one would do.
import type { CheckpointsMeta, RewindMeta } from '../../core/protocol_names.ts';
import type { Notices } from '../session/link.ts';
import type { StoreCell } from '../session/store_cell.ts';

export type RewindView =
  | { step: 'pick'; prompts: CheckpointsMeta['prompts'] }
  | { step: 'preview'; prompts: CheckpointsMeta['prompts']; plan: RewindMeta; busy?: boolean };

/** The fields the rewind adds to the store's state. */
export interface RewindSlice {
  /** The rewind picker, while open. */
  rewind?: RewindView;
}

/** The rewind's part of the store (`store.rewind`). */
export class RewindStore {
  constructor(private readonly cell: StoreCell<RewindSlice>) {}

  /** The rewind picker: open at a step, or closed (undefined). */
  offer(view: RewindView | undefined): void {
    this.cell.set({ rewind: view });
  }
}

/** What of the store the rewind's requests use. */
export interface RewindShelf extends Notices {
  getState(): RewindSlice;
  readonly rewind: RewindStore;
}
