// The early agent under Node (early_agent.ts says what it is for): bin/cxl.js calls this, built
// as dist/early_agent.cjs, before the ES-module loader and the UI's modules load.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { EARLY_AGENT_KEY, earlyAgentPlan, type EarlyAgent, type EarlyAgentPlan } from './early_agent.ts';

/** The agent bin/cxl.js would spawn for this UI command line (from this process's directory and entry), or undefined. */
export function nodeEarlyAgentPlan(argv: string[]): EarlyAgentPlan | undefined {
  const realDir = (dir: string) => {
    try {
      const real = fs.realpathSync(path.resolve(dir));
      return fs.statSync(real).isDirectory() ? real : undefined;
    } catch {
      return undefined;
    }
  };
  // no loader flags: bin/ runs the built files
  return earlyAgentPlan(argv, { realDir, entry: process.argv[1] ? path.resolve(process.argv[1]) : undefined, runtime: [process.execPath] });
}

/** Spawns the agent for this command line when it is the UI's with the built-in agent; the UI finds it at globalThis[Symbol.for(EARLY_AGENT_KEY)]. */
export function spawnEarlyAgent(argv: string[]): void {
  if (process.execArgv.length > 0 || !process.stdin.isTTY || !process.stdout.isTTY) return; // loaders, inspectors, no terminal: the UI's own way
  const p = nodeEarlyAgentPlan(argv);
  if (!p) return;
  const env = { ...process.env };
  // as AgentProcess spawns it: pipes, its own process group
  const child = spawn(p.argv[0], p.argv.slice(1), { cwd: p.cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const early: EarlyAgent<ChildProcess> = { argv: p.argv, cwd: p.cwd, env, child };
  // until the UI adopts it: an error event must not crash, and is kept for the report
  child.on('error', (err) => (early.error ??= err));
  child.stdin?.on('error', () => {});
  // until the UI adopts it (AgentProcess refs it): a UI that ends before that is not held open
  child.unref();
  for (const pipe of [child.stdin, child.stdout, child.stderr]) (pipe as { unref?(): void } | null)?.unref?.();
  (globalThis as Record<symbol, unknown>)[Symbol.for(EARLY_AGENT_KEY)] = early;
}
