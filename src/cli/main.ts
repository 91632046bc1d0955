// The subcommand table: parses the subcommand and hands its argv to the module that wires it.
// Subcommand modules are imported lazily so `cxl --version` loads nothing heavy.
import { start, type Subcommands } from './entry.ts';

// Each subcommand's wiring lives in src/cli/<name>.ts and exports `main`.
const SUBCOMMANDS: Subcommands = {
  tool: () => import('./tool.ts'),
  check: () => import('./check.ts'),
  ui: () => import('./ui.ts'),
  config: () => import('./config.ts'),
  acp: () => import('./acp.ts'),
  serve: () => import('./serve.ts'),
  run: () => import('./run.ts'),
  // `cxl -p` (entry.ts maps it here)
  print: () => import('./print.ts'),
  trust: () => import('./trust.ts'),
  mission: () => import('./mission.ts'),
  approvals: () => import('./approvals.ts'),
};

start(SUBCOMMANDS);
