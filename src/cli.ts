// Entry point: parses the subcommand and hands its argv to the module that wires it.
// Subcommand modules are imported lazily so `cxl --version` loads nothing heavy.
import { start, type Subcommands } from './cli/entry.ts';

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
