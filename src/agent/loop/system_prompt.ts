// The system prompt of a session: where the model is, what its tools are for (the one tool
// preference text: local_fs enforces the sandbox, limits and the read-before-write contract; a
// shell `cat` does not), the chain task's own prompt, and the project's instructions (AGENTS.md
// and friends, config/memory.ts), which change when their files do.
import { TOOL_PREFERENCE_ADDENDUM } from '../../config/chain.ts';

export function systemPrompt(cwd: string, extra?: string, memory?: string): string {
  return [
    'You are cxl, a coding agent working in the project at:',
    cwd,
    '',
    'Paths are relative to that directory. Work in small verified steps and say briefly what you did.',
    '',
    TOOL_PREFERENCE_ADDENDUM,
    'A tool result with a "code" field is a refusal or an error: read its message and act on it (re-read, narrow the request, or ask the user).',
    ...(extra ? ['', extra] : []),
    ...(memory ? ['', memory] : []),
  ].join('\n');
}
