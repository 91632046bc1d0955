// Markdown-light for streamed agent text: fenced code blocks, bullet and numbered lists with a
// hanging indent, headings, `inline code` and **bold**. Anything else is plain wrapped text.
import { textWidth, truncateRow, wrapLine, type Row, type Span } from './text_layout.ts';
import { forTerminal } from '../core/terminal_text.ts';

function inlineSpans(text: string, base: Omit<Span, 'text'> = {}): Span[] {
  const spans: Span[] = [];
  const re = /(`[^`]+`|\*\*[^*]+\*\*)/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) spans.push({ text: text.slice(last, m.index), ...base });
    const tok = m[0];
    if (tok.startsWith('`')) spans.push({ text: tok.slice(1, -1), ...base, color: 'code' });
    else spans.push({ text: tok.slice(2, -2), ...base, bold: true });
    last = m.index + tok.length;
  }
  if (last < text.length) spans.push({ text: text.slice(last), ...base });
  return spans;
}

/** Wrap styled spans to `width`, keeping styles; `indent` prefixes continuation rows. */
function wrapSpans(spans: Span[], width: number, first: Span[], indent: string): Row[] {
  const plain = spans.map((s) => s.text).join('');
  const avail = Math.max(1, width - textWidth(indent));
  const lines = wrapLine(plain, avail);
  // Map wrapped plain lines back onto the spans by character offset.
  const rows: Row[] = [];
  let spanIdx = 0;
  let spanOff = 0;
  let offset = 0;
  lines.forEach((line, li) => {
    // Skip whitespace that the wrapper dropped between lines.
    while (offset < plain.length && plain.slice(offset, offset + line.length) !== line && /\s/.test(plain[offset])) {
      offset++;
      spanOff++;
      while (spanIdx < spans.length && spanOff >= spans[spanIdx].text.length) {
        spanOff -= spans[spanIdx].text.length;
        spanIdx++;
      }
    }
    const row: Row = li === 0 ? [...first] : [{ text: indent }];
    let need = line.length;
    while (need > 0 && spanIdx < spans.length) {
      const s = spans[spanIdx];
      const take = Math.min(need, s.text.length - spanOff);
      row.push({ ...s, text: s.text.slice(spanOff, spanOff + take) });
      need -= take;
      spanOff += take;
      offset += take;
      if (spanOff >= s.text.length) {
        spanIdx++;
        spanOff = 0;
      }
    }
    rows.push(row);
  });
  return rows;
}

const FENCE = /^\s*```/;

export function markdownRows(text: string, width: number, base: Omit<Span, 'text'> = {}): Row[] {
  return linesToRows(forTerminal(text).split('\n'), width, base, false);
}

/**
 * The last rows of a long message without laying out all of it: only the last `maxLines` source
 * lines are wrapped (a streamed answer re-renders every chunk). Returns how many lines were
 * left out; whether they leave a code block open is still taken into account.
 */
export function markdownTail(text: string, width: number, maxLines: number, base: Omit<Span, 'text'> = {}): { rows: Row[]; omitted: number } {
  // Find where the last `maxLines` lines start by walking back over newlines: O(tail).
  let at = text.length;
  let n = 0;
  while (n < maxLines && at > 0) {
    at = text.lastIndexOf('\n', at - 1);
    if (at < 0) break;
    n++;
  }
  if (at <= 0) return { rows: markdownRows(text, width, base), omitted: 0 };
  const prefix = text.slice(0, at);
  const fences = prefix.match(/^\s*```/gm)?.length ?? 0;
  let omitted = 1;
  for (let i = prefix.indexOf('\n'); i !== -1; i = prefix.indexOf('\n', i + 1)) omitted++;
  return { rows: linesToRows(forTerminal(text.slice(at + 1)).split('\n'), width, base, fences % 2 === 1), omitted };
}

function linesToRows(lines: string[], width: number, base: Omit<Span, 'text'>, startInCode: boolean): Row[] {
  const rows: Row[] = [];
  let inCode = startInCode;
  for (const raw of lines) {
    const fence = FENCE.test(raw) ? /^\s*```(.*)$/.exec(raw) : null;
    if (fence) {
      inCode = !inCode;
      rows.push([{ text: inCode ? `┌ ${fence[1].trim() || 'code'}` : '└', color: 'muted' }]);
      continue;
    }
    if (inCode) {
      // Code wraps too (nothing is cut); each continuation keeps the block's rule.
      for (const part of wrapLine(raw, Math.max(4, width - 2))) rows.push(truncateRow([{ text: '│ ', color: 'muted' }, { text: part, color: 'code' }], width));
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(raw);
    if (heading) {
      rows.push(...wrapSpans(inlineSpans(heading[2], { ...base, bold: true }), width, [], ''));
      continue;
    }
    const item = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/.exec(raw);
    if (item) {
      const depth = Math.min(6, Math.floor(item[1].length / 2));
      const bullet = /\d/.test(item[2]) ? item[2] : '•';
      const lead = `${'  '.repeat(depth)}${bullet} `;
      rows.push(...wrapSpans(inlineSpans(item[3], base), width, [{ text: lead, ...base }], ' '.repeat(textWidth(lead))));
      continue;
    }
    if (raw.trim() === '') {
      rows.push([]);
      continue;
    }
    rows.push(...wrapSpans(inlineSpans(raw, base), width, [], ''));
  }
  return rows;
}
