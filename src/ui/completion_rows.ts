// The completion list under the composer: a window of the items around the selection, the
// chosen one marked, matched characters of a path in bold, and how many there are in all.
import type { Completion } from './completion.ts';
import { plainRow, textWidth, truncate, truncateRow, type Row, type Span } from './text_layout.ts';

function highlight(label: string, positions: number[] | undefined, base: Omit<Span, 'text'>): Span[] {
  if (!positions || positions.length === 0) return [{ text: label, ...base }];
  const set = new Set(positions);
  const out: Span[] = [];
  let cur = '';
  let on = false;
  [...label].forEach((ch, i) => {
    const hit = set.has(i);
    if (hit !== on && cur !== '') {
      out.push({ text: cur, ...base, ...(on ? { bold: true, color: 'accent' } : {}) });
      cur = '';
    }
    on = hit;
    cur += ch;
  });
  if (cur !== '') out.push({ text: cur, ...base, ...(on ? { bold: true, color: 'accent' } : {}) });
  return out;
}

export function completionRows(c: Completion, selected: number, width: number, maxLines: number): Row[] {
  if (c.items.length === 0) return c.note ? [plainRow(`  ${c.note}`, { dim: true })] : [];
  const room = Math.max(1, Math.min(maxLines, 8) - 1);
  const start = Math.max(0, Math.min(selected - Math.floor(room / 2), c.items.length - room));
  const shown = c.items.slice(start, start + room);
  const labelW = Math.min(Math.max(...shown.map((i) => textWidth(i.label))), Math.floor(width * 0.6));
  const rows: Row[] = shown.map((item, k) => {
    const i = start + k;
    const sel = i === selected;
    const label = truncate(item.label, labelW);
    const base: Omit<Span, 'text'> = sel ? { inverse: true } : {};
    return truncateRow(
      [
        { text: sel ? '› ' : '  ', color: 'accent', bold: true },
        ...highlight(label, label === item.label ? item.positions : undefined, base),
        { text: ' '.repeat(Math.max(0, labelW - textWidth(label))), ...base },
        ...(item.detail ? [{ text: `  ${item.detail}`, color: 'muted' }] : []),
      ],
      width,
    );
  });
  const more = c.total > shown.length ? `${selected + 1} of ${c.total}${c.total > c.items.length ? ` (best ${c.items.length} shown; type more to narrow)` : ''}` : '';
  if (more) rows.push(plainRow(`  ${more}`, { dim: true }));
  return rows;
}
