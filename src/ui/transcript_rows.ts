// The transcript view (Ctrl+T): every tool call of the session, earlier turns included, under the
// prompt that led to it; one is selected and any can be opened to its diff and output. Only the
// window around the selection is laid out, so a session of thousands of calls costs a screenful.
import type { ClientState, HistoryItem, LiveItem } from '../client/state.ts';
import { clipHead, plainRow, textWidth, truncate, type Row } from './text_layout.ts';
import { toolCallRows } from './tool_call_rows.ts';

export type TranscriptEntry = { kind: 'prompt'; text: string } | { kind: 'call'; id: string };

export interface TranscriptState {
  /** Index into the session's calls (not the entries). */
  selected: number;
  expanded: ReadonlySet<string>;
}

let memo: { history: HistoryItem[]; live: LiveItem[]; entries: TranscriptEntry[]; calls: string[] } | undefined;

/** The session's prompts and tool calls in order, from history (printed) and the live tail. */
export function transcriptEntries(s: ClientState): { entries: TranscriptEntry[]; calls: string[] } {
  if (memo && memo.history === s.history && memo.live === s.live) return memo;
  const entries: TranscriptEntry[] = [];
  const calls: string[] = [];
  const seen = new Set<string>();
  const add = (id: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    entries.push({ kind: 'call', id });
    calls.push(id);
  };
  for (const h of s.history) {
    if (h.kind === 'user') entries.push({ kind: 'prompt', text: h.text });
    else if (h.kind === 'tool') add(h.call.id);
  }
  for (const l of s.live) {
    if (l.kind === 'user') entries.push({ kind: 'prompt', text: l.text });
    else if (l.kind === 'tool') add(l.id);
  }
  memo = { history: s.history, live: s.live, entries, calls };
  return memo;
}

function callOf(s: ClientState, id: string) {
  const live = s.toolCalls[id];
  if (live) return live;
  // a reset store keeps only history's snapshot
  for (const h of s.history) if (h.kind === 'tool' && h.call.id === id) return h.call;
  return undefined;
}

function terminalsOf(s: ClientState, id: string) {
  const call = s.toolCalls[id];
  if (!call) return [];
  return call.content.flatMap((c) => (c.type === 'terminal' && s.terminals[c.terminalId] ? [s.terminals[c.terminalId]] : []));
}

export function transcriptRows(s: ClientState, t: TranscriptState, width: number, maxLines: number): Row[] {
  const { entries, calls } = transcriptEntries(s);
  const prompts = entries.length - calls.length;
  const label = ` transcript · ${calls.length} tool call${calls.length === 1 ? '' : 's'} · ${prompts} prompt${prompts === 1 ? '' : 's'} `;
  const head: Row = [{ text: `──${label}${'─'.repeat(Math.max(0, width - textWidth(label) - 2))}`, color: 'accent', bold: true }];
  if (calls.length === 0) return [head, plainRow('  no tool calls in this session yet', { dim: true })];
  const room = Math.max(3, maxLines - 1);
  const sel = Math.max(0, Math.min(t.selected, calls.length - 1));
  const selId = calls[sel];
  const selEntry = entries.findIndex((e) => e.kind === 'call' && e.id === selId);
  // start a third of a screen above the selection, on whole entries
  let start = selEntry;
  let above = 0;
  while (start > 0 && above < Math.floor(room / 3)) {
    start--;
    above++;
  }
  const rows: Row[] = [];
  if (start > 0) rows.push(plainRow(`… ${start} earlier entr${start === 1 ? 'y' : 'ies'} (↑)`, { dim: true }));
  let i = start;
  for (; i < entries.length && rows.length < room; i++) {
    const e = entries[i];
    if (e.kind === 'prompt') {
      rows.push([{ text: '› ', color: 'user', bold: true }, { text: truncate(e.text.split('\n')[0], width - 2), color: 'user' }]);
      continue;
    }
    const call = callOf(s, e.id);
    if (!call) continue;
    const selected = e.id === selId;
    const expanded = t.expanded.has(e.id);
    const r = toolCallRows(call, { cwd: s.cwd, width, expanded, terminals: terminalsOf(s, e.id), selected, outputLines: 40 });
    if (!expanded) {
      rows.push(r[0]);
      continue;
    }
    // an open call gets what is left of the screen; Ctrl+O prints all of it
    const left = room - rows.length - (i < entries.length - 1 ? 1 : 0);
    rows.push(...clipHead(r, Math.max(2, left), ' (Ctrl+O prints all)'));
  }
  const after = entries.length - i;
  const out = rows.slice(0, room);
  if (after > 0) out.push(plainRow(`… ${after} more entr${after === 1 ? 'y' : 'ies'} (↓)`, { dim: true }));
  return [head, ...out];
}

/** The selected call's id, for Ctrl+O and Enter. */
export function selectedCall(s: ClientState, t: TranscriptState): string | undefined {
  const { calls } = transcriptEntries(s);
  return calls[Math.max(0, Math.min(t.selected, calls.length - 1))];
}
