// The form an agent asked for (elicitation/create), laid out as rows: its message, then one row
// per field with its value as typed (a choice shows the one chosen, a multi-select each item
// ticked or not), the field with the keys marked, its description under it, and what to fix.
import type { FieldValue, FormField } from '../client/elicitation/elicitation.ts';
import type { PendingElicitation } from '../client/state.ts';
import { clipHead, plainRow, truncate, truncateRow, wrapText, type Row, type Span } from './text_layout.ts';

/** What the person has entered so far, which field has the keys, and which item of a list. */
export interface FormDraft {
  key: string;
  field: number;
  /** the highlighted item of a multi-select */
  item: number;
  values: Record<string, FieldValue>;
  error?: string;
}

function valueSpans(f: FormField, v: FieldValue | undefined, focused: boolean, item: number): Span[] {
  if (f.kind === 'boolean') return [{ text: v === true ? '[x] yes' : '[ ] no', bold: focused }];
  if (f.kind === 'choice') {
    const i = f.choices.findIndex((c) => c.value === v);
    const shown = i === -1 ? '(none)' : f.choices[i].title;
    return [{ text: focused ? `‹ ${shown} ›` : shown, bold: focused }, { text: `  ${i === -1 ? 0 : i + 1} of ${f.choices.length}`, color: 'muted' }];
  }
  if (f.kind === 'multi') {
    const picked = Array.isArray(v) ? v : [];
    return f.choices.flatMap((c, i) => [{ text: `${picked.includes(c.value) ? '[x]' : '[ ]'} ${c.title}`, bold: focused && i === item, inverse: focused && i === item }, { text: '  ' }]);
  }
  const text = typeof v === 'string' ? v : '';
  return [{ text: text, bold: focused }, ...(focused ? [{ text: '▌', color: 'accent' as const }] : [])];
}

export function elicitationRows(e: PendingElicitation, draft: FormDraft, agent: string, width: number, maxLines: number): Row[] {
  const title = `── ${agent} asks${e.title ? `: ${e.title}` : ''} `;
  const rows: Row[] = [plainRow(truncate(title + '─'.repeat(Math.max(0, width - title.length)), width), { color: 'warn', bold: true })];
  for (const l of wrapText(e.message, width - 2)) rows.push(plainRow(`  ${l}`));
  const labelWidth = Math.min(24, Math.max(...e.fields.map((f) => f.title.length + (f.required ? 2 : 0)), 4) + 2);
  e.fields.forEach((f, i) => {
    const focused = i === draft.field;
    const label = `${f.title}${f.required ? ' *' : ''}`.padEnd(labelWidth);
    rows.push(truncateRow([{ text: focused ? '› ' : '  ', color: 'accent', bold: true }, { text: label, color: focused ? 'accent' : 'muted', bold: focused }, ...valueSpans(f, draft.values[f.name], focused, draft.item)], width));
    if (focused && f.description) for (const l of wrapText(f.description, width - labelWidth - 2)) rows.push(plainRow(`${' '.repeat(labelWidth + 2)}${l}`, { color: 'muted' }));
  });
  if (e.fields.length === 0) rows.push(plainRow('  (nothing to fill in: Enter answers, Esc declines)', { color: 'muted' }));
  if (e.skipped.length) rows.push(plainRow(`  not shown (a kind of field this client does not take): ${e.skipped.join(', ')}`, { color: 'muted' }));
  if (draft.error) for (const l of wrapText(draft.error, width - 4)) rows.push(plainRow(`  ! ${l}`, { color: 'error' }));
  return clipHead(rows, maxLines);
}
