// The key help for the current focus, straight from the binding table.
import { bindingsFor, type Focus } from './keys.ts';
import { textWidth, type Row } from './text_layout.ts';

export function footerRows(focus: Focus, width: number, extra: { label: string; help: string }[] = []): Row[] {
  const items = [...extra, ...bindingsFor(focus).filter((b) => b.label !== '' && b.footer !== false)].map((b) => `${b.label} ${b.help}`);
  const rows: Row[] = [];
  let cur: Row = [];
  let w = 0;
  for (const it of items) {
    const sep = w === 0 ? '' : ' · ';
    if (w > 0 && w + textWidth(sep + it) > width) {
      rows.push(cur);
      cur = [];
      w = 0;
    }
    const [label, ...help] = it.split(' ');
    if (w > 0) cur.push({ text: ' · ', color: 'muted' });
    cur.push({ text: label, color: 'key', bold: true }, { text: ` ${help.join(' ')}`, color: 'muted' });
    w += textWidth((w > 0 ? ' · ' : '') + it);
  }
  if (cur.length) rows.push(cur);
  return rows;
}
