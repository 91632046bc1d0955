// The agent's plan (each `plan` update replaces it), as a compact checklist.
import type { PlanEntry } from '@agentclientprotocol/sdk';
import { clipHead, plainRow, textWidth, truncateRow, type Row } from './text_layout.ts';

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

/**
 * A finished turn's plan in history: one compact summary, `plan 2/3: ✓ Read · ✓ Sum · ○ Answer`,
 * wrapped to at most three rows (the rest counted).
 */
export function planSummaryRows(entries: PlanEntry[], width: number): Row[] {
  const done = entries.filter((e) => e.status === 'completed').length;
  const glyph = (e: PlanEntry) => (e.status === 'completed' ? '✓' : e.status === 'in_progress' ? '~' : '○');
  const items = entries.map((e) => `${glyph(e)} ${e.content.replace(/\s+/g, ' ')}`);
  const rows: Row[] = [];
  let line = `plan ${done}/${entries.length}:`;
  for (const [i, it] of items.entries()) {
    if (rows.length === 2 && textWidth(`${line} · ${it}`) > width) {
      line += ` · +${items.length - i} more`;
      break;
    }
    if (textWidth(`${line} · ${it}`) > width && line !== '') {
      rows.push([{ text: line, color: 'muted' }]);
      line = `  ${it}`;
    } else line += `${line.endsWith(':') ? ' ' : ' · '}${it}`;
  }
  rows.push([{ text: line, color: 'muted' }]);
  return rows.map((r) => truncateRow(r, width));
}
