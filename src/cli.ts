// Entry point: parses the subcommand and hands its argv to the module that wires it.
// Subcommand modules are imported lazily so `cxl --version` loads nothing heavy.
import { createRequire } from 'node:module';
import process from 'node:process';
import type { Subcommands } from './cli/entry.ts';

declare const Deno: unknown;

// Under Deno this module is the entry (Node runs bin/cxl.js first, which did this already): the
// UI's built-in agent is spawned before the rest loads (bin/early_agent.js; a command line that
// is not the UI's spawns nothing), so it loads on the other core meanwhile.
if (typeof Deno !== 'undefined') {
  (createRequire(import.meta.url)('../bin/early_agent.js') as { spawnEarlyAgent(argv: string[]): void }).spawnEarlyAgent(process.argv.slice(2));
}
const { start } = await import('./cli/entry.ts');

// Each subcommand's wiring lives in src/cli/<name>.ts and exports `main`.
const SUBCOMMANDS: Subcommands = {
  tool: () => import('./cli/tool.ts'),
  check: () => import('./cli/check.ts'),
  ui: () => import('./cli/ui.ts'),
  config: () => import('./cli/config.ts'),
  acp: () => import('./cli/acp.ts'),
  run: () => import('./cli/run.ts'),
  trust: () => import('./cli/trust.ts'),
  mission: () => import('./cli/mission.ts'),
  approvals: () => import('./cli/approvals.ts'),
};

start(SUBCOMMANDS);
