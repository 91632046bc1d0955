// The mission tools as the model is offered them: a unit's four (plan, report, ask, finish) and a
// supervisor's three (start, list, answer), with their JSON schemas.
import type { ToolSpec } from '../../../core/tool.ts';

export const MISSION = 'mission';

const spec = (name: string, description: string, properties: Record<string, unknown>, required: string[], kind: ToolSpec['kind'] = 'other'): ToolSpec => ({
  toolset: MISSION,
  name,
  description,
  inputSchema: { type: 'object', properties, required, additionalProperties: false },
  kind,
});

export const UNIT_TOOLS: readonly ToolSpec[] = [
  spec(
    'mission_plan',
    'File your plan as a FULL snapshot (every entry, each with status pending|in_progress|completed). Echo the ids it returns next time; completed work cannot be rewritten, append a correction instead.',
    {
      entries: {
        type: 'array',
        items: {
          type: 'object',
          properties: { id: { type: 'string' }, content: { type: 'string' }, status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] }, priority: { type: 'string', enum: ['high', 'medium', 'low'] } },
          required: ['content', 'status'],
        },
      },
      explanation: { type: 'string', description: 'why the plan changed' },
    },
    ['entries'],
    'think',
  ),
  spec(
    'mission_report',
    'Record real progress, a finding, a blocker, or a result for your operator. A result must name the files it produced in refs (or handover.artifacts); a result naming files that do not exist is filed as progress.',
    {
      kind: { type: 'string', enum: ['progress', 'finding', 'blocker', 'result'] },
      summary: { type: 'string', description: 'one line' },
      detail: { type: 'string' },
      refs: { type: 'array', items: { type: 'string' }, description: 'files, lines or URLs this report is about' },
      handover: {
        type: 'object',
        properties: { outcome: { type: 'string' }, artifacts: { type: 'array', items: { type: 'string' } }, handoverForNext: { type: 'string' }, caveats: { type: 'string' } },
      },
    },
    ['summary'],
  ),
  spec(
    'mission_ask_attention',
    'Ask your operator for a decision you may not make alone, and WAIT: the answer comes back as this tool result. If nobody answers in time, the question is filed as a blocker and you carry on.',
    { summary: { type: 'string', description: 'the question, one line' }, detail: { type: 'string' } },
    ['summary'],
  ),
  spec(
    'mission_finish',
    'End the mission with a verdict, once: landed (the work is done), derailed (it went wrong), stuck (you cannot go on), abandoned.',
    { status: { type: 'string', enum: ['landed', 'derailed', 'stuck', 'abandoned'] }, reason: { type: 'string' } },
    ['status'],
  ),
];

export const START_TOOL: ToolSpec = spec(
  'mission_start',
  'Start an unattended unit on a mission (an intent it can finish alone) and wait for its verdict (bounded); wait=false returns at once with its id. Its plan and reports arrive in this session.',
  {
    intent: { type: 'string' },
    agent: { type: 'string', description: 'a [agents.<name>] of the configuration (default: run)' },
    envelope: { type: 'string', description: 'the envelope the unit runs under, no wider than this session’s: a wider one is refused (default: default_mission_envelope, else this session’s)' },
    wait: { type: 'boolean', description: 'wait for the verdict (default true)' },
  },
  ['intent'],
);

export const SUPERVISOR_TOOLS: readonly ToolSpec[] = [
  spec('mission_list', 'The units this session started: status, latest reports, and the questions they are waiting on you for.', {}, [], 'read'),
  spec(
    'mission_answer',
    'Answer a question one of your units is waiting on (its askId from mission_list).',
    { askId: { type: 'string' }, answer: { type: 'string' } },
    ['askId', 'answer'],
  ),
];
