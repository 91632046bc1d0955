// The slash-command registry: the client's own commands and the agent's advertised ones
// (`available_commands_update`), in one list for the completion popup, /help and the composer.
// A client command runs here; anything else starting with `/` is sent to the agent as typed, and
// `//name` sends `/name` to the agent when a client command has the same name.
import { currentLabel } from '../client/config_options/config_options.ts';
import type { ClientState, ClientStore } from '../client/state.ts';
import { META_COMMAND_SOURCE } from '../core/protocol_names.ts';
import type { Controller } from './controller.ts';
import { keysHelp } from './keys_help.ts';
import { chooseTheme, colorEnabled, parseThemeSetting, themeName } from './theme.ts';

export interface SlashContext {
  state: ClientState;
  store: ClientStore;
  controller: Controller;
  /** A short message above the composer, gone at the next key. */
  hint(text: string): void;
  /** The prompt in $EDITOR (/edit). */
  editor?(): void;
  /** The keys overlay (/keys, as `?`). */
  keys?(): void;
}

export interface ArgChoice {
  value: string;
  detail?: string;
}

export interface SlashCommand {
  name: string;
  /** How the argument is written in help: `NAME`, `[ID]`. */
  args?: string;
  /** The argument is required: completing the name waits for it instead of running. */
  needsArg?: boolean;
  description: string;
  run(ctx: SlashContext, arg: string): void;
  /** Completions for the argument typed so far. */
  complete?(state: ClientState, partial: string): ArgChoice[];
}

function unavailable(ctx: SlashContext, what: string): void {
  ctx.hint(`${what} needs a running agent.`);
}

