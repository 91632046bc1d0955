// The forms' slice of the store: the forms the agent asked for, until answered.
import type { FieldValue, FormView } from './elicitation.ts';

/** A form the agent asked the person to fill in (elicitation/create), until it is answered. */
export interface PendingElicitation extends FormView {
  key: string;
  sessionId: string;
  /** what each field starts with (the schema's defaults) */
  initial: Record<string, FieldValue>;
}

/** The fields the forms add to the store's state. */
export interface ElicitationSlice {
  /** Forms the agent asked for, oldest first; the screen shows the first. */
  elicitations: PendingElicitation[];
}
