// The entry of dist/scripted-config.cjs, the bundle bin/cxl.js runs with a V8 code cache for
// `cxl config`: the subcommands people call from scripts start cold every time, and compiling their
// modules was a third of their start. One bundle per subcommand (scripts/build.mjs), so a start
// reads and deserialises only its own subcommand's code; the rest of cxl starts from src/cli.ts.
import { start } from './entry.ts';

start({ config: () => import('./config.ts') });
