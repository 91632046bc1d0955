// The person's shell's slice of the store: the `!line` running now and what the agent is owed.
import type { ShellRunView } from '../session/views.ts';

/** The fields the person's shell adds to the store's state. */
export interface ShellSlice {
  /** The person's own shell line running now (`!line`). */
  shell?: ShellRunView;
  /** What the person ran in their shell since the last prompt, as the agent will read it with the next one. */
  shellContext: string[];
}
