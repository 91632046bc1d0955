// The key help for the current focus, straight from the binding table. From 80 columns it wraps
// onto as many rows as it needs; narrower, it is one row of what fits (what the moment adds, such
// as `Esc interrupt`, first), and in the composer it ends with `? keys`, where the rest are.
import { bindingsFor, type Focus } from './keys.ts';
import { textWidth, type Row } from './text_layout.ts';

/** Below this many columns the footer is one row. */
export const ONE_ROW_BELOW = 80;

function spans(items: string[]): Row {
  const row: Row = [];
  for (const it of items) {
    const [label, ...help] = it.split(' ');
    if (row.length) row.push({ text: ' · ', color: 'muted' });
    row.push({ text: label, color: 'key', bold: true }, { text: ` ${help.join(' ')}`, color: 'muted' });
  }
  return row;
}

export function footerRows(focus: Focus, width: number, extra: { label: string; help: string }[] = []): Row[] {
  const bindings = bindingsFor(focus).filter((b) => b.label !== '' && b.footer !== false);
  const items = [...extra, ...bindings].map((b) => `${b.label} ${b.help}`);
  if (width < ONE_ROW_BELOW) {
    // the overlay behind `?` lists every key: the composer's one row always offers it
    const more = bindings.find((b) => b.action === 'keys_help');
    const tail = more ? `${more.label} ${more.help}` : undefined;
    const room = width - (tail ? textWidth(` · ${tail}`) : 0);
    const kept: string[] = [];
    let w = 0;
    for (const it of items) {
      if (it === tail) continue;
      const add = textWidth((kept.length ? ' · ' : '') + it);
      if (w + add > room) continue;
      kept.push(it);
      w += add;
    }
    return [spans(tail ? [...kept, tail] : kept)];
  }
  const rows: Row[] = [];
  let cur: string[] = [];
  let w = 0;
  for (const it of items) {
    const add = textWidth((cur.length ? ' · ' : '') + it);
    if (cur.length && w + add > width) {
      rows.push(spans(cur));
      cur = [];
      w = 0;
    }
    w += textWidth((cur.length ? ' · ' : '') + it);
    cur.push(it);
  }
  if (cur.length) rows.push(spans(cur));
  return rows;
}
