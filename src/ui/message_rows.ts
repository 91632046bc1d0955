// Conversation items other than tool calls, laid out as rows.
import type { HistoryItem, TextKind } from '../client/state.ts';
import { markdownRows } from './markdown.ts';
import { plainRow, truncateRow, wrapText, type Row } from './text_layout.ts';
import { toolCallRows } from './tool_call_rows.ts';
import { lateCallRows, markerRows } from './turn_rows.ts';

export function textRows(kind: TextKind, text: string, width: number): Row[] {
  if (kind === 'user') {
    return wrapText(text.trimEnd(), width - 2).map((l, i) => [{ text: i === 0 ? '› ' : '  ', color: 'user', bold: true }, { text: l, color: 'user' }]);
  }
  if (kind === 'thought') {
    return markdownRows(text.trim(), width - 2, { dim: true }).map((r) => [{ text: '┊ ', dim: true }, ...r]);
  }
  return markdownRows(text.trim(), width);
}

export function noticeRows(level: 'info' | 'warn' | 'error', text: string, detail: string[] | undefined, width: number): Row[] {
  const glyph = level === 'error' ? '✗ ' : level === 'warn' ? '! ' : 'i ';
  const color = level === 'error' ? 'error' : level === 'warn' ? 'warn' : 'muted';
  const rows: Row[] = wrapText(text, width - 2).map((l, i) => [{ text: i === 0 ? glyph : '  ', color, bold: true }, { text: l, color }]);
  for (const d of detail ?? []) rows.push(truncateRow([{ text: '  │ ', color: 'muted' }, { text: d, dim: true }], width));
  return rows;
}

export function historyRows(item: HistoryItem, width: number, cwd: string): Row[] {
  switch (item.kind) {
    case 'user':
    case 'agent':
    case 'thought':
      return textRows(item.kind, item.text, width);
    case 'notice':
      return noticeRows(item.level, item.text, item.detail, width);
    case 'output':
      return [plainRow(`── full output: ${item.title} ──`, { color: 'accent' }), ...wrapText(item.text, width).map((l) => plainRow(l)), plainRow('── end ──', { color: 'accent' })];
    case 'tool':
      if (item.late) return lateCallRows(item.call, item.terminals, width, cwd);
      return toolCallRows(item.call, { cwd, width, expanded: false, terminals: item.terminals, outputLines: 10 });
    case 'marker':
      return markerRows(item.text, width);
  }
}
