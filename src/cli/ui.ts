// `cxl` with no subcommand: the terminal UI, an ACP client driving the built-in agent
// (`cxl acp`, same runtime) or any ACP agent given with --agent.
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { displayArgv } from '../core/argv_display.ts';
import type { ChildProcess } from 'node:child_process';
import { killProcessGroup, moduleCommand, onTerminate, type DenoChild } from '../core/platform/runtime.ts';
import { EARLY_AGENT_KEY, type EarlyAgent } from './early_agent.ts';
import { enableTerminalModes } from '../ui/terminal_modes.ts';

/** How long the first frame waits for the built-in agent's session (see below). */
const FIRST_FRAME_WAIT_MS = 100;
const SHOW_CURSOR = '\u001B[?25h';
const HIDE_CURSOR = '\u001B[?25l';
import type { ResumeRequest } from '../client/acp_client.ts';
import type { ConfiguredMcpServer } from '../client/session/mcp_forward.ts';
import { parseFlags, UsageError } from './args.ts';

const HELP = `cxl: the terminal UI (an ACP client)

Usage: cxl [--agent "<command line>"] [--cwd DIR] [--envelope NAME] [--provider ollama|openai] [--model NAME]
           [--continue | --resume [ID]] [--trust-project] ["<prompt>"]

  "<prompt>"   sent as the first prompt once the session is open (cxl -p "<prompt>" prints
               one answer instead, with no UI: cxl -p --help)
  --agent      any ACP agent on stdio, e.g. --agent "npx @agentclientprotocol/claude-agent-acp"
               (default: the built-in agent, cxl acp)
  --cwd        the session root (default: the current directory); files and commands the
               agent asks for stay inside it
  --envelope   the envelope (session mode) to start in
  --provider   the built-in agent's model provider: ollama (default) or openai (OpenAI-compatible)
  --model      the model to use
  --continue   resume the newest session of this directory (its history is replayed)
  --resume     pick one of this directory's sessions to resume, or resume the one with this ID
  --connect URL  attach to a standing host (cxl serve) instead: its URL as it printed it; the
               token from CXL_SERVE_TOKEN, --token-file FILE, or the host's own file on its machine
  --trust-project  the built-in agent applies this folder's own configuration for this run
               without recording trust (\`cxl trust\` records it)

Keys are listed in the footer for what has focus; docs/tui.md has the full table.`;

/** The built-in agent: this same program's `acp` subcommand under the same runtime. */
export function builtinAgentArgv(opts: { model?: string; envelope?: string; provider?: string; trustProject?: boolean }): string[] {
  const entry = process.argv[1];
  if (!entry) throw new UsageError('cxl: cannot tell which file is running, so the built-in agent cannot be started. Pass --agent "<command>".');
  return [...moduleCommand(path.resolve(entry)), 'acp', ...(opts.provider ? ['--provider', opts.provider] : []), ...(opts.model ? ['--model', opts.model] : []), ...(opts.envelope ? ['--envelope', opts.envelope] : []), ...(opts.trustProject ? ['--trust-project'] : [])];
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
  return argv.map((a, i) => (a === '--resume' && (i === argv.length - 1 || argv[i + 1].startsWith('-')) ? '--resume=' : a));
}

