// The rewind picker's slice of the store (/rewind, /undo, Esc Esc): the prompts to go back to,
// then what going back to one would do.
import type { CheckpointsMeta, RewindMeta } from '../../core/protocol_names.ts';
import type { Notices } from '../session/link.ts';

export type RewindView =
  | { step: 'pick'; prompts: CheckpointsMeta['prompts'] }
  | { step: 'preview'; prompts: CheckpointsMeta['prompts']; plan: RewindMeta; busy?: boolean };

/** What of the store the rewind's requests use. */
export interface RewindShelf extends Notices {
  getState(): { rewind?: RewindView };
  offerRewind(view: RewindView | undefined): void;
}
