// The forms' slice of the store: the forms the agent asked for, until answered.
import type { ElicitationSchema } from '@agentclientprotocol/sdk';
import type { StoreCell } from '../session/store_cell.ts';
import { formOf, initialValues, type FieldValue, type FormView } from './elicitation.ts';

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

/** The forms' part of the store (`store.elicitation`). */
export class ElicitationStore {
  constructor(private readonly cell: StoreCell<ElicitationSlice>) {}

  /** elicitation/create (form): the form is shown until `remove`; returns its key. */
  add(sessionId: string, message: string, schema: ElicitationSchema): string {
    const key = this.cell.key('e');
    const form = formOf(message, schema);
    this.cell.set({ elicitations: [...this.cell.getState().elicitations, { key, sessionId, ...form, initial: initialValues(form.fields, schema) }] });
    return key;
  }

  remove(key: string): void {
    this.cell.set({ elicitations: this.cell.getState().elicitations.filter((e) => e.key !== key) });
  }
}