export async function main(argv: string[]): Promise<number> {
  const flags = parseFlags('cxl', optionalResume(argv), {
    agent: { type: 'string' },
    cwd: { type: 'string' },
    envelope: { type: 'string' },
    model: { type: 'string' },
    provider: { type: 'string' },
    continue: { type: 'boolean' },
    resume: { type: 'string' },
    'trust-project': { type: 'boolean' },
    connect: { type: 'string' },
    'token-file': { type: 'string' },
  }, HELP);
  if (!flags) return 0;
  const { values, positionals } = flags;
  // `cxl "fix the bug"`: the UI opens with that prompt sent
  const firstPrompt = positionals.join(' ').trim();
  const resumeId = values.resume as string | undefined;
  if (values.continue && resumeId !== undefined) throw new UsageError('cxl: --continue and --resume both pick the session to open; give one of them.');
  const resume: ResumeRequest | undefined = values.continue ? { kind: 'continue' } : resumeId === undefined ? undefined : resumeId === '' ? { kind: 'pick' } : { kind: 'id', id: resumeId };
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new UsageError('cxl: the UI needs a terminal on stdin and stdout. For unattended work use `cxl run "<task>"`; for an editor use `cxl acp`.');
  }
  // React's development build keeps per-render bookkeeping that grows with every frame of a
  // long session; the UI runs the production build unless the user asked otherwise. The agent
  // gets the environment as it was.
  const agentEnv = { ...process.env };
  // Ink renders only the last frame when CI or CONTINUOUS_INTEGRATION is set; on a real
  // terminal the user wants the live UI, whatever their shell exports.
  const saved = { NODE_ENV: process.env.NODE_ENV, CI: process.env.CI, CONTINUOUS_INTEGRATION: process.env.CONTINUOUS_INTEGRATION };
  process.env.NODE_ENV ??= 'production';
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
  // zod's parsers without generated code (src/client/connection/zod_jitless.ts), before the protocol's modules load
  (await import('../client/connection/zod_jitless.ts')).parseWithoutCodegen();
  const [{ splitCommandLine }, { AgentProcess }] = await Promise.all([import('../client/connection/command_line.ts'), import('../client/connection/agent_process.ts')]);
  const cwd = path.resolve((values.cwd as string | undefined) ?? process.cwd());
  const model = values.model as string | undefined;
  const envelope = values.envelope as string | undefined;
  let agentArgv: string[];
  let label: string;
  if (values.agent !== undefined) {
    try {
      agentArgv = splitCommandLine(values.agent as string);
    } catch (err) {
      throw new UsageError(`cxl: --agent: ${(err as Error).message}.`);
    }
    if (agentArgv.length === 0) throw new UsageError('cxl: --agent needs a command line, e.g. --agent "npx my-acp-agent".');
    label = path.basename(agentArgv[0]);
  } else {
    agentArgv = builtinAgentArgv({ model, envelope, provider: values.provider as string | undefined, trustProject: values['trust-project'] === true });
    label = 'cxl acp';
  }
  const connect = values.connect as string | undefined;
  if (connect !== undefined && values.agent !== undefined) throw new UsageError('cxl: --connect attaches to a standing host and --agent starts an agent; give one of them.');
  let remote: import('../client/connection/remote_agent.ts').RemoteAgent | undefined;
  if (connect !== undefined) {
    const [{ RemoteAgent, webSocketUrl }, { clientToken }, { dataDir }] = await Promise.all([import('../client/connection/remote_agent.ts'), import('../serve/token.ts'), import('../core/platform/data_dir.ts')]);
    try {
      webSocketUrl(connect);
    } catch (err) {
      throw new UsageError(`cxl: --connect ${connect}: ${(err as Error).message}; give the URL \`cxl serve\` printed (http://HOST:PORT/acp).`);
    }
    let token: string | undefined;
    try {
      token = clientToken({ file: values['token-file'] as string | undefined, env: process.env, dataDir: dataDir(process.env) });
    } catch (err) {
      throw new UsageError(`cxl: --token-file: ${(err as Error).message}`);
    }
    if (!token) throw new UsageError(`cxl: --connect needs the host's token: set CXL_SERVE_TOKEN or pass --token-file FILE (the host printed where its token is).`);
    remote = new RemoteAgent(connect, token);
    agentArgv = ['cxl', '--connect', connect];
    label = new URL(connect).host;
  }
  let root: string;
  try {
    root = fs.realpathSync(cwd);
    if (!fs.statSync(root).isDirectory()) throw new Error('not a directory');
  } catch (err) {
    throw new UsageError(`cxl: --cwd ${cwd}: ${(err as Error).message}`);
  }
  // The agent first: it starts (another process, another core) while this one loads the protocol
  // and the screen, the slowest part of a start, so the session is open about when the screen is.
  const agent = remote ?? new AgentProcess(agentArgv, { cwd: root, env: agentEnv, adopt: values.agent === undefined ? adoptEarlyAgent(agentArgv, root, agentEnv) : undefined });
  // the built-in agent's extras (its trust offer, reading the person's MCP servers itself) are not a host's
  const builtin = values.agent === undefined && remote === undefined;
  // the sandbox probe the client tells the agent about at initialize (its terminal host's default:
  // with the network), started now so bwrap runs while the protocol's modules load
  void import('../core/shell/sandbox/probe.ts').then((p) => p.probeSandboxAsync({ network: true, roots: [root] })).catch(() => {});
  let client: InstanceType<Awaited<typeof import('../client/acp_client.ts')>['AcpClient']>;
  let mcp: { servers: ConfiguredMcpServer[]; problem?: string };
  try {
    const [{ AcpClient }, { trustOfferFor }, configured] = await Promise.all([
      import('../client/acp_client.ts'),
      import('../client/trust/trust_offer.ts'),
      // another agent gets the person's MCP servers with its sessions; the built-in one reads them itself
      values.agent === undefined ? { servers: [] } : configuredMcpServers(cwd, values['trust-project'] === true),
    ]);
    mcp = configured;
    // the built-in agent holds back this folder's own configuration until it is trusted: offer to
    const trust = builtin && values['trust-project'] !== true ? trustOfferFor(root, agentEnv, { provider: values.provider as string | undefined, model }) : undefined;
    client = new AcpClient({ argv: agentArgv, label, builtin, cwd, model, envelope, env: agentEnv, resume, process: agent, trust, mcpServers: mcp.servers });
  } catch (err) {
    agent.kill('SIGKILL');
    throw err instanceof UsageError ? err : new UsageError(`cxl: --cwd ${cwd}: ${(err as Error).message}`);
  }
  if (mcp.problem) client.store.notice('warn', `Your MCP servers were not passed to the agent: ${mcp.problem}`);
  // the SDK reports what it could not read on the console: into the agent log, not over the screen
  const restoreConsole = consoleInto((level, args) => client.sdkLog(level, args));
  // SIGINT, SIGTERM and SIGHUP (the terminal closed) take the agent's process group and its
  // terminals down first (an agent that ignores its stdin closing would be orphaned), then the UI.
  const offTerminate = onTerminate(() => {
    void client.close();
    client.quit();
  });
  // a terminal that hung up fails every later write: that must not crash the way out
  const ignoreWriteErrors = () => {};
  process.stdout.on('error', ignoreWriteErrors);
  const starting = client.start().catch(() => {});
  await client.initializeSent;
  // The terminal is asked for its background now: it answers while the screen's modules load,
  // so the answer is in when the first frame is drawn rather than holding it a round trip.
  const background = (async () => {
    const [theme, bg] = await Promise.all([import('../ui/theme.ts'), import('../ui/terminal_background.ts')]);
    return theme.colorEnabled() ? bg.queryBackground({ stdin: process.stdin, stdout: process.stdout }) : undefined;
  })().catch(() => undefined);
  // React, Ink and the reconciler must all load after NODE_ENV is settled (they pick their build
  // when first imported, and mixing builds breaks rendering); they load once the client has
  // sent `initialize` (one thread evaluates modules: the screen's would hold the client back, and
  // the agent waits for it). One module at a time, the event loop turning between them: the
  // agent's answer to `initialize` comes while they load, and is read (and session/new sent) at
  // the next boundary rather than once all of them and the first frame are done (~80 ms later).
  const turn = () => new Promise((r) => setTimeout(r, 0));
  const screen = (async () => {
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
  })();
  screen.catch(() => {});
  // the UI's own config keys, read while the rest loads (a broken file is the agent's to report)
  const uiSettings = import('../config/load.ts').then(({ loadConfig }) => uiConfig(loadConfig, cwd, values['trust-project'] === true)).catch(() => ({}) as UiConfig);
  let ui;
  try {
    ui = await screen;
  } catch (err) {
    offTerminate();
    await client.close(); // the agent already started must not outlive a UI that cannot load
    restoreConsole();
    throw err;
  }
  const [{ default: React }, { render }, { App }, { PromptHistory }, { adoptSaved }, { editInEditor }, theme, terminalBackground, { Notifier, notifySettings }] = ui;
  const settings = await uiSettings;
  // dark or light: as configured, else as the terminal says its background is (before Ink reads stdin)
  const setting = theme.parseThemeSetting(settings.theme) ?? 'auto';
  if (setting !== 'auto') theme.setTheme(setting);
  else if (theme.colorEnabled()) theme.setTheme((await background) ?? terminalBackground.backgroundFromEnv(process.env) ?? 'dark');
  // Both were read once at load; commands the UI runs for the agent get the user's values back.
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  const notify = notifySettings(settings, process.env);
  const notifier = new Notifier((t) => process.stdout.write(t), notify);
  // Bracketed paste, focus reporting and the saved title while the UI runs, undone however it
  // ends (an exit hook covers a crash).
  const modes = { focus: notify.mode !== 'off', title: notify.title };
  let restoreModes = enableTerminalModes(process.stdout, modes);
  // ↑ and Ctrl+R reach the prompts of earlier sessions in this project
  const prompts = PromptHistory.forProject(cwd, process.env);
  const initial = adoptSaved(prompts.load());
  if (prompts.skipped.length) client.store.notice('warn', `The prompt history has ${prompts.skipped.length} damaged line(s), left out of ↑ and Ctrl+R (${prompts.skipped.slice(0, 3).join('; ')}${prompts.skipped.length > 3 ? '; …' : ''}). Nothing else is lost; delete those lines to keep this from showing.`);
  let instance: ReturnType<typeof render> | undefined;
  // Ctrl+G: the terminal is lent to the editor and taken back as it was
  const term = {
    release: () => {
      instance?.clear();
      process.stdin.setRawMode?.(false);
      restoreModes();
      process.stdout.write(SHOW_CURSOR);
    },
    reclaim: () => {
      process.stdin.setRawMode?.(true);
      restoreModes = enableTerminalModes(process.stdout, modes);
      notifier.retitle();
      process.stdout.write(HIDE_CURSOR);
    },
  };
  const editor = (text: string) => editInEditor(text, process.env, term);
  if (firstPrompt !== '') {
    prompts.append({ text: firstPrompt, at: Date.now() });
    initial.past.push(firstPrompt);
    client.send(firstPrompt);
  }
  // The built-in agent's session comes soon after the screen has loaded (it started first): the
  // first frame waits for it a moment rather than be drawn, then drawn again with it (a frame
  // costs ~20 ms at start, and the agent's answers, and so the session, wait behind it). A slower
  // start, another agent (whose start may take seconds) or a picker is drawn at once.
  if (values.agent === undefined && client.sessionId === undefined && resume?.kind !== 'pick') await Promise.race([starting, new Promise((r) => setTimeout(r, FIRST_FRAME_WAIT_MS))]);
  instance = render(React.createElement(App, { store: client.store, controller: client, initial, prompts, editor, notifier }), { exitOnCtrlC: false, patchConsole: false });
  // A render that throws unmounts Ink: end the session too rather than leave a dead screen.
  let crash: unknown;
  instance.waitUntilExit().catch((err: unknown) => {
    crash = err;
    client.quit();
  });
  await client.quitRequested;
  offTerminate();
  instance.unmount();
  restoreModes();
  await client.close();
  restoreConsole();
  process.stdout.off('error', ignoreWriteErrors);
  if (crash !== undefined) throw crash;
  const back = connect !== undefined ? undefined : resumeHint(client, values.agent as string | undefined, cwd);
  if (back) process.stdout.write(`${back}\n`);
  return 0;
}

/** The way back to the session just left, when it can be resumed (the agent loads sessions, and this one has something in it). */
function resumeHint(client: { sessionId?: string; resumable: boolean }, agent: string | undefined, cwd: string): string | undefined {
  const id = client.sessionId;
  if (!id || !client.resumable) return undefined;
  const argv = ['cxl', '--resume', id, ...(agent !== undefined ? ['--agent', agent] : []), ...(cwd !== process.cwd() ? ['--cwd', cwd] : [])];
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
