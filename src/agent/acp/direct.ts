// Direct commands: work with no model at all and go through the same gate as model calls.
//   !<line>              run <line> as a local_shell call (`/shell <line>` is the same, for
//                        clients that offer only slash commands)
//   /tool <name> [json]  call any tool with a JSON object of arguments
//   /compact             compact the conversation now (elide old results, summarise the rest)
//   /mission [--envelope E] [agent] <intent>
//                        fire an unattended mission unit from this session (docs/missions.md)
//   /memory              the memory files (AGENTS.md…) the model reads, with their paths
//   /init                ask the model to write an AGENTS.md for the project
//   /help                list these
// Custom commands (.contenox/commands, ~/.contenox/commands) are the session's: prompt.ts.

export type DirectCommand =
  | { kind: 'shell'; command: string }
  | { kind: 'tool'; name: string; args: Record<string, unknown> }
  | { kind: 'help' }
  | { kind: 'compact' }
  /** `/mission`: the words after the flags (the agent, if the first one names one, then the intent) */
  | { kind: 'mission'; envelope?: string; words: string[] }
  | { kind: 'memory' }
  | { kind: 'init' }
  | { kind: 'error'; message: string };

export const DIRECT_HELP = [
  'Direct commands (no model needed; they pass the same policies, envelope and approvals):',
  '  !<command line>          run it with local_shell, e.g. `!git status` (or /shell <command line>)',
  '  /tool <name> [json]      call one tool, e.g. `/tool read_file {"path":"README.md"}`',
  '  /compact                 compact the conversation now: elide old tool results, summarise the older part',
  '  /mission [--envelope E] [agent] <intent>   fire an unattended mission unit; its plan and reports come back here',
  '  /memory                  the memory files (AGENTS.md, …) the model reads with every prompt',
  '  /init                    ask the model to write an AGENTS.md for this project (it asks before writing)',
  '  /help                    this list',
  'Anything else goes to the model.',
].join('\n');

/** The slash commands, as ACP `available_commands_update` lists them (names without the slash). */
export const AVAILABLE_COMMANDS: Array<{ name: string; description: string; input?: { hint: string } }> = [
  { name: 'help', description: 'List the direct commands and the tools' },
  { name: 'tool', description: 'Call one tool directly, without the model', input: { hint: '<name> [json arguments]' } },
  { name: 'compact', description: 'Compact the conversation now: elide old tool results and summarise the older part' },
  { name: 'mission', description: 'Fire an unattended mission unit; its plan and reports come back here, its asks to you', input: { hint: '[--envelope E] [agent] <intent>' } },
  { name: 'memory', description: 'The memory files (AGENTS.md, …) the model reads with every prompt, with their paths' },
  { name: 'init', description: 'Ask the model to write an AGENTS.md for this project (it asks before writing)' },
  // `!` is no slash command: clients that offer only those send `/shell <line>`
  { name: 'shell', description: 'Run a command line with local_shell, same as !<command line>', input: { hint: '<command line>' } },
];

/** Names a custom command may not take. */
export const RESERVED_COMMANDS: readonly string[] = [...AVAILABLE_COMMANDS.map((c) => c.name), '?'];

/** What `/init` asks of the model: a normal write of AGENTS.md, which asks with its diff. */
export const INIT_PROMPT = [
  'Write an AGENTS.md file at the root of this project: the instructions a coding agent (you, in later sessions) should follow here.',
  'First look at the project: its README, its build and test configuration, its layout, and an existing AGENTS.md, CLAUDE.md or GEMINI.md if there is one (improve it rather than start over).',
  'Then write AGENTS.md with write_file: how to build, test and lint (the exact commands), how the code is laid out, the conventions the code follows, and anything a newcomer gets wrong. Keep it short (under 150 lines) and specific to this project; no generic advice.',
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
  if (t === '/compact') return { kind: 'compact' };
  if (/^\/mission(?:\s|$)/.test(t)) return parseMission(t.slice('/mission'.length));
  if (t === '/memory') return { kind: 'memory' };
  if (t === '/init') return { kind: 'init' };
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

/** `[--envelope E | --envelope=E] [agent] <intent>`: flags first, then the words. */
function parseMission(rest: string): DirectCommand {
  const words = rest.trim().split(/\s+/).filter(Boolean);
  let envelope: string | undefined;
  while (words[0]?.startsWith('--')) {
    const flag = words.shift()!;
    const eq = /^--envelope=(.+)$/.exec(flag);
    if (eq) envelope = eq[1];
    else if (flag === '--envelope' && words.length) envelope = words.shift();
    else return { kind: 'error', message: `unknown /mission flag "${flag}": the only flag is --envelope NAME. Usage: /mission [--envelope E] [agent] <intent>.` };
  }
  return { kind: 'mission', ...(envelope ? { envelope } : {}), words };
}
