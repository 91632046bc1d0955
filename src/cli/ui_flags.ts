// The UI's flags (`cxl` with no subcommand), one table: the UI's parser, its --help, the flags
// section of `cxl --help`, the early agent's reading of the command line (src/cli/early_agent.ts)
// and the built-in agent's command line are all derived from it. A new flag is one row here.
// Imports nothing: src/cli/early_agent.ts reads it under Deno before Deno's Node layer loads.

export interface UiFlag {
  name: string;
  type: 'string' | 'boolean';
  /** may be given more than once: its value is the list */
  multiple?: true;
  /** what its value looks like in the help (`DIR`, `NAME`) */
  value?: string;
  /** its line in the UI's own --help (continuation lines are indented by the help) */
  help: string;
  /** its shorter line in `cxl --help` */
  brief: string;
  /**
   * What the early agent (spawned before the UI loads) does when it meets the flag: `read` it
   * (the agent's command line or directory depends on it, or it changes nothing there), or
   * `defer` to the UI (the UI decides whether and what to spawn).
   */
  early: 'read' | 'defer';
  /** passed on to the built-in agent (`cxl acp`) as the same flag, in this table's order */
  toAgent?: true;
}

export const UI_FLAGS: readonly UiFlag[] = [
  { name: 'agent', type: 'string', value: '"<command line>"', early: 'defer', help: 'any ACP agent on stdio, e.g. --agent "npx @agentclientprotocol/claude-agent-acp"\n(default: the built-in agent, cxl acp)', brief: 'drive any ACP agent instead of the built-in one' },
  { name: 'cwd', type: 'string', value: 'DIR', early: 'read', help: 'the session root (default: the current directory); files and commands the\nagent asks for stay inside it', brief: 'the session root (default: the current directory)' },
  { name: 'add-dir', type: 'string', multiple: true, value: 'DIR', early: 'read', help: "another directory the agent's files and commands may reach, as they reach the\nsession root (repeatable); for an agent that takes additional directories", brief: 'another directory the agent may reach (repeatable)' },
  { name: 'provider', type: 'string', value: 'ollama|openai', early: 'read', toAgent: true, help: "the built-in agent's model provider: ollama (default) or openai (OpenAI-compatible)", brief: "the built-in agent's model provider" },
  { name: 'model', type: 'string', value: 'NAME', early: 'read', toAgent: true, help: 'the model to use', brief: 'the model to use' },
  { name: 'envelope', type: 'string', value: 'NAME', early: 'read', toAgent: true, help: 'the envelope (session mode) to start in', brief: 'the envelope (session mode) to start in' },
  { name: 'continue', type: 'boolean', early: 'read', help: 'resume the newest session of this directory (its history is replayed)', brief: 'resume the newest session of this directory' },
  { name: 'resume', type: 'string', value: '[ID]', early: 'read', help: "pick one of this directory's sessions to resume, or resume the one with this ID", brief: 'pick a session of this directory to resume (or the one with ID)' },
  { name: 'trust-project', type: 'boolean', early: 'read', toAgent: true, help: "the built-in agent applies this folder's own configuration for this run\nwithout recording trust (`cxl trust` records it)", brief: "apply this folder's own configuration for this run" },
  { name: 'connect', type: 'string', value: 'URL', early: 'defer', help: "attach to a standing host (cxl serve) instead: its URL as it printed it; the\ntoken from CXL_SERVE_TOKEN, --token-file FILE, or the host's own file on its machine", brief: 'the UI attached to a standing host (cxl serve); token from\nCXL_SERVE_TOKEN or --token-file FILE' },
  { name: 'token-file', type: 'string', value: 'FILE', early: 'defer', help: "the host's token for --connect, read from this file", brief: "the host's token for --connect" },
];

/** `--resume` takes an optional value: alone (or before another flag) it means the picker. */
export const OPTIONAL_VALUE = 'resume';

/** The parser's options (node:util parseArgs) for the table. */
export function uiParseOptions(): Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> {
  return Object.fromEntries(UI_FLAGS.map((f) => [f.name, { type: f.type, ...(f.multiple ? { multiple: true } : {}) }]));
}

/** `--name VALUE` as the help shows it. */
export function flagUsage(f: UiFlag): string {
  return `--${f.name}${f.value ? ` ${f.value}` : ''}`;
}

/** The flags as a help section: each usage padded to `width`, then its text (continuations aligned under it). */
export function flagLines(text: (f: UiFlag) => string, width: number, indent = '  '): string {
  const pad = ' '.repeat(indent.length + width);
  return UI_FLAGS.map((f) => {
    const usage = flagUsage(f);
    const [first, ...rest] = text(f).split('\n');
    const head = usage.length < width ? `${indent}${usage.padEnd(width)}${first}` : `${indent}${usage}\n${pad}${first}`;
    return [head, ...rest.map((l) => `${pad}${l}`)].join('\n');
  }).join('\n');
}

/** What an unknown flag's error names: every flag of the table. */
export function knownFlags(): string {
  return UI_FLAGS.map((f) => `--${f.name}`).join(', ');
}
