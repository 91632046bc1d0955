// jq_query as the model sees it: one tool, a filter over one document given by path or inline.
import type { JsonSchema, ToolKind } from '../tool.ts';
import { JQ_LIMITS } from './policy.ts';

export const JQ_QUERY = 'jq_query';

export const JQ_TOOL: { name: string; kind: ToolKind; description: string; inputSchema: JsonSchema } = {
  name: JQ_QUERY,
  kind: 'read',
  description: 'Run a jq filter (real jq 1.7) over ONE JSON, JSON Lines or YAML document: a workspace file (path) or inline input. Read-only: `.a = 1` returns a changed copy.',
  inputSchema: {
    type: 'object',
    properties: {
      filter: { type: 'string', description: 'The jq program, e.g. `.tasks[] | select(.handler=="tools") | .id`' },
      path: { type: 'string', description: 'A file in the workspace (relative to its root); not with input' },
      input: { type: ['string', 'object', 'array', 'number', 'boolean'], description: 'The document itself, as JSON or YAML text or a JSON value; not with path. Never paste large tool output here' },
      format: { type: 'string', enum: ['json', 'yaml', 'yml', 'jsonl'], description: 'How to read the document (default: from the file name, else sniffed)' },
      max: { type: 'integer', description: `Most values to return (default ${JQ_LIMITS.defaultValues}, at most ${JQ_LIMITS.maxValues})` },
      deadline_ms: { type: 'integer', description: `Stop the filter after this long (default ${JQ_LIMITS.defaultDeadlineMs}, at most ${JQ_LIMITS.maxDeadlineMs})` },
    },
    required: ['filter'],
    additionalProperties: false,
  },
};
