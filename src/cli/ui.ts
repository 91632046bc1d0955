// `cxl` with no subcommand: the terminal UI, an ACP client driving the built-in agent
// (`cxl acp`, same runtime) or any ACP agent given with --agent.
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { displayArgv } from '../core/argv_display.ts';
import type { ChildProcess } from 'node:child_process';
import { killProcessGroup, moduleCommand, onTerminate, type DenoChild } from '../core/platform/runtime.ts';
import { agentFlags, EARLY_AGENT_KEY, type EarlyAgent } from './early_agent.ts';
import { enableTerminalModes } from '../ui/terminal_modes.ts';
import type { ResumeRequest } from '../client/acp_client.ts';
import type { ConfiguredMcpServer } from '../client/session/mcp_forward.ts';
import { parseFlags, UsageError } from './args.ts';
import { flagLines, knownFlags, OPTIONAL_VALUE, UI_FLAGS, uiParseOptions } from './ui_flags.ts';

/** How long the first frame waits for the built-in agent's session (the `first frame` step). */
const FIRST_FRAME_WAIT_MS = 100;
const SHOW_CURSOR = '\u001B[?25h';
const HIDE_CURSOR = '\u001B[?25l';

const HELP = `cxl: the terminal UI (an ACP client)

Usage: cxl [flags] ["<prompt>"]

  "<prompt>"   sent as the first prompt once the session is open (cxl -p "<prompt>" prints
               one answer instead, with no UI: cxl -p --help)
${flagLines((f) => f.help, 15)}

Keys are listed in the footer for what has focus; docs/tui.md has the full table.`;

/** The built-in agent: this same program's `acp` subcommand under the same runtime. */
export function builtinAgentArgv(opts: { model?: string; envelope?: string; provider?: string; trustProject?: boolean }): string[] {
  const entry = process.argv[1];
  if (!entry) throw new UsageError('cxl: cannot tell which file is running, so the built-in agent cannot be started. Pass --agent "<command>".');
  return [...moduleCommand(path.resolve(entry)), 'acp', ...agentFlags({ provider: opts.provider, model: opts.model, envelope: opts.envelope, 'trust-project': opts.trustProject })];
}

/**
 * The `[mcp_servers.<name>]` of the person's configuration (and of this folder's, once trusted),
 * as the client passes them on; a configuration that does not load passes none and says why.
 */
async function configuredMcpServers(cwd: string, trustProject: boolean): Promise<{ servers: ConfiguredMcpServer[]; problem?: string }> {
  const { ConfigError, formatIssue, loadConfig } = await import('../config/load.ts');
  try {
    const cfg = loadConfig({ cwd, env: process.env, trustProject });
    return { servers: Object.entries(cfg.data.mcp_servers ?? {}).map(([name, s]) => ({ name, ...s })) };
  } catch (err) {
    if (err instanceof ConfigError) return { servers: [], problem: `configuration error: ${err.issues.map(formatIssue).join('; ')}` };
    throw err;
  }
}

/**
 * The built-in agent src/cli/early_agent.ts spawned before this module loaded, if it is the one
 * this command line asks for (same command, directory and environment); one that is not is killed.
 */
export function adoptEarlyAgent(argv: string[], cwd: string, env: Record<string, string | undefined>): EarlyAgent<ChildProcess | DenoChild> | undefined {
  const key = Symbol.for(EARLY_AGENT_KEY);
  const early = (globalThis as Record<symbol, EarlyAgent<ChildProcess | DenoChild> | undefined>)[key];
  if (!early) return undefined;
  delete (globalThis as Record<symbol, unknown>)[key];
  const same = (a: Record<string, string | undefined>, b: Record<string, string | undefined>) => Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);
  if (JSON.stringify(early.argv) === JSON.stringify(argv) && early.cwd === cwd && same(early.env, env)) return early;
  if (early.child.pid !== undefined) killProcessGroup(early.child.pid, 'SIGKILL');
  return undefined;
}

/** console.error, .warn and .log go to `sink` until the returned function puts them back. */
function consoleInto(sink: (level: string, args: unknown[]) => void): () => void {
  const saved = { error: console.error, warn: console.warn, log: console.log };
  console.error = (...args: unknown[]) => sink('error', args);
  console.warn = (...args: unknown[]) => sink('warn', args);
  console.log = (...args: unknown[]) => sink('log', args);
  return () => Object.assign(console, saved);
}

