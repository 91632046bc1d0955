// Direct commands: work with no model at all and go through the same gate as model calls.
//   !<line>              run <line> as a local_shell call (`/shell <line>` is the same, for
//                        clients that offer only slash commands)
//   /tool <name> [json]  call any tool with a JSON object of arguments
//   /help                list these

export type DirectCommand =
  | { kind: 'shell'; command: string }
  | { kind: 'tool'; name: string; args: Record<string, unknown> }
  | { kind: 'help' }
  | { kind: 'error'; message: string };

/**
 * The commands as a client lists them (ACP `available_commands_update`; a client sends
 * `/name input`). Other features add theirs here, one entry each.
 */
export const DIRECT_COMMANDS: { name: string; description: string; input?: { hint: string } }[] = [
  { name: 'help', description: 'the direct commands and the tools (no model needed)' },
  { name: 'tool', description: 'call one tool with JSON arguments, e.g. /tool read_file {"path":"README.md"}', input: { hint: '<name> [json]' } },
  { name: 'shell', description: 'run a command line with local_shell, same as !<command>', input: { hint: '<command line>' } },
];

export const DIRECT_HELP = [
  'Direct commands (no model needed; they pass the same policies, envelope and approvals):',
  '  !<command line>          run it with local_shell, e.g. `!git status` (or /shell <command line>)',
  '  /tool <name> [json]      call one tool, e.g. `/tool read_file {"path":"README.md"}`',
  '  /help                    this list',
  'Anything else goes to the model.',
].join('\n');

export function parseDirect(text: string): DirectCommand | undefined {
  const t = text.trim();
  const shell = /^(?:!|\/shell(?:\s|$))([\s\S]*)$/.exec(t);
  if (shell) {
    const command = shell[1].trim();
    if (!command) return { kind: 'error', message: 'Nothing to run: write the command after `!`, e.g. `!ls -la`.' };
    return { kind: 'shell', command };
  }
  if (t === '/help' || t === '/?') return { kind: 'help' };
  const m = /^\/tool(?:\s+(\S+)(?:\s+([\s\S]*))?)?$/.exec(t);
  if (!m) return undefined;
  if (!m[1]) return { kind: 'error', message: 'Usage: /tool <name> [json], e.g. `/tool list_dir {"path":"."}`.' };
  const raw = (m[2] ?? '').trim();
  if (!raw) return { kind: 'tool', name: m[1], args: {} };
  let args: unknown;
  try {
    args = JSON.parse(raw);
  } catch (err) {
    return { kind: 'error', message: `The arguments of /tool ${m[1]} are not valid JSON (${err instanceof Error ? err.message : String(err)}). Pass one JSON object, e.g. {"path":"."}.` };
  }
  if (!args || typeof args !== 'object' || Array.isArray(args)) return { kind: 'error', message: `The arguments of /tool ${m[1]} must be a JSON object, e.g. {"path":"."}.` };
  return { kind: 'tool', name: m[1], args: args as Record<string, unknown> };
}
