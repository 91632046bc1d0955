// The model picker (/model): the session's models as the agent offers them (for cxl, what the
// model server lists), the one in use marked `●`, the selected one inverse.
import type { ModelChoices } from '../client/state.ts';
import { plainRow, textWidth, truncateRow, type Row } from './text_layout.ts';

export function modelPickerRows(c: ModelChoices, selected: number, width: number, maxLines: number): Row[] {
  const label = ` pick a model (${c.models.length}) `;
  const rows: Row[] = [[{ text: `──${label}${'─'.repeat(Math.max(0, width - textWidth(label) - 2))}`, color: 'accent', bold: true }]];
  const room = Math.max(1, maxLines - 2);
  const start = Math.max(0, Math.min(selected - Math.floor(room / 2), c.models.length - room));
  c.models.slice(start, start + room).forEach((m, k) => {
    const sel = start + k === selected;
    const inUse = m.id === c.current;
    const extra = `${m.name !== m.id ? ` (${m.name})` : ''}${m.description ? ` · ${m.description}` : ''}${inUse ? '  in use' : ''}`;
    rows.push(
      truncateRow(
        [
          { text: sel ? '› ' : '  ', color: 'accent', bold: true },
          { text: inUse ? '● ' : '  ', color: 'ok' },
          { text: m.id, inverse: sel, bold: sel },
          { text: extra, color: 'muted' },
        ],
        width,
      ),
    );
  });
  if (c.models.length > room) rows.push(plainRow(`  ${selected + 1} of ${c.models.length}`, { dim: true }));
  if (!c.current) rows.push(plainRow('  none is chosen yet: Enter uses the selected one', { dim: true }));
  return rows;
}