/** `--resume` takes an optional id: alone (or before another flag) it means the picker. */
function optionalResume(argv: string[]): string[] {
  const flag = `--${OPTIONAL_VALUE}`;
  return argv.map((a, i) => (a === flag && (i === argv.length - 1 || argv[i + 1].startsWith('-')) ? `${flag}=` : a));
}

/** What the start's steps build, each from what the ones before it left. */
interface Start {
  argv: string[];
  /** the start ends here with exit 0 (--help) */
  done?: boolean;
  values: UiValues;
  firstPrompt: string;
  resume?: ResumeRequest;
  /** the environment as the person's shell gave it: the agent's, and what the UI's env goes back to */
  agentEnv: Record<string, string | undefined>;
  /** NODE_ENV, CI and CONTINUOUS_INTEGRATION as they were, put back once React and Ink have loaded */
  savedEnv: Record<string, string | undefined>;
  cwd: string;
  root: string;
  /** --add-dir, checked and canonical */
  extraDirs: string[];
  agentArgv: string[];
  label: string;
  builtin: boolean;
  agent: AgentLike;
  client: Client;
  mcpProblem?: string;
  restoreConsole(): void;
  offTerminate(): void;
  starting: Promise<void>;
  background: Promise<'dark' | 'light' | undefined>;
  /** Colour is on, the theme `auto`, and the terminal did not say its background in time. */
  lateBackground?: boolean;
  screen: Promise<ScreenModules>;
  settings: Promise<UiConfig>;
  ui: ScreenModules;
  notifier: InstanceType<ScreenModules[8]['Notifier']>;
  modes: { focus: boolean; title: boolean };
  restoreModes(): void;
  initial: ReturnType<ScreenModules[4]['adoptSaved']>;
  prompts: InstanceType<ScreenModules[3]['PromptHistory']>;
  instance?: ReturnType<ScreenModules[1]['render']>;
}

type UiValues = { [K in (typeof UI_FLAGS)[number]['name']]?: string | boolean | string[] };
type AgentLike = InstanceType<Awaited<typeof import('../client/connection/agent_process.ts')>['AgentProcess']> | import('../client/connection/remote_agent.ts').RemoteAgent;
type Client = InstanceType<Awaited<typeof import('../client/acp_client.ts')>['AcpClient']>;
type ScreenModules = Awaited<ReturnType<typeof loadScreen>>;

interface Step {
  name: string;
  /** why it is here, and here in the order */
  why: string;
  run(s: Start): void | Promise<void>;
}

const str = (v: string | boolean | string[] | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * The UI's start, in order. The built-in agent is already starting (bin/cxl.js and src/cli.ts
 * spawn it before this module loads; the `agent` step adopts it), so every step before the first
 * frame either feeds the agent or runs while it loads on the other core; none waits on it except
 * the first frame, for at most FIRST_FRAME_WAIT_MS.
 */
