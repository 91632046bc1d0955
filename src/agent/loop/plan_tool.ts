// The plan the model keeps for a long task: a todo list it writes with one tool, `update_plan`,
// sent to the client as an ACP `plan` update (the client shows it live and keeps it when the turn
// ends). It touches nothing on the machine, so it is not gated: every envelope offers it.
import type { ToolDefinition } from '../providers/types.ts';

export type PlanStatus = 'pending' | 'in_progress' | 'completed';
export interface PlanItem {
  content: string;
  status: PlanStatus;
  priority: 'high' | 'medium' | 'low';
}

export const PLAN_TOOL_NAME = 'update_plan';

export const PLAN_TOOL: ToolDefinition = {
  name: PLAN_TOOL_NAME,
  description:
    'Keep a short plan for a task of several steps: send the whole list each time (it replaces the last one), ' +
    'with each step pending, in_progress (one at a time) or completed. The user sees it as a checklist. Skip it for a one-step task.',
  parameters: {
    type: 'object',
    properties: {
      entries: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            content: { type: 'string', description: 'the step, in a few words' },
            status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
            priority: { type: 'string', enum: ['high', 'medium', 'low'] },
          },
          required: ['content', 'status'],
        },
      },
    },
    required: ['entries'],
  },
};

const STATUSES = new Set(['pending', 'in_progress', 'completed']);
const PRIORITIES = new Set(['high', 'medium', 'low']);
/** Entries kept, and characters per entry: a plan is a glance, not a document. */
const MAX_ENTRIES = 50;
const MAX_CONTENT = 300;

/** The plan in a call's arguments, or an error message the model can act on. */
export function parsePlan(raw: string | Record<string, unknown>): PlanItem[] | { error: string } {
  let args: unknown = raw;
  if (typeof raw === 'string') {
    try {
      args = JSON.parse(raw || '{}');
    } catch {
      return { error: 'update_plan: the arguments are not JSON; send {"entries":[{"content":"…","status":"pending"}]}.' };
    }
  }
  const entries = (args as { entries?: unknown })?.entries;
  if (!Array.isArray(entries)) return { error: 'update_plan: `entries` must be a list of {content, status}.' };
  const out: PlanItem[] = [];
  for (const [i, e] of entries.slice(0, MAX_ENTRIES).entries()) {
    const x = e as { content?: unknown; status?: unknown; priority?: unknown };
    if (typeof x?.content !== 'string' || x.content.trim() === '') return { error: `update_plan: entry ${i + 1} has no content.` };
    if (!STATUSES.has(String(x.status))) return { error: `update_plan: entry ${i + 1} has status ${JSON.stringify(x.status)}; use pending, in_progress or completed.` };
    out.push({ content: x.content.trim().slice(0, MAX_CONTENT), status: x.status as PlanStatus, priority: PRIORITIES.has(String(x.priority)) ? (x.priority as PlanItem['priority']) : 'medium' });
  }
  return out;
}