/** The client's own commands. Other features add theirs here (one entry each). */
export const CLIENT_COMMANDS: SlashCommand[] = [
  {
    name: 'help',
    description: 'the commands and keys',
    run: (ctx) => ctx.store.info('help', helpLines(ctx.state)),
  },
  {
    name: 'mode',
    args: 'NAME',
    description: 'switch the session mode (Shift+Tab cycles)',
    run: (ctx, arg) => {
      const { modes, mode } = ctx.state;
      if (modes.length === 0) return ctx.hint('This agent offers no modes.');
      const list = modes.map((m) => (m.id === mode ? `${m.id} (current)` : m.id)).join(', ');
      if (arg === '') return ctx.hint(`Modes: ${list}. Switch with /mode NAME.`);
      const want = arg.toLowerCase();
      const hit = modes.find((m) => m.id.toLowerCase() === want) ?? modes.find((m) => m.name.toLowerCase() === want);
      if (!hit) return ctx.hint(`No mode \`${arg}\`. Modes: ${list}.`);
      const config = ctx.controller.config;
      if (!config) return unavailable(ctx, 'Switching modes');
      // confirmed in the history once the agent has switched (a refusal is reported by the client)
      void Promise.resolve(config.setMode(hit.id)).then(() => {
        if (ctx.store.getState().mode === hit.id) ctx.store.notice('info', `Mode: ${hit.name}${hit.description ? ` (${hit.description})` : ''}.`);
      });
    },
    complete: (state, partial) =>
      state.modes
        .filter((m) => m.id.toLowerCase().startsWith(partial.toLowerCase()) || m.name.toLowerCase().startsWith(partial.toLowerCase()))
        .map((m) => ({ value: m.id, detail: [m.id === state.mode ? 'current' : '', m.description ?? ''].filter(Boolean).join(' · ') })),
  },
  {
    name: 'model',
    args: '[NAME]',
    description: "pick one of the agent's models (or name it) for this session",
    run: (ctx, arg) => {
      if (ctx.controller.models) return void ctx.controller.models.model(arg);
      const m = ctx.state.model;
      ctx.hint(m ? `Model: ${m}. This agent's model is set when it starts (--model NAME).` : 'This agent does not say which model it uses.');
    },
    complete: (state, partial) =>
      (state.models?.available ?? [])
        .filter((m) => m.id.toLowerCase().startsWith(partial.toLowerCase()) || m.name.toLowerCase().startsWith(partial.toLowerCase()))
        .map((m) => ({ value: m.id, detail: [m.id === state.models?.current ? 'in use' : '', m.name !== m.id ? m.name : ''].filter(Boolean).join(' · ') })),
  },
  {
    name: 'config',
    args: '[ID]',
    description: "the agent's config options (effort, thought level, …); /config ID VALUE sets one",
    run: (ctx, arg) => (ctx.controller.config ? ctx.controller.config.config(arg) : unavailable(ctx, 'Config options')),
    complete: (state, partial) =>
      state.configOptions
        .filter((o) => o.id.toLowerCase().startsWith(partial.toLowerCase()))
        .map((o) => ({ value: o.id, detail: `${o.name}: ${currentLabel(o)}` })),
  },
  {
    name: 'trust',
    description: "trust this folder's own configuration (asks, after showing what it changes)",
    run: (ctx) => (ctx.controller.trust ? ctx.controller.trust.offer() : unavailable(ctx, 'Trusting a folder')),
  },
  {
    name: 'login',
    description: "the agent's login methods (when it asks for a login)",
    run: (ctx) => (ctx.controller.login ? ctx.controller.login.login() : unavailable(ctx, 'Logging in')),
  },
  {
    name: 'clear',
    description: 'start a new session (this one stays resumable)',
    run: (ctx) => (ctx.controller.newSession ? ctx.controller.newSession() : unavailable(ctx, 'A new session')),
  },
  {
    name: 'resume',
    args: '[ID]',
    description: "pick one of this directory's sessions (or give its id) and continue it",
    run: (ctx, arg) => {
      if (arg !== '') return ctx.controller.loadSession ? ctx.controller.loadSession(arg) : unavailable(ctx, 'Resuming');
      return ctx.controller.listSessions ? ctx.controller.listSessions() : unavailable(ctx, 'Resuming');
    },
  },
  {
    name: 'rewind',
    description: 'go back to before an earlier prompt: its files, the conversation, or both (Esc Esc)',
    run: (ctx) => (ctx.controller.rewind ? void ctx.controller.rewind.rewind() : unavailable(ctx, 'Going back')),
  },
  {
    name: 'undo',
    description: 'go back to before the last prompt (its files and the conversation), after showing the diff',
    run: (ctx) => (ctx.controller.rewind ? void ctx.controller.rewind.undo() : unavailable(ctx, 'Undo')),
  },
  {
    name: 'fork',
    description: "start a new session with this one's history (this one stays as it is)",
    run: (ctx) => (ctx.controller.fork ? void ctx.controller.fork.fork() : unavailable(ctx, 'Forking')),
  },
  {
    name: 'keys',
    description: 'every key, by what has the focus (? on an empty prompt)',
    run: (ctx) => (ctx.keys ? ctx.keys() : ctx.store.info('keys', keysHelp())),
  },
  {
    name: 'edit',
    description: 'write the prompt in $VISUAL or $EDITOR (Ctrl+G)',
    run: (ctx) => (ctx.editor ? ctx.editor() : ctx.hint('No external editor here.')),
  },
  {
    name: 'theme',
    args: '[dark|light]',
    description: 'switch the colours for a dark or a light terminal',
    run: (ctx, arg) => {
      const want = parseThemeSetting(arg);
      if (arg === '' || want === undefined || want === 'auto') return ctx.hint(`Theme: ${themeName()}${colorEnabled() ? '' : ' (no colour: NO_COLOR is set)'}. Switch with /theme dark or /theme light; \`theme = "light"\` in agents.toml keeps it (auto asks the terminal at start).`);
      chooseTheme(want);
      ctx.hint(`Theme: ${want}. What is already in the scrollback keeps its colours; \`theme = "${want}"\` in agents.toml keeps it for later sessions.`);
    },
    complete: (_state, partial) => ['dark', 'light'].filter((t) => t.startsWith(partial.toLowerCase())).map((value) => ({ value, detail: value === themeName() ? 'current' : '' })),
  },
  {
    name: 'quit',
    description: 'leave cxl (Ctrl+D)',
    run: (ctx) => ctx.controller.quit(),
  },
];

