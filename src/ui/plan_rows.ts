// The agent's plan (each `plan` update replaces it), as a compact checklist.
import type { PlanEntry } from '@agentclientprotocol/sdk';
import { clipHead, plainRow, truncateRow, type Row } from './text_layout.ts';

const MARK: Record<PlanEntry['status'], { mark: string; color: string }> = {
  completed: { mark: '[x]', color: 'ok' },
  in_progress: { mark: '[~]', color: 'running' },
  pending: { mark: '[ ]', color: 'muted' },
};

export function planRows(entries: PlanEntry[], width: number, maxLines = 8): Row[] {
  if (entries.length === 0) return [];
  const done = entries.filter((e) => e.status === 'completed').length;
  const rows: Row[] = entries.map((e) =>
    truncateRow(
      [
        { text: `  ${MARK[e.status].mark} `, color: MARK[e.status].color },
        { text: e.content, dim: e.status === 'completed', bold: e.status === 'in_progress' },
        ...(e.priority === 'high' ? [{ text: ' !', color: 'warn' }] : []),
      ],
      width,
    ),
  );
  return [plainRow(`Plan ${done}/${entries.length}`, { bold: true }), ...clipHead(rows, Math.max(1, maxLines - 1))];
}
