// Entry point. Under Deno this file is what runs (Node runs bin/cxl.js first), and the UI's
// built-in agent is spawned here before anything else loads, so it loads on the other core
// meanwhile (src/cli/early_agent.ts). It imports nothing statically: any node: module would start
// Deno's Node layer first (~20 ms). The build checks that dist/cli.js stays so.
import { spawnEarlyAgentDeno, type DenoHost } from './cli/early_agent.ts';

declare const Deno: DenoHost | undefined;

if (typeof Deno !== 'undefined') spawnEarlyAgentDeno(Deno);
await import('./cli/main.ts');
