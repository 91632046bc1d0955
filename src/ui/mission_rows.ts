// A row about a mission unit this session fired (the agent's `_meta["cxl/mission"]`): fired, a
// plan revision as a checklist, a report by kind, a question it waits on, its verdict. Each is
// printed once into the history, as it arrives.
import type { MissionMeta } from '../core/protocol_names.ts';
import { forTerminal } from '../core/terminal_text.ts';
import { planRows } from './plan_rows.ts';
import { truncateRow, wrapText, type Row } from './text_layout.ts';

const KIND_COLOR: Record<string, string> = { progress: 'muted', finding: 'accent', blocker: 'warn', result: 'ok' };
const STATUS_COLOR: Record<string, string> = { landed: 'ok', derailed: 'error', stuck: 'warn', abandoned: 'warn' };

/** `◆ m-… ` then the text, wrapped under itself. */
function lead(id: string, text: string, width: number, color?: string): Row[] {
  const head = `◆ ${id} `;
  return wrapText(forTerminal(text), Math.max(8, width - head.length)).map((l, i) => [{ text: i === 0 ? head : ' '.repeat(head.length), color: 'accent', bold: i === 0 }, { text: l, ...(color ? { color } : {}) }]);
}

export function missionRows(m: MissionMeta, width: number): Row[] {
  switch (m.event) {
    case 'fired':
      return lead(m.missionId, `fired (agent ${m.agent}, envelope ${m.envelope}): ${m.intent}`, width);
    case 'plan': {
      const entries = m.entries.map((e) => ({ content: forTerminal(e.content), status: e.status, priority: e.priority ?? 'medium' }));
      const [, ...checklist] = planRows(entries, width, 12);
      return [...lead(m.missionId, `plan, revision ${m.revision}: ${entries.filter((e) => e.status === 'completed').length}/${entries.length} done`, width), ...checklist];
    }
    case 'report':
      return [...lead(m.missionId, `[${m.kind}] ${m.summary}`, width, KIND_COLOR[m.kind]), ...(m.refs?.length ? [truncateRow([{ text: `    refs: ${forTerminal(m.refs.join(', '))}`, color: 'muted' }], width)] : [])];
    case 'question':
      return lead(m.missionId, `asks: ${m.summary} (answer: cxl approvals respond ${m.askId} --answer "…")`, width, 'warn');
    case 'finished':
      return lead(m.missionId, `finished ${m.status}${m.reason ? `: ${m.reason}` : ''}`, width, STATUS_COLOR[m.status]);
  }
}