/** One row of the command list, client or agent. */
export interface CommandEntry {
  name: string;
  args?: string;
  description: string;
  source: 'client' | 'agent';
  /** an agent's custom command: where it comes from (cxl's `project` or `user`), already said in its description */
  origin?: string;
  /** What completing it puts in the composer. */
  insert: string;
  /** Enter on it runs it (or sends it) at once: it takes no argument. */
  submit: boolean;
}

const clientNames = () => new Set(CLIENT_COMMANDS.map((c) => c.name));

export function commandEntries(state: ClientState): CommandEntry[] {
  const own = clientNames();
  const mine: CommandEntry[] = CLIENT_COMMANDS.map((c) => ({
    name: c.name,
    args: c.args,
    description: c.description,
    source: 'client',
    insert: c.args ? `/${c.name} ` : `/${c.name}`,
    // an optional argument (`[ID]`) does not hold Enter back
    submit: !c.needsArg && (!c.args || c.args.startsWith('[')),
  }));
  const theirs: CommandEntry[] = state.commands.map((c) => {
    // a name the client uses itself goes to the agent as //name
    const slash = own.has(c.name) ? '//' : '/';
    const hint = c.input && 'hint' in c.input ? c.input.hint : undefined;
    const origin = c._meta?.[META_COMMAND_SOURCE];
    return { name: `${slash === '//' ? '/' : ''}${c.name}`, args: hint, description: c.description, source: 'agent', ...(typeof origin === 'string' ? { origin } : {}), insert: hint ? `${slash}${c.name} ` : `${slash}${c.name}`, submit: !hint };
  });
  return [...mine, ...theirs];
}

export function clientCommand(name: string): SlashCommand | undefined {
  return CLIENT_COMMANDS.find((c) => c.name === name);
}

/** `/name rest` → name and argument; undefined for anything else (including `//…`). */
export function parseSlash(text: string): { name: string; arg: string } | undefined {
  const m = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  return m ? { name: m[1], arg: (m[2] ?? '').trim() } : undefined;
}

/**
 * What the composer does with a prompt: run a client command (returns undefined), or the text to
 * send to the agent (`//x` is sent as `/x`).
 */
export function routePrompt(text: string, ctx: SlashContext): string | undefined {
  if (text.trimStart().startsWith('//')) return text.trimStart().slice(1);
  // `!line`: the person's own shell, run here whatever the agent
  const bang = /^\s*!([\s\S]*)$/.exec(text);
  if (bang) {
    const line = bang[1].trim();
    if (line === '') ctx.hint('Write the command after !, e.g. !git status: it runs in your shell, in the sandbox.');
    else if (ctx.controller.shell) ctx.controller.shell.run(line);
    else ctx.hint('Running a shell line needs a running client.');
    return undefined;
  }
  const slash = parseSlash(text);
  const cmd = slash && clientCommand(slash.name);
  if (!cmd || !slash) return text;
  if (cmd.needsArg && slash.arg === '') {
    ctx.hint(`/${cmd.name} needs ${cmd.args ?? 'an argument'}: ${cmd.description}.`);
    return undefined;
  }
  cmd.run(ctx, slash.arg);
  return undefined;
}

/** The /help text: commands (the client's, then the agent's), then the keys of every focus. */
export function helpLines(state: ClientState): string[] {
  const lines: string[] = ['Commands (type / for the list):'];
  const pad = (s: string) => s.padEnd(18);
  for (const c of CLIENT_COMMANDS) lines.push(`  ${pad(`/${c.name}${c.args ? ` ${c.args}` : ''}`)}  ${c.description}`);
  if (state.commands.length > 0) {
    lines.push(`${state.agent.name ?? state.agent.label}'s commands (sent to the agent):`);
    const own = clientNames();
    for (const c of state.commands) {
      const hint = c.input && 'hint' in c.input ? ` ${c.input.hint}` : '';
      lines.push(`  ${pad(`${own.has(c.name) ? '//' : '/'}${c.name}${hint}`)}  ${c.description}`);
    }
  }
  lines.push('@path mentions a file (Tab completes): it is sent with the prompt.');
  lines.push(...keysHelp());
  return lines;
}