export const UI_START: readonly Step[] = [
  {
    name: 'flags',
    why: 'the flags table (ui_flags.ts) parsed once: a usage error before anything starts',
    run: (s) => {
      const flags = parseUiFlags(s.argv);
      if (!flags) return void (s.done = true); // --help: printed, nothing started
      const { values, positionals } = flags;
      s.values = values;
      // `cxl "fix the bug"`: the UI opens with that prompt sent
      s.firstPrompt = positionals.join(' ').trim();
      const resumeId = str(values.resume);
      if (values.continue && resumeId !== undefined) throw new UsageError('cxl: --continue and --resume both pick the session to open; give one of them.');
      s.resume = values.continue ? { kind: 'continue' } : resumeId === undefined ? undefined : resumeId === '' ? { kind: 'pick' } : { kind: 'id', id: resumeId };
      if (values.connect !== undefined && values.agent !== undefined) throw new UsageError('cxl: --connect attaches to a standing host and --agent starts an agent; give one of them.');
      if (values.connect !== undefined && values['add-dir'] !== undefined) throw new UsageError("cxl: --add-dir names directories on this machine, and a standing host (--connect) reaches only its own workspace; leave --add-dir out, or run cxl on the host's machine.");
    },
  },
  {
    name: 'terminal',
    why: 'the UI needs one on both ends; without it, say what to run instead',
    run: () => {
      if (!process.stdin.isTTY || !process.stdout.isTTY) {
        throw new UsageError('cxl: the UI needs a terminal on stdin and stdout. For unattended work use `cxl run "<task>"`; for an editor use `cxl acp`.');
      }
    },
  },
  {
    name: 'environment',
    why: "React's production build (its development one keeps per-render bookkeeping that grows with a long session) and Ink's live frames (it draws only the last one when CI is set); settled before either loads, the agent keeps the environment as it was",
    run: async (s) => {
      s.agentEnv = { ...process.env };
      s.savedEnv = { NODE_ENV: process.env.NODE_ENV, CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION };
      process.env.NODE_ENV ??= 'production';
      delete process.env.CI;
      delete process.env.CONTINUOUS_INTEGRATION;
      // zod's parsers without generated code (src/client/connection/zod_jitless.ts), before the protocol's modules load
      (await import('../client/connection/zod_jitless.ts')).parseWithoutCodegen();
    },
  },
  {
    name: 'agent',
    why: 'first of all the work: the agent starts (another process, another core) while this one loads the protocol and the screen, so its session is open about when the screen is',
    run: async (s) => {
      const [{ splitCommandLine }, { AgentProcess }] = await Promise.all([import('../client/connection/command_line.ts'), import('../client/connection/agent_process.ts')]);
      const v = s.values;
      s.cwd = path.resolve(str(v.cwd) ?? process.cwd());
      if (v.agent !== undefined) {
        try {
          s.agentArgv = splitCommandLine(str(v.agent) ?? '');
        } catch (err) {
          throw new UsageError(`cxl: --agent: ${(err as Error).message}.`);
        }
        if (s.agentArgv.length === 0) throw new UsageError('cxl: --agent needs a command line, e.g. --agent "npx my-acp-agent".');
        s.label = path.basename(s.agentArgv[0]);
      } else {
        s.agentArgv = builtinAgentArgv({ model: str(v.model), envelope: str(v.envelope), provider: str(v.provider), trustProject: v['trust-project'] === true });
        s.label = 'cxl acp';
      }
      const remote = str(v.connect) !== undefined ? await connectRemote(s) : undefined;
      try {
        s.root = fs.realpathSync(s.cwd);
        if (!fs.statSync(s.root).isDirectory()) throw new Error('not a directory');
      } catch (err) {
        throw new UsageError(`cxl: --cwd ${s.cwd}: ${(err as Error).message}`);
      }
      s.extraDirs = v['add-dir'] === undefined ? [] : (await import('./add_dir.ts')).addDirFlag('cxl', v['add-dir'], s.root);
      s.agent = remote ?? new AgentProcess(s.agentArgv, { cwd: s.root, env: s.agentEnv, adopt: v.agent === undefined ? adoptEarlyAgent(s.agentArgv, s.root, s.agentEnv) : undefined });
      // the built-in agent's extras (its trust offer, reading the person's MCP servers itself) are not a host's
      s.builtin = v.agent === undefined && remote === undefined;
    },
  },
  {
    name: 'sandbox probe',
    why: "what the client tells the agent at initialize (its terminal host's default: with the network); bwrap runs while the protocol's modules load",
    run: (s) => {
      void import('../core/shell/sandbox/probe.ts').then((p) => p.probeSandboxAsync({ network: true, roots: [s.root, ...s.extraDirs] })).catch(() => {});
    },
  },
  {
    name: 'client',
    why: "the protocol's modules and the client over the agent's pipes; the trust offer and another agent's MCP servers are read from the configuration here",
    run: async (s) => {
      const v = s.values;
      const trustProject = v['trust-project'] === true;
      try {
        const [{ AcpClient }, { trustOfferFor }, configured] = await Promise.all([
          import('../client/acp_client.ts'),
          import('../client/trust/trust_offer.ts'),
          // another agent gets the person's MCP servers with its sessions; the built-in one reads them itself
          v.agent === undefined ? ({ servers: [] } as { servers: ConfiguredMcpServer[]; problem?: string }) : configuredMcpServers(s.cwd, trustProject),
        ]);
        s.mcpProblem = configured.problem;
        // the built-in agent holds back this folder's own configuration until it is trusted: offer to
        const trust = s.builtin && !trustProject ? trustOfferFor(s.root, s.agentEnv, { provider: str(v.provider), model: str(v.model) }) : undefined;
        s.client = new AcpClient({ argv: s.agentArgv, label: s.label, builtin: s.builtin, cwd: s.cwd, additionalDirectories: s.extraDirs, model: str(v.model), envelope: str(v.envelope), env: s.agentEnv, resume: s.resume, process: s.agent, trust, mcpServers: configured.servers });
      } catch (err) {
        s.agent.kill('SIGKILL');
        throw err instanceof UsageError ? err : new UsageError(`cxl: --cwd ${s.cwd}: ${(err as Error).message}`);
      }
      if (s.mcpProblem) s.client.store.notice('warn', `Your MCP servers were not passed to the agent: ${s.mcpProblem}`);
    },
  },
  {
    name: 'way out',
    why: "the SDK's console output into the agent log, not over the screen; SIGINT, SIGTERM and SIGHUP take the agent's process group and its terminals down before the UI (an agent that ignores its stdin closing would be orphaned); a terminal that hung up fails every later write, which must not crash the way out",
    run: (s) => {
      const client = s.client;
      s.restoreConsole = consoleInto((level, args) => client.sdkLog(level, args));
      s.offTerminate = onTerminate(() => {
        void client.close();
        client.quit();
      });
      process.stdout.on('error', ignoreWriteErrors);
    },
  },
  {
    name: 'initialize',
    why: 'sent before the screen loads: the agent answers it while the screen loads',
    run: async (s) => {
      s.starting = s.client.start().catch(() => {});
      await s.client.initializeSent;
    },
  },
  {
    name: 'terminal background',
    why: "asked now: the terminal answers while the screen's modules load, so the answer is in when the first frame is drawn rather than holding it a round trip",
    run: (s) => {
      s.background = (async () => {
        const [theme, bg] = await Promise.all([import('../ui/theme.ts'), import('../ui/terminal_background.ts')]);
        return theme.colorEnabled() ? bg.queryBackground({ stdin: process.stdin, stdout: process.stdout }) : undefined;
      })().catch(() => undefined);
    },
  },
  {
    name: 'screen',
    why: "React, Ink and the App, one module at a time with the event loop turning between them: the agent's answers are read (and session/new sent) at the next boundary, not once all of them are in",
    run: (s) => {
      s.screen = loadScreen();
      s.screen.catch(() => {});
    },
  },
  {
    name: 'settings',
    why: "the UI's own keys (theme, notify, terminal_title), read while the screen loads; a broken file is the agent's to report",
    run: (s) => {
      s.settings = import('../config/load.ts').then(({ loadConfig }) => uiConfig(loadConfig, s.cwd, s.values['trust-project'] === true)).catch(() => ({}) as UiConfig);
    },
  },
  {
    name: 'screen loaded',
    why: 'a UI that cannot load ends its agent too',
    run: async (s) => {
      try {
        s.ui = await s.screen;
      } catch (err) {
        s.offTerminate();
        // the background query left stdin raw and read for the screen: the shell gets it back as it was
        process.stdin.setRawMode?.(false);
        process.stdin.pause();
        await s.client.close(); // the agent already started must not outlive a UI that cannot load
        s.restoreConsole();
        throw err;
      }
    },
  },
  {
    name: 'theme',
    why: 'dark or light: as configured, else as the terminal says its background is (before Ink reads stdin)',
    run: async (s) => {
      const [, , , , , , theme, terminalBackground] = s.ui;
      const setting = theme.parseThemeSetting((await s.settings).theme) ?? 'auto';
      if (setting !== 'auto') theme.setTheme(setting);
      else if (theme.colorEnabled()) {
        const answered = await s.background;
        theme.setTheme(answered ?? terminalBackground.backgroundFromEnv(process.env) ?? 'dark');
        // a terminal (or ssh link) slower than the wait: its answer still sets the theme when it comes
        s.lateBackground = answered === undefined;
      }
    },
  },
  {
    name: 'environment back',
    why: "React and Ink read it once at load; commands the UI runs for the agent get the person's values back",
    run: (s) => {
      for (const [k, v] of Object.entries(s.savedEnv)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    },
  },
  {
    name: 'terminal modes',
    why: 'bracketed paste, focus reporting and the saved title while the UI runs, undone however it ends (an exit hook covers a crash)',
    run: async (s) => {
      const { Notifier, notifySettings } = s.ui[8];
      const notify = notifySettings(await s.settings, process.env);
      s.notifier = new Notifier((t) => process.stdout.write(t), notify);
      s.modes = { focus: notify.mode !== 'off', title: notify.title };
      s.restoreModes = enableTerminalModes(process.stdout, s.modes);
    },
  },
  {
    name: 'prompt history',
    why: "↑ and Ctrl+R reach the prompts of earlier sessions in this project; the first prompt of the command line is sent and kept",
    run: (s) => {
      const { PromptHistory } = s.ui[3];
      s.prompts = PromptHistory.forProject(s.cwd, process.env);
      s.initial = s.ui[4].adoptSaved(s.prompts.load());
      const skipped = s.prompts.skipped;
      if (skipped.length) s.client.store.notice('warn', `The prompt history has ${skipped.length} damaged line(s), left out of ↑ and Ctrl+R (${skipped.slice(0, 3).join('; ')}${skipped.length > 3 ? '; …' : ''}). Nothing else is lost; delete those lines to keep this from showing.`);
      if (s.firstPrompt !== '') {
        s.prompts.append({ text: s.firstPrompt, at: Date.now() });
        s.initial.past.push(s.firstPrompt);
        s.client.send(s.firstPrompt);
      }
    },
  },
  {
    name: 'first frame',
    why: "the built-in agent's session comes soon after the screen has loaded (it started first): the first frame waits for it a moment rather than be drawn, then drawn again with it (a frame costs ~20 ms at start, and the agent's answers wait behind it); a slower start, another agent (whose start may take seconds) or a picker is drawn at once",
    run: async (s) => {
      if (s.values.agent === undefined && s.client.sessionId === undefined && s.resume?.kind !== 'pick') await Promise.race([s.starting, new Promise((r) => setTimeout(r, FIRST_FRAME_WAIT_MS))]);
      const [{ default: React }, { render }, { App }] = s.ui;
      const { editInEditor } = s.ui[5];
      // Ctrl+G: the terminal is lent to the editor and taken back as it was
      const term = {
        release: () => {
          s.instance?.clear();
          process.stdin.setRawMode?.(false);
          s.restoreModes();
          process.stdout.write(SHOW_CURSOR);
        },
        reclaim: () => {
          process.stdin.setRawMode?.(true);
          s.restoreModes = enableTerminalModes(process.stdout, s.modes);
          s.notifier.retitle();
          process.stdout.write(HIDE_CURSOR);
        },
      };
      const editor = (text: string) => editInEditor(text, process.env, term);
      s.instance = render(React.createElement(App, { store: s.client.store, controller: s.client, initial: s.initial, prompts: s.prompts, editor, notifier: s.notifier, lateBackground: s.lateBackground }), { exitOnCtrlC: false, patchConsole: false });
    },
  },
];

/** A terminal that hung up fails every later write: ignored until the UI is gone. */
const ignoreWriteErrors = () => {};

/** The UI's flags, parsed once against the table; an unknown flag's error names the table's flags. */
export function parseUiFlags(argv: string[]): { values: UiValues; positionals: string[] } | null {
  let flags;
  try {
    flags = parseFlags('cxl', optionalResume(argv), uiParseOptions(), HELP);
  } catch (err) {
    if (err instanceof UsageError && /Unknown option/.test(err.message)) throw new UsageError(`${err.message.split('\n')[0]}; the UI's flags: ${knownFlags()}.\nRun \`cxl --help\` for what each does.`);
    throw err;
  }
  if (!flags) return null;
  return { values: flags.values as UiValues, positionals: flags.positionals };
}

/** React, Ink, the App and what the first frame needs, one module at a time (see the `screen` step). */
async function loadScreen() {
  const turn = () => new Promise((r) => setTimeout(r, 0));
  // React is CommonJS: its exports object is the default export wherever it is imported from
  // (Node's loader, Deno's, or the bundle, whose import() of it has no named exports)
  const react = await import('react');
  await turn();
  const ink = await import('ink');
  await turn();
  const app = await import('../ui/App.tsx');
  await turn();
  return [
    react,
    ink,
    app,
    await import('../client/composer/prompt_history.ts'),
    await import('../ui/composer.ts'),
    await import('../ui/external_editor.ts'),
    await import('../ui/theme.ts'),
    await import('../ui/terminal_background.ts'),
    await import('../ui/notify.ts'),
  ] as const;
}

/** `--connect URL`: the standing host's agent, with its token; the command line shown is the UI's own. */
async function connectRemote(s: Start): Promise<import('../client/connection/remote_agent.ts').RemoteAgent> {
  const connect = str(s.values.connect) ?? '';
  const [{ RemoteAgent, webSocketUrl }, { clientToken }, { dataDir }] = await Promise.all([import('../client/connection/remote_agent.ts'), import('../serve/token.ts'), import('../core/platform/data_dir.ts')]);
  try {
    webSocketUrl(connect);
  } catch (err) {
    throw new UsageError(`cxl: --connect ${connect}: ${(err as Error).message}; give the URL \`cxl serve\` printed (http://HOST:PORT/acp).`);
  }
  let token: string | undefined;
  try {
    token = clientToken({ file: str(s.values['token-file']), env: process.env, dataDir: dataDir(process.env) });
  } catch (err) {
    throw new UsageError(`cxl: --token-file: ${(err as Error).message}`);
  }
  if (!token) throw new UsageError(`cxl: --connect needs the host's token: set CXL_SERVE_TOKEN or pass --token-file FILE (the host printed where its token is).`);
  s.agentArgv = ['cxl', '--connect', connect];
  s.label = new URL(connect).host;
  return new RemoteAgent(connect, token);
}

export async function main(argv: string[]): Promise<number> {
  const s = { argv } as Start;
  // CXL_TRACE_START=FILE: when each step of the start ended, in ms since the process began (the
  // screen owns stderr); what a slow start is made of, as the ui_start benchmark's breakdown reads it
  const trace = process.env.CXL_TRACE_START;
  const ends: string[] = [];
  for (const step of UI_START) {
    await step.run(s);
    if (trace) ends.push(`${performance.now().toFixed(1)} ${step.name}`);
    if (s.done) return 0;
  }
  if (trace) {
    const write = () => fs.writeFileSync(trace, `${ends.join('\n')}\n`);
    write();
    let shown = false;
    const check = () => {
      if (shown || s.client.store.getState().sessionId === undefined) return;
      shown = true;
      off();
      ends.push(`${performance.now().toFixed(1)} session shown`);
      write();
    };
    const off = s.client.store.subscribe(check);
    check();
  }
  // A render that throws unmounts Ink: end the session too rather than leave a dead screen.
  let crash: unknown;
  s.instance?.waitUntilExit().catch((err: unknown) => {
    crash = err;
    s.client.quit();
  });
  await s.client.quitRequested;
  s.offTerminate();
  s.instance?.unmount();
  s.restoreModes();
  await s.client.close();
  s.restoreConsole();
  process.stdout.off('error', ignoreWriteErrors);
  if (crash !== undefined) throw crash;
  const back = s.values.connect !== undefined ? undefined : resumeHint(s.client, str(s.values.agent), s.cwd, s.extraDirs ?? []);
  if (back) process.stdout.write(`${back}\n`);
  return 0;
}

/** The way back to the session just left, when it can be resumed (the agent loads sessions, and this one has something in it). */
function resumeHint(client: { sessionId?: string; resumable: boolean }, agent: string | undefined, cwd: string, extraDirs: readonly string[]): string | undefined {
  const id = client.sessionId;
  if (!id || !client.resumable) return undefined;
  // a resume opens the session with the directories it names, none when none: the hint names them
  const argv = ['cxl', '--resume', id, ...(agent !== undefined ? ['--agent', agent] : []), ...(cwd !== process.cwd() ? ['--cwd', cwd] : []), ...extraDirs.flatMap((d) => ['--add-dir', d])];
  return `Resume this session: ${displayArgv(argv)}`;
}

interface UiConfig {
  theme?: string;
  notify?: string;
  terminal_title?: boolean;
}

/** The UI's own keys of agents.toml (`theme`, `notify`, `terminal_title`); a broken file leaves the defaults (the agent reports it). */
function uiConfig(load: (o: { cwd: string; trustProject?: boolean }) => { data: UiConfig }, cwd: string, trustProject: boolean): UiConfig {
  try {
    const { theme, notify, terminal_title } = load({ cwd, ...(trustProject ? { trustProject } : {}) }).data;
    return { theme, notify, terminal_title };
  } catch {
    return {};
  }
}
