// The rewind picker's slice of the store (/rewind, /undo, Esc Esc): the prompts to go back to,
// then what going back to one would do.
import type { CheckpointsMeta, RewindMeta } from '../../core/protocol_names.ts';
import type { Notices } from '../session/link.ts';

export type RewindView =
  | { step: 'pick'; prompts: CheckpointsMeta['prompts'] }
  | { step: 'preview'; prompts: CheckpointsMeta['prompts']; plan: RewindMeta; busy?: boolean };

/** The fields the rewind adds to the store's state. */
export interface RewindSlice {
  /** The rewind picker, while open. */
  rewind?: RewindView;
}

/** What of the store the rewind's requests use. */
export interface RewindShelf extends Notices {
  getState(): RewindSlice;
  offerRewind(view: RewindView | undefined): void;
}
