// The entry of the bundle bin/cxl.js runs with a V8 code cache for the subcommands people call
// from scripts (`cxl tool`, `cxl check`, `cxl config`): they start cold every time, and
// compiling their modules was a third of their start. The rest of cxl starts from src/cli.ts.
import { start } from './entry.ts';
import * as check from './check.ts';
import * as config from './config.ts';
import * as tool from './tool.ts';

start({ tool: async () => tool, check: async () => check, config: async () => config });
