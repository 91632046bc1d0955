// The agent log pane (Ctrl+L): the agent's stderr while it runs, newest at the bottom, long lines
// wrapped rather than cut, colour codes removed (codex-acp logs in colour). Only the lines that
// can be on screen are laid out.
import type { ClientState } from '../client/state.ts';
import { plainRow, truncate, wrapLine, type Row } from './text_layout.ts';
import { forTerminal } from '../core/terminal_text.ts';

export function agentLogRows(s: ClientState, width: number, maxLines: number): Row[] {
  const title = `── agent log: stderr of ${s.agent.name ?? s.agent.label}${s.agentLog.length ? ` (last ${s.agentLog.length} lines)` : ''} · Ctrl+L closes `;
  const head = plainRow(truncate(title + '─'.repeat(Math.max(0, width - title.length)), width), { color: 'accent' });
  if (s.agentLog.length === 0) return [head, plainRow('  (nothing on stderr yet)', { dim: true })];
  const room = Math.max(1, maxLines - 1);
  const rows: Row[] = [];
  // From the newest line back until the pane is full.
  for (let i = s.agentLog.length - 1; i >= 0 && rows.length < room; i--) {
    const wrapped = wrapLine(forTerminal(s.agentLog[i].replace(/\t/g, '  ')), Math.max(10, width - 2)).map((l, j) => [{ text: j === 0 ? '│ ' : '┆ ', color: 'muted' }, { text: l }] as Row);
    rows.unshift(...wrapped);
  }
  return [head, ...rows.slice(-room)];
}
