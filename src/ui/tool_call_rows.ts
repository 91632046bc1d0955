// A tool call laid out as rows: status glyph, kind, title, locations; under it (when expanded or
// when it matters) its diffs, embedded terminal output and text content.
import type { ToolCallContent } from '@agentclientprotocol/sdk';
import type { TerminalView } from '../client/state.ts';
import type { ToolCallView, ToolStatus } from '../client/session/tool_call.ts';
import { contentText } from '../client/state.ts';
import { diffModel, diffRows, diffSummaryRow, displayPath } from './diff_rows.ts';
import { clipHead, clipTail, plainRow, truncateRow, wrapLine, wrapText, type Row, type Span } from './text_layout.ts';
import { forTerminal } from '../core/terminal_text.ts';

export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export const STATUS_GLYPH: Record<ToolStatus | 'awaiting', { glyph: string; color: string; label: string }> = {
  pending: { glyph: '○', color: 'muted', label: 'pending' },
  in_progress: { glyph: SPINNER[0], color: 'running', label: 'running' },
  completed: { glyph: '✓', color: 'ok', label: 'done' },
  failed: { glyph: '✗', color: 'error', label: 'failed' },
  cancelled: { glyph: '⊘', color: 'muted', label: 'cancelled' },
  awaiting: { glyph: '?', color: 'warn', label: 'awaiting approval' },
};

export interface ToolRowsOptions {
  cwd: string;
  width: number;
  /** Show diffs and full content rather than the one-line summary. */
  expanded: boolean;
  terminals: TerminalView[];
  awaiting?: boolean;
  selected?: boolean;
  spinnerFrame?: number;
  /** Terminal output rows kept (the last ones). */
  outputLines?: number;
  /** Rows kept for an expanded body. */
  bodyLines?: number;
  /** Show the diffs even while collapsed, in this many rows at most (a change nobody was asked about). */
  diffLines?: number;
}

export function statusGlyph(call: ToolCallView, awaiting: boolean, frame = 0): Span {
  const s = STATUS_GLYPH[awaiting ? 'awaiting' : call.leftPending ? 'cancelled' : call.status];
  const glyph = call.status === 'in_progress' && !awaiting && !call.leftPending ? SPINNER[frame % SPINNER.length] : s.glyph;
  return { text: glyph, color: s.color, bold: true };
}

function diffsOf(call: ToolCallView): Extract<ToolCallContent, { type: 'diff' }>[] {
  return call.content.filter((c): c is Extract<ToolCallContent, { type: 'diff' }> => c.type === 'diff');
}

export function textOf(call: ToolCallView): string {
  return call.content
    .filter((c): c is Extract<ToolCallContent, { type: 'content' }> => c.type === 'content')
    .map((c) => contentText(c.content))
    .join('\n');
}

/** A title as one line: its first line, with `…` when it had more. */
export function titleLine(title: string): string {
  const clean = forTerminal(title).trim();
  const nl = clean.indexOf('\n');
  return nl === -1 ? clean : `${clean.slice(0, nl).trimEnd()} …`;
}

export function headerRow(call: ToolCallView, o: ToolRowsOptions): Row {
  const title = titleLine(call.title);
  const row: Row = [
    { text: o.selected ? '› ' : '  ', color: 'accent', bold: true },
    statusGlyph(call, o.awaiting ?? false, o.spinnerFrame),
    { text: ` ${call.kind} `, color: 'muted' },
    { text: title, bold: true, strike: call.status === 'cancelled' },
  ];
  if (call.leftPending) row.push({ text: '  (left pending by the agent)', color: 'muted' });
  // A path the title already names is not repeated (`Read app.py  app.py`).
  const named = (p: string) => title.includes(p);
  const diffs = diffsOf(call);
  if (diffs.length > 0 && !o.expanded) {
    for (const d of diffs) {
      const m = diffModel(d);
      row.push({ text: '  ' }, ...diffSummaryRow(m, o.cwd, { path: !named(displayPath(m.path, o.cwd)) }));
    }
  } else if (call.locations.length > 0) {
    const locs = call.locations.flatMap((l) => {
      const p = displayPath(l.path, o.cwd);
      if (!named(p)) return [`${p}${l.line ? `:${l.line}` : ''}`];
      return l.line ? [`line ${l.line}`] : [];
    });
    if (locs.length > 0) row.push({ text: `  ${locs.join(', ')}`, color: 'muted' });
  }
  return truncateRow(row, o.width);
}

function indent(rows: Row[], width: number): Row[] {
  return rows.map((r) => truncateRow([{ text: '    ' }, ...r], width));
}

// The last lines of a terminal's output and how many there are in all, computed once per
// output snapshot (the output can be megabytes; frames come far more often than output).
const TAIL_KEEP = 200;
const tails = new WeakMap<TerminalView, { total: number; tail: string[] }>();

