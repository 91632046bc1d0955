// `cxl` (the UI) with the built-in agent: the agent (`cxl acp`) is spawned before the UI's own
// modules load, so it starts on the other core meanwhile (~100 ms of a start). Only for a command
// line read the same way src/cli/ui.ts reads it (flags it knows, a first prompt of several words);
// anything else (--agent, --help, a subcommand, a flag it does not know) spawns nothing here and
// the UI spawns as before. The UI adopts the process only if the command line, directory and
// environment it computes are the same (src/cli/ui.ts, adoptEarlyAgent), else it kills it.
// Node: bin/cxl.js calls dist/early_agent.cjs (early_agent_node.ts) before the ES-module loader
// starts. Deno: src/cli.ts calls spawnEarlyAgentDeno before anything else loads.
// Nothing imported at run time, nothing of Node's: under Deno the first node: module loaded starts
// Deno's Node layer (~20 ms), which this runs before.
import type { DenoChild } from '../core/platform/runtime.ts';
import { OPTIONAL_VALUE, UI_FLAGS } from './ui_flags.ts';

/**
 * The built-in agent's flags for these UI flag values: the table's `toAgent` flags in its order
 * (an empty value is left out). builtinAgentArgv (src/cli/ui.ts) builds the same.
 */
export function agentFlags(values: Record<string, string | boolean | undefined>): string[] {
  const out: string[] = [];
  for (const f of UI_FLAGS) {
    const value = values[f.name];
    if (!f.toAgent || value === undefined || value === '' || value === false) continue;
    out.push(`--${f.name}`, ...(typeof value === 'string' ? [value] : []));
  }
  return out;
}

/** Where the spawned agent waits for the UI: globalThis[Symbol.for(EARLY_AGENT_KEY)]. */
export const EARLY_AGENT_KEY = 'cxl.earlyAgent';

// the flags read here (src/cli/ui_flags.ts): any other sends the command line to the UI
const READ = new Map(UI_FLAGS.filter((f) => f.early === 'read').map((f) => [`--${f.name}`, f]));

export interface EarlyAgentPlan {
  argv: string[];
  cwd: string;
}

export interface PlanHost {
  /** `dir` (relative to the current directory) as a real path, or undefined when it is not a directory */
  realDir(dir: string): string | undefined;
  /** the absolute path of the file this process runs (the UI's entry: the agent runs the same) */
  entry: string | undefined;
  /** what runs a module file under this runtime, as moduleCommand (src/core/platform/runtime.ts) starts it */
  runtime: string[];
}

/** The built-in agent's command line and directory for this UI command line, or undefined when it is not one read here. */
export function earlyAgentPlan(argv: string[], host: PlanHost): EarlyAgentPlan | undefined {
  const first = argv[0];
  if (first !== undefined && !first.startsWith('-') && !/\s/.test(first)) return undefined; // a subcommand, or a word entry.ts may call a typo
  const v: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('-')) continue; // the prompt
    const eq = a.indexOf('=');
    const name = eq < 0 ? a : a.slice(0, eq);
    const flag = READ.get(name);
    if (!flag) return undefined; // --agent, --help, a typo: the UI decides
    if (flag.name === OPTIONAL_VALUE) {
      if (eq < 0 && i + 1 < argv.length && !argv[i + 1].startsWith('-')) i++; // its value
    } else if (flag.type === 'string') {
      const value = eq < 0 ? argv[++i] : a.slice(eq + 1);
      if (value === undefined || (eq < 0 && value.startsWith('-'))) return undefined;
      v[flag.name] = value;
    } else if (eq < 0) v[flag.name] = true;
    else return undefined;
  }
  if (v.provider === '') return undefined;
  const cwd = host.realDir(typeof v.cwd === 'string' ? v.cwd : '.');
  if (cwd === undefined || !host.entry) return undefined;
  const agentArgv = [...host.runtime, host.entry, 'acp', ...agentFlags(v)];
  return { argv: agentArgv, cwd };
}

/** The part of Deno's API the early spawn uses. */
export interface DenoHost {
  args: string[];
  mainModule: string;
  execPath(): string;
  realPathSync(p: string): string;
  statSync(p: string): { isDirectory: boolean };
  env: { toObject(): Record<string, string> };
  stdin: { isTerminal(): boolean };
  stdout: { isTerminal(): boolean };
  Command: new (cmd: string, o: { args: string[]; cwd: string; env: Record<string, string>; clearEnv: boolean; stdin: 'piped'; stdout: 'piped'; stderr: 'piped'; detached: boolean }) => { spawn(): DenoChild };
}

/** What the UI finds at EARLY_AGENT_KEY. `child` is a Node ChildProcess, or a DenoChild under Deno. */
export interface EarlyAgent<Child> {
  argv: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  child: Child;
  error?: Error;
}

/**
 * Under Deno, before any of Node's layer loads: spawns the agent with Deno's own API (as
 * AgentProcess spawns it: pipes, its own process group), when this is the UI's command line
 * with the built-in agent on a terminal.
 */
export function spawnEarlyAgentDeno(deno: DenoHost): void {
  if (!deno.stdin.isTerminal() || !deno.stdout.isTerminal()) return; // no terminal: the UI refuses, or decides
  if (!deno.mainModule.startsWith('file:')) return;
  const entry = decodeURIComponent(new URL(deno.mainModule).pathname);
  const realDir = (dir: string) => {
    try {
      const real = deno.realPathSync(dir);
      return deno.statSync(real).isDirectory ? real : undefined;
    } catch {
      return undefined;
    }
  };
  const p = earlyAgentPlan(deno.args, { realDir, entry, runtime: [deno.execPath(), 'run', '-A', '--no-check'] });
  if (!p) return;
  const env = deno.env.toObject();
  let child: DenoChild;
  try {
    child = new deno.Command(p.argv[0], { args: p.argv.slice(1), cwd: p.cwd, env, clearEnv: true, stdin: 'piped', stdout: 'piped', stderr: 'piped', detached: true }).spawn();
  } catch {
    return; // the UI spawns it again, and reports why that failed
  }
  child.unref(); // until the UI adopts it (AgentProcess refs it): a UI that ends before that is not held open
  const early: EarlyAgent<DenoChild> = { argv: p.argv, cwd: p.cwd, env, child };
  (globalThis as Record<symbol, unknown>)[Symbol.for(EARLY_AGENT_KEY)] = early;
}
