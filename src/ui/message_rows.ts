// Conversation items other than tool calls, laid out as rows.
import type { HistoryItem, TextKind } from '../client/state.ts';
import type { ToolCallView } from '../client/session/tool_call.ts';
import { forTerminal } from '../core/terminal_text.ts';
import { markdownRows, wrapSpans } from './markdown.ts';
import { planSummaryRows } from './plan_rows.ts';
import { plainRow, textWidth, truncateRow, wrapText, type Row, type Span } from './text_layout.ts';
import { toolCallRows } from './tool_call_rows.ts';
import { lateCallRows, markerRows } from './turn_rows.ts';
import { missionRows } from './mission_rows.ts';
import { sentShellRows, shellRows } from './shell_rows.ts';

/** A message as rows; `soft` (history): long words and code lines are left for the terminal to wrap. */
export function textRows(kind: TextKind, text: string, width: number, soft = false): Row[] {
  if (kind === 'user') {
    const lead = (first: boolean): Span[] => [{ text: first ? '› ' : '  ', color: 'user', bold: true }];
    return forTerminal(text.trimEnd())
      .split('\n')
      .flatMap((line, i) => wrapSpans(line === '' ? [] : [{ text: line, color: 'user' }], width, lead(i === 0), lead(false), soft));
  }
  if (kind === 'thought') {
    return markdownRows(text.trim(), width - 2, { dim: true }, { soft }).map((r) => [{ text: '┊ ', dim: true }, ...r]);
  }
  return markdownRows(text.trim(), width, {}, { soft });
}

export function noticeRows(level: 'info' | 'warn' | 'error', text: string, detail: string[] | undefined, width: number): Row[] {
  const glyph = level === 'error' ? '✗ ' : level === 'warn' ? '! ' : 'i ';
  const color = level === 'error' ? 'error' : level === 'warn' ? 'warn' : 'muted';
  const rows: Row[] = wrapText(text, width - 2).map((l, i) => [{ text: i === 0 ? glyph : '  ', color, bold: true }, { text: l, color }]);
  for (const d of detail ?? []) for (const part of wrapText(d, Math.max(8, width - 4))) rows.push(truncateRow([{ text: '  │ ', color: 'muted' }, { text: part, dim: true }], width));
  return rows;
}

/** A block for the user to read (the /help text): a titled rule, then its lines, wrapped. */
export function infoRows(title: string, lines: string[], width: number): Row[] {
  const head = `── ${title} `;
  return [
    plainRow(`${head}${'─'.repeat(Math.max(0, Math.min(width, 60) - head.length))}`, { color: 'accent', bold: true }),
    ...lines.flatMap((l) => {
      // `  name  what it does`: continuation rows hang under the description
      const m = /^(\s*\S+(?: \S+)?\s{2,})(.*)$/.exec(l);
      if (!m || textWidth(m[1]) > width / 2) return wrapText(l, width).map((x) => plainRow(x));
      return wrapText(m[2], Math.max(8, width - textWidth(m[1]))).map((x, i) => [{ text: i === 0 ? m[1] : ' '.repeat(textWidth(m[1])), color: i === 0 ? 'key' : undefined }, { text: x }]);
    }),
  ];
}

/** Rows of a diff printed into history; the transcript (Ctrl+T) and Ctrl+O show the rest. */
export const HISTORY_DIFF_ROWS = 60;

/** A finished change nobody was asked about: its diff was never on screen. */
function unseenChange(call: ToolCallView): boolean {
  return call.status === 'completed' && !call.asked && call.content.some((c) => c.type === 'diff');
}

export function historyRows(item: HistoryItem, width: number, cwd: string): Row[] {
  switch (item.kind) {
    case 'user':
      // a long paste stays collapsed, as the composer showed it (Ctrl+O prints it whole)
      return textRows(item.kind, item.shown ?? item.text, width, true);
    case 'agent':
    case 'thought':
      return textRows(item.kind, item.text, width, true);
    case 'notice':
      return noticeRows(item.level, item.text, item.detail, width);
    case 'output':
      return [plainRow(`── full output: ${item.title} ──`, { color: 'accent' }), ...wrapText(item.text, width).map((l) => plainRow(l)), plainRow('── end ──', { color: 'accent' })];
    case 'tool':
      if (item.late) return lateCallRows(item.call, item.terminals, width, cwd);
      // a change made unasked (auto_edit, a session allow) was never on screen: its diff is printed
      return toolCallRows(item.call, { cwd, width, expanded: false, terminals: item.terminals, outputLines: 10, ...(unseenChange(item.call) ? { diffLines: HISTORY_DIFF_ROWS } : {}) });
    case 'marker':
      return markerRows(item.text, width);
    case 'info':
      return infoRows(item.title, item.lines, width);
    case 'mission':
      return missionRows(item.meta, width);
    case 'plan':
      return planSummaryRows(item.entries, width);
    case 'shell':
      return item.run ? shellRows(item.run, width) : sentShellRows(item.sent ?? '', width);
  }
}