function outputTail(t: TerminalView): { total: number; tail: string[] } {
  const hit = tails.get(t);
  if (hit) return hit;
  const text = t.output.endsWith('\n') ? t.output.slice(0, -1) : t.output;
  let total = text === '' ? 0 : 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) total++;
  let at = text.length;
  for (let n = 0; n < TAIL_KEEP && at > 0; n++) {
    const nl = text.lastIndexOf('\n', at - 1);
    at = nl < 0 ? 0 : nl;
    if (nl < 0) break;
  }
  const from = at === 0 ? 0 : at + 1;
  const tail = text === '' ? [] : text.slice(from).split('\n').map((l) => forTerminal(l.replace(/\r$/, '')));
  const out = { total, tail };
  tails.set(t, out);
  return out;
}

function terminalRows(t: TerminalView, o: ToolRowsOptions): Row[] {
  const inner = o.width - 4;
  const max = o.outputLines ?? 8;
  const { total, tail } = outputTail(t);
  // Long lines wrap under the `│ ` rule; only the last `max` rows are kept, and the first kept
  // row says how many output lines are left out (a line cut in the middle counts as shown).
  const lines = tail.slice(-Math.min(tail.length, max));
  const wrapped = lines.map((l) => wrapLine(l, Math.max(8, inner - 2)));
  const rowCount = wrapped.reduce((n, w) => n + w.length, 0);
  const room = total > max || rowCount > max ? max - 1 : max;
  const rows: Row[] = [];
  let shownLines = 0;
  for (let i = wrapped.length - 1; i >= 0 && rows.length < room; i--) {
    const parts = wrapped[i];
    for (let j = parts.length - 1; j >= 0 && rows.length < room; j--) rows.unshift([{ text: '│ ', color: 'muted' }, { text: parts[j] }]);
    shownLines++;
  }
  const hidden = total - shownLines;
  const clipped = hidden > 0 ? [plainRow(`… ${hidden} line${hidden === 1 ? '' : 's'} hidden (Ctrl+O in the tool list for all)`, { dim: true }), ...rows] : rows;
  if (t.truncated) clipped.unshift(plainRow('… earlier output dropped (output limit)', { dim: true }));
  if (t.done) {
    const how = t.signal ? `killed by ${t.signal}` : `exit ${t.exitCode ?? '?'}`;
    clipped.push(plainRow(`└ ${how}`, { color: t.exitCode === 0 ? 'muted' : 'error' }));
  }
  return indent(clipped, o.width);
}

// A call's text content wrapped at a width, once per call snapshot (calls are immutable: every
// update makes a new object), so a large result is not re-wrapped on every frame.
const wrappedCache = new WeakMap<ToolCallView, { width: number; rows: Row[] }>();

function wrappedText(call: ToolCallView, width: number): Row[] {
  const hit = wrappedCache.get(call);
  if (hit && hit.width === width) return hit.rows;
  const text = textOf(call).trim();
  const rows = text === '' ? [] : wrapText(text, width).map((l) => plainRow(l, { color: call.status === 'failed' ? 'error' : undefined }));
  wrappedCache.set(call, { width, rows });
  return rows;
}

/** The rows of a call's diffs: all of them, or the first `max` with a pointer to the rest. */
function diffBody(call: ToolCallView, inner: number, width: number, max?: number): Row[] {
  const rows = indent(diffsOf(call).flatMap((d) => diffRows(diffModel(d), inner)), width);
  return max === undefined ? rows : clipHead(rows, max, ' (Ctrl+T: the transcript shows it all)');
}

/**
 * Everything under the header line. A call that changed files shows its diff (expanded, or a
 * change nobody was asked about); its raw result (the JSON a tool returns) only in the full
 * output (Ctrl+O), unless it failed.
 */
export function bodyRows(call: ToolCallView, o: ToolRowsOptions): Row[] {
  const rows: Row[] = [];
  const inner = o.width - 4;
  const hasDiff = diffsOf(call).length > 0;
  if (o.expanded || (o.diffLines !== undefined && hasDiff)) rows.push(...diffBody(call, inner, o.width, o.expanded ? undefined : o.diffLines));
  for (const t of o.terminals) rows.push(...terminalRows(t, o));
  const showText = (o.expanded && !hasDiff) || call.status === 'failed' || (call.kind === 'execute' && o.terminals.length === 0);
  if (showText) {
    const wrapped = wrappedText(call, inner);
    if (wrapped.length > 0) rows.push(...indent(o.expanded ? wrapped : clipTail(wrapped, o.outputLines ?? 8, ' (Ctrl+O in the tool list for all)'), o.width));
  }
  return o.bodyLines !== undefined ? clipHead(rows, o.bodyLines, ' (Ctrl+O for all)') : rows;
}

export function toolCallRows(call: ToolCallView, o: ToolRowsOptions): Row[] {
  return [headerRow(call, o), ...bodyRows(call, o)];
}

/** The whole, unclipped output of a call (Ctrl+O), as plain text. */
export function fullOutputText(call: ToolCallView, terminals: TerminalView[]): string {
  const parts: string[] = [];
  for (const d of diffsOf(call)) {
    const m = diffModel(d);
    for (const h of m.hunks) {
      parts.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`);
      for (const l of h.lines) parts.push(`${l.type === 'add' ? '+' : l.type === 'del' ? '-' : ' '}${l.text}`);
    }
  }
  for (const t of terminals) parts.push(t.output.replace(/\n$/, ''));
  const text = textOf(call);
  if (text) parts.push(text);
  return parts.join('\n');
}
