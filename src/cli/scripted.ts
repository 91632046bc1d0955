// The entry of the bundle bin/cxl.js runs with a V8 code cache for the subcommands people call
// from scripts (`cxl tool`, `cxl check`, `cxl config`): they start cold every time, and
// compiling their modules was a third of their start. The rest of cxl starts from src/cli.ts.
// import() in this bundle is a lazy module initialiser, so a start runs only its subcommand's
// modules (`cxl config` loaded the shell runner and the HTTP client with all three static).
import { start } from './entry.ts';

start({ tool: () => import('./tool.ts'), check: () => import('./check.ts'), config: () => import('./config.ts') });
